import type { JsonObject, JsonValue, MessagePart } from '@strata-memory/core'
import { plainJson } from '@strata-memory/core'

/** The key under which the adapter keeps LangChain's own fields in a part's `meta`. */
export const LANGCHAIN = 'langchain'

/** LangChain's message types the adapter stores. */
export type LangChainMessageType = 'human' | 'ai' | 'system' | 'tool'

/**
 * What core's messages have no field for, kept on a message's first part (contexts carry parts, not
 * message metadata) and, for tool messages, on each tool result: mapping back restores them, so a
 * message survives the round trip unchanged.
 */
export interface LangChainMessageMeta {
  type: LangChainMessageType
  id?: string
  name?: string
  additional_kwargs?: JsonObject
  response_metadata?: JsonObject
  usage_metadata?: JsonObject
  invalid_tool_calls?: JsonValue[]
  /** `'blocks'` when the content was an array of content blocks, else it was a string. */
  content?: 'blocks'
  /** Tool messages: their status as given (absent when not set), artifact and metadata. */
  status?: 'success' | 'error'
  artifact?: JsonValue
  metadata?: JsonObject
  /** The tool message's name was not set (the tool name was read from nowhere). */
  noName?: true
}

/** What the adapter keeps on one part: the block's own fields, and on the first part the message's. */
export interface LangChainPartMeta {
  /** The content block's fields besides the ones core's part holds (`text`, the file's data). */
  block?: JsonObject
  /** The message's fields (see {@link LangChainMessageMeta}). */
  message?: LangChainMessageMeta
  /** A tool call's own `type` field was absent. */
  untyped?: true
}

export const readPartMeta = (part: { meta?: JsonObject }): LangChainPartMeta =>
  (part.meta?.[LANGCHAIN] as LangChainPartMeta | undefined) ?? {}

/** The message fields kept on a message's parts: on its first part, or any part a context kept. */
export function messageMetaOf(parts: readonly MessagePart[]): LangChainMessageMeta | undefined {
  for (const part of parts) {
    const message = readPartMeta(part).message
    if (message !== undefined) return message
  }
  return undefined
}

/** A part's `meta` with the adapter's fields, or none when there are none. */
export function withMeta(meta: LangChainPartMeta): { meta?: JsonObject } {
  const fields = plainJson(meta) as JsonObject
  return Object.keys(fields).length === 0 ? {} : { meta: { [LANGCHAIN]: fields } }
}
