import type { Item, MessagePart } from '../items'
import type { TokenCounter } from '../tokens'

/** The part of the budget one message may take before it is shown truncated. */
export const OVERSIZED_SHARE = 0.25

/**
 * Keeps any single message from overflowing the context: a message item whose tokens exceed
 * `maxTokens` is shown with its text, reasoning and tool outputs cut to fit, each cut ending with a
 * note naming the stored item, so the full content stays reachable. Other items are returned as they are.
 */
export function truncateOversized<I extends Item>(
  items: readonly I[],
  {
    maxTokens,
    counter,
    countItem,
  }: { maxTokens: number; counter: TokenCounter; countItem: (item: I) => number },
): I[] {
  return items.map((item) => {
    if (item.type !== 'message' || countItem(item) <= maxTokens) return item
    // Each long part gets an equal share of what the message may take.
    const longParts = item.content.filter((part) => textOf(part).length > 0).length || 1
    const share = Math.max(16, Math.floor(maxTokens / longParts) - 32)
    return { ...item, content: item.content.map((part) => cut(part, share, counter, item.id, item.seq)) }
  })
}

function textOf(part: MessagePart): string {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return part.text
    case 'tool-result':
      return typeof part.output === 'string' ? part.output : JSON.stringify(part.output)
    default:
      return ''
  }
}

function cut(
  part: MessagePart,
  maxTokens: number,
  counter: TokenCounter,
  itemId: string,
  seq: number,
): MessagePart {
  const text = textOf(part)
  const tokens = counter.count(text)
  if (tokens <= maxTokens) return part
  // Cut proportionally, then shrink until it fits: the counter is not linear in length.
  let length = Math.floor((text.length * maxTokens) / tokens)
  while (length > 0 && counter.count(text.slice(0, length)) > maxTokens) length = Math.floor(length * 0.9)
  const shown = `${text.slice(0, length)}\n[truncated: ${text.length - length} of ${text.length} characters left out; the full content is item ${itemId} (seq ${seq}) in the thread's memory]`
  if (part.type === 'tool-result') return { ...part, output: shown }
  return { ...part, text: shown } as MessagePart
}
