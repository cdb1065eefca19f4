import type { LanguageModelV4Content } from '@ai-sdk/provider'
import type { JsonObject, JsonValue, MessageInput, MessagePart } from '@strata-memory/core'
import { plainJson } from '@strata-memory/core'
import { AI_SDK, type AiSdkPartMeta, metaOf, options, providerExecuted } from './ai-sdk-meta'
import { fileDataOf } from './file-data'

/** Metadata of a model response kept with the stored assistant message. */
export interface ResponseMeta {
  responseId?: string
  modelId?: string
  /** Sources and approval requests: part of the response, never of a prompt. */
  extras?: JsonObject[]
}

/**
 * A model response (generate result content, or the parts a stream assembled) as one assistant
 * message, in the shape the SDK re-sends it in the next step's prompt: provider metadata becomes the
 * parts' provider options, tool inputs are parsed from their JSON text.
 */
export function fromResponseContent(
  content: readonly LanguageModelV4Content[],
  response: ResponseMeta = {},
): MessageInput | undefined {
  const parts: MessagePart[] = []
  const extras: JsonObject[] = [...(response.extras ?? [])]
  for (const part of content) {
    const base = options(
      part.type === 'source' || part.type === 'tool-approval-request' ? undefined : part.providerMetadata,
    )
    switch (part.type) {
      case 'text':
      case 'reasoning':
        if (part.text.length > 0 || base.providerOptions !== undefined) {
          parts.push({ type: part.type, text: part.text, ...metaOf(base) })
        }
        break
      case 'file':
      case 'reasoning-file': {
        const { data, meta } = fileDataOf(part.data)
        const kind: AiSdkPartMeta = part.type === 'reasoning-file' ? { part: 'reasoning-file' } : {}
        parts.push({
          type: 'file',
          mediaType: part.mediaType,
          data,
          ...metaOf({ ...base, ...meta, ...kind }),
        })
        break
      }
      case 'custom':
        parts.push({
          type: 'text',
          text: '',
          ...metaOf({ ...base, part: 'custom', custom: { kind: part.kind } }),
        })
        break
      case 'tool-call': {
        let input: JsonValue
        try {
          input = JSON.parse(part.input) as JsonValue
        } catch {
          // The SDK re-sends an unparsable input as the raw text: keep it the same way.
          input = part.input
        }
        parts.push({
          type: 'tool-call',
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          input,
          ...providerExecuted(part.providerExecuted),
          ...metaOf({ ...base, ...(part.dynamic === undefined ? {} : { dynamic: part.dynamic }) }),
        })
        break
      }
      case 'tool-result':
        parts.push({
          type: 'tool-result',
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          output: plainJson(part.result) as JsonValue,
          ...(part.isError === undefined ? {} : { isError: part.isError }),
          ...metaOf({ ...base, output: 'json', providerExecuted: true }),
        })
        break
      case 'source':
      case 'tool-approval-request':
        extras.push(plainJson(part) as JsonObject)
        break
    }
  }
  if (parts.length === 0) return undefined
  const aiSdk: JsonObject = {}
  if (response.responseId !== undefined) aiSdk.responseId = response.responseId
  if (response.modelId !== undefined) aiSdk.modelId = response.modelId
  if (extras.length > 0) aiSdk.extras = extras
  return {
    role: 'assistant',
    content: parts,
    ...(Object.keys(aiSdk).length === 0 ? {} : { meta: { [AI_SDK]: aiSdk } }),
  }
}
