import type { JsonValue, MessagePart } from '../items'
import type { TokenCounter } from './token-counter'

/**
 * Tokens every message costs besides its content: chat formats wrap each message in a role and
 * delimiters (OpenAI documents 3 per message plus 3 to prime the reply; 4 covers the role too).
 */
export const MESSAGE_OVERHEAD_TOKENS = 4

/**
 * Tokens charged for a file part, whatever its size: about the most one image costs with the major
 * providers (Anthropic ~1,600 for a full-size image, OpenAI at most ~1,100 at high detail). Base64
 * data is never counted as text, since providers bill the decoded image, not its encoding. Documents
 * are billed per page, so a long PDF costs more than this.
 */
export const FILE_PART_TOKENS = 1600

/** Longer `data` than this is inline content; shorter data that is not a data URL is a URL or reference. */
const MAX_REFERENCE_LENGTH = 2048

/**
 * The tokens one part of a message costs with `counter`: the text of text and reasoning parts, the
 * tool name, call id and JSON input or output of tool parts, and {@link FILE_PART_TOKENS} for a file
 * (plus its name, and its URL or reference as text).
 */
export function countPartTokens(part: MessagePart, counter: TokenCounter): number {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return counter.count(part.text)
    case 'tool-call':
      return (
        counter.count(part.toolName) + counter.count(part.toolCallId) + counter.count(jsonText(part.input))
      )
    case 'tool-result':
      return (
        counter.count(part.toolName) + counter.count(part.toolCallId) + counter.count(jsonText(part.output))
      )
    case 'file': {
      const isReference = !part.data.startsWith('data:') && part.data.length <= MAX_REFERENCE_LENGTH
      return (
        FILE_PART_TOKENS + counter.count(part.filename ?? '') + (isReference ? counter.count(part.data) : 0)
      )
    }
  }
}

/**
 * The tokens a message costs with `counter`: {@link MESSAGE_OVERHEAD_TOKENS} plus each part (see
 * {@link countPartTokens}).
 *
 * @example
 * countMessageTokens({ role: 'user', content: [{ type: 'text', text: 'Hi!' }] }, tokenEstimator())
 */
export function countMessageTokens(
  message: { content: readonly MessagePart[] },
  counter: TokenCounter,
): number {
  let total = MESSAGE_OVERHEAD_TOKENS
  for (const part of message.content) total += countPartTokens(part, counter)
  return total
}

/** A string as the model sees it; anything else as compact JSON. */
function jsonText(value: JsonValue): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '')
}
