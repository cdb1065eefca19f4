import type { MessagePart } from '../items'
import type { TokenCounter } from './token-counter'

/** Tokens a chat format spends per message on role and separators (OpenAI's documented figure is 3-4). */
export const MESSAGE_OVERHEAD_TOKENS = 4
/** A flat charge for an image or file part: its bytes are not text, and providers bill them apart. */
export const FILE_PART_TOKENS = 256

const partTokens = (part: MessagePart, counter: TokenCounter): number => {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return counter.count(part.text)
    case 'file':
      return FILE_PART_TOKENS
    case 'tool-call':
      return counter.count(part.toolName) + counter.count(JSON.stringify(part.input) ?? '')
    case 'tool-result':
      return counter.count(part.toolName) + counter.count(JSON.stringify(part.output) ?? '')
  }
}

/**
 * Tokens of one message: a per-message overhead, the text of text and reasoning parts, tool names
 * with the JSON of tool inputs and outputs, and a flat charge per file part.
 */
export function countMessageTokens(
  message: { content: readonly MessagePart[] },
  counter: TokenCounter,
): number {
  let total = MESSAGE_OVERHEAD_TOKENS
  for (const part of message.content) total += partTokens(part, counter)
  return total
}
