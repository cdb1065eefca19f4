import type { JsonObject, JsonValue, MessagePart } from '@strata-memory/core'
import { plainJson } from '@strata-memory/core'
import { type LangChainPartMeta, readPartMeta, withMeta } from './langchain-meta'

/** A LangChain content block as plain data (`{ type, … }`). */
export type ContentBlock = Record<string, unknown> & { type?: unknown }

/** Block types whose text becomes core's text or reasoning part, and the field that holds it. */
const TEXT_FIELDS: Record<string, { field: string; part: 'text' | 'reasoning' }> = {
  text: { field: 'text', part: 'text' },
  reasoning: { field: 'reasoning', part: 'reasoning' },
  thinking: { field: 'thinking', part: 'reasoning' },
}

/** Block types that carry a file (an image, audio, a document) by URL, data or id. */
const FILE_TYPES = new Set(['image', 'image_url', 'file', 'audio', 'video', 'input_audio'])

/** Where a file block keeps its data, first match wins. */
const DATA_PATHS: readonly (readonly string[])[] = [
  ['url'],
  ['data'],
  ['image_url'],
  ['image_url', 'url'],
  ['input_audio', 'data'],
  ['fileId'],
  ['file_id'],
  ['source', 'data'],
  ['source', 'url'],
]

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

function at(block: ContentBlock, path: readonly string[]): unknown {
  let value: unknown = block
  for (const key of path) {
    if (!isRecord(value)) return undefined
    value = value[key]
  }
  return value
}

/** A copy of the block without the value at `path`. */
function without(block: ContentBlock, path: readonly string[]): JsonObject {
  const copy = plainJson(block) as JsonObject
  let parent: JsonObject = copy
  for (const key of path.slice(0, -1)) parent = parent[key] as JsonObject
  delete parent[path.at(-1)!]
  return copy
}

/** A copy of the block with `value` set at `path`. */
function withValue(block: JsonObject, path: readonly string[], value: string): ContentBlock {
  const copy = structuredClone(block) as Record<string, unknown>
  let parent = copy
  for (const key of path.slice(0, -1)) {
    if (!isRecord(parent[key])) parent[key] = {}
    parent = parent[key] as Record<string, unknown>
  }
  parent[path.at(-1)!] = value
  return copy
}

function mediaTypeOf(block: ContentBlock, data: string): string {
  for (const key of ['mimeType', 'mime_type', 'media_type']) {
    const value = block[key]
    if (typeof value === 'string' && value.length > 0) return value
  }
  const dataUrl = /^data:([^;,]+)[;,]/.exec(data)
  if (dataUrl?.[1] !== undefined) return dataUrl[1]
  const type = String(block.type)
  if (type.startsWith('image')) return 'image/*'
  if (type.includes('audio')) return 'audio/*'
  if (type === 'video') return 'video/*'
  return 'application/octet-stream'
}

/**
 * One content block as core's part, lossless: text, reasoning and thinking blocks as text and
 * reasoning, images and other files as file parts (their data is what the content channel sees),
 * anything else as an empty text part that keeps the block whole in `meta.langchain.block`.
 */
export function blockToPart(block: unknown, first?: LangChainPartMeta['message']): MessagePart {
  const message = first === undefined ? {} : { message: first }
  if (typeof block === 'string')
    return { type: 'text', text: block, ...withMeta({ ...message, block: { '~string': true } }) }
  if (!isRecord(block))
    return {
      type: 'text',
      text: '',
      ...withMeta({ ...message, block: { '~opaque': plainJson(block) as JsonValue } }),
    }
  const type = typeof block.type === 'string' ? block.type : undefined
  const text = type === undefined ? undefined : TEXT_FIELDS[type]
  if (text !== undefined && typeof block[text.field] === 'string') {
    const rest = without(block, [text.field])
    const defaultShape = Object.keys(rest).length === 1 && rest.type === text.part
    return {
      type: text.part,
      text: block[text.field] as string,
      ...withMeta({ ...message, ...(defaultShape ? {} : { block: rest }) }),
    }
  }
  if (type !== undefined && FILE_TYPES.has(type)) {
    const path = DATA_PATHS.find((candidate) => typeof at(block, candidate) === 'string')
    if (path !== undefined) {
      const data = at(block, path) as string
      return {
        type: 'file',
        mediaType: mediaTypeOf(block, data),
        data,
        ...withMeta({ ...message, block: { ...without(block, path), '~data': [...path] } }),
      }
    }
  }
  return {
    type: 'text',
    text: '',
    ...withMeta({ ...message, block: { '~opaque': plainJson(block) as JsonValue } }),
  }
}

/** A core part back as the LangChain content block it came from (or the plain block it reads as). */
export function partToBlock(part: MessagePart): ContentBlock | string {
  const block = readPartMeta(part).block
  switch (part.type) {
    case 'text':
    case 'reasoning': {
      if (block?.['~opaque'] !== undefined) return structuredClone(block['~opaque']) as ContentBlock
      if (block?.['~string'] === true) return part.text
      if (block === undefined)
        return part.type === 'text'
          ? { type: 'text', text: part.text }
          : { type: 'reasoning', reasoning: part.text }
      const field = TEXT_FIELDS[String(block.type)]?.field ?? (part.type === 'text' ? 'text' : 'reasoning')
      return { ...(structuredClone(block) as ContentBlock), [field]: part.text }
    }
    case 'file': {
      const path = block?.['~data']
      if (block === undefined || !Array.isArray(path))
        return { type: 'file', url: part.data, mimeType: part.mediaType }
      const { '~data': _, ...rest } = block
      return withValue(rest, path as string[], part.data)
    }
    default:
      // Tool calls and results are fields of their messages, not blocks.
      return { type: 'text', text: '' }
  }
}
