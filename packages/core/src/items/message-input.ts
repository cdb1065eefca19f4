import type { JsonObject } from './json'
import type { MessagePart, MessageRole } from './message-part'

/**
 * A message as callers hand it to `thread.append`: content is a string (one text part) or parts.
 *
 * @example
 * await thread.append({ role: 'user', content: 'Draw a house' })
 */
export interface MessageInput {
  role: MessageRole
  content: string | MessagePart[]
  /** Optional unique id; one is generated when omitted. */
  id?: string
  /** Epoch ms; defaults to the memory's clock. */
  ts?: number
  /** Application metadata, kept verbatim. */
  meta?: JsonObject
}
