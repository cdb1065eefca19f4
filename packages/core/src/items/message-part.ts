import type { JsonObject, JsonValue } from './json'

/** Plain text. */
export interface TextPart {
  type: 'text'
  text: string
  /** Framework or provider metadata, kept verbatim. */
  meta?: JsonObject
}

/** Model reasoning, kept for the record; rendered like any other part. */
export interface ReasoningPart {
  type: 'reasoning'
  text: string
  meta?: JsonObject
}

/** An image or file, by URL, data URL, base64 string, or an application-defined reference. */
export interface FilePart {
  type: 'file'
  /** IANA media type, e.g. `image/png` or `application/pdf`. */
  mediaType: string
  /** URL, data URL, base64, or a reference the application resolves. */
  data: string
  filename?: string
  meta?: JsonObject
}

/** A tool call made by the assistant. */
export interface ToolCallPart {
  type: 'tool-call'
  toolCallId: string
  toolName: string
  input: JsonValue
  /**
   * True when the provider runs the tool itself (web search, code execution): its result is the
   * provider's to give, in the assistant's own message, so a context keeps the call while the result
   * has not arrived. Calls the application runs need a result before the next model call.
   */
  providerExecuted?: boolean
  meta?: JsonObject
}

/** The result of a tool call, matched to its call by `toolCallId`. */
export interface ToolResultPart {
  type: 'tool-result'
  toolCallId: string
  toolName: string
  output: JsonValue
  /** True when the tool failed and `output` describes the failure. */
  isError?: boolean
  meta?: JsonObject
}

export type MessagePart = TextPart | ReasoningPart | FilePart | ToolCallPart | ToolResultPart
export type MessageRole = 'system' | 'user' | 'assistant' | 'tool'
export const MESSAGE_ROLES: readonly MessageRole[] = ['system', 'user', 'assistant', 'tool']
