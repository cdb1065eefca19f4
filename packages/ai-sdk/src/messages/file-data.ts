import type { SharedV4FileData } from '@ai-sdk/provider'
import type { FilePart } from '@strata-memory/core'
import { plainJson } from '@strata-memory/core'
import type { AiSdkPartMeta } from './ai-sdk-meta'

/* A file's data: core keeps a string (base64, URL, text); the provider's kind is kept in meta. */

const toBase64 = (bytes: Uint8Array) => {
  let binary = ''
  for (let index = 0; index < bytes.length; index += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(index, index + 0x8000))
  }
  return btoa(binary)
}

const fromBase64 = (text: string) => Uint8Array.from(atob(text), (char) => char.charCodeAt(0))

/** A provider file's data as core's string, and how it was given. */
export function fileDataOf(data: SharedV4FileData): { data: string; meta: AiSdkPartMeta } {
  switch (data.type) {
    case 'data':
      return typeof data.data === 'string'
        ? { data: data.data, meta: {} }
        : { data: toBase64(data.data), meta: { fileData: 'bytes' } }
    case 'url':
      return {
        data: data.url.href,
        meta: {
          fileData: 'url',
          ...(data.originalUrl === undefined ? {} : { originalUrl: data.originalUrl }),
        },
      }
    case 'reference':
      return {
        data: JSON.stringify(data.reference),
        meta: { fileData: 'reference', reference: plainJson(data.reference) },
      }
    case 'text':
      return { data: data.text, meta: { fileData: 'text' } }
  }
}

export function providerFileData(part: FilePart, meta: AiSdkPartMeta): SharedV4FileData {
  switch (meta.fileData) {
    case 'bytes':
      return { type: 'data', data: fromBase64(part.data) }
    case 'url':
      return {
        type: 'url',
        url: new URL(part.data),
        ...(meta.originalUrl === undefined ? {} : { originalUrl: meta.originalUrl }),
      }
    case 'reference':
      return { type: 'reference', reference: (meta.reference ?? {}) as Record<string, string> }
    case 'text':
      return { type: 'text', text: part.data }
    default:
      return { type: 'data', data: part.data }
  }
}
