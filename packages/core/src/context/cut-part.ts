import type { MessagePart } from '../items'
import type { TokenCounter } from '../tokens'

/** What {@link cutPart} reads besides the part. */
export interface CutOptions {
  counter: TokenCounter
  /**
   * The id `memory_retrieve` answers with a part's whole content, when it is not the item's own (a
   * stored result shown in full from the content store has its memory id).
   */
  sourceId?: (part: MessagePart) => string | undefined
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

/** The last cut of each part and its size: contexts of an unchanged thread cut the same parts alike. */
const cuts = new WeakMap<MessagePart, { maxTokens: number; cut: MessagePart }>()

/**
 * The part with its text, reasoning or tool output cut to about `maxTokens`, ending with a note that
 * names the id `memory_retrieve` answers with the whole content (the part's memory id, else
 * `itemId`); the part itself when it fits. The same part cut to the same size twice in a row is the
 * same object.
 */
export function cutPart(
  part: MessagePart,
  maxTokens: number,
  itemId: string,
  options: CutOptions,
): MessagePart {
  const known = cuts.get(part)
  if (known?.maxTokens === maxTokens) return known.cut
  const text = textOf(part)
  const { counter } = options
  const tokens = counter.count(text)
  if (tokens <= maxTokens) return part
  // Cut proportionally, then shrink until it fits: the counter is not linear in length.
  let length = Math.floor((text.length * maxTokens) / tokens)
  while (length > 0 && counter.count(text.slice(0, length)) > maxTokens) length = Math.floor(length * 0.9)
  const id = options.sourceId?.(part) ?? itemId
  const shown = `${text.slice(0, length)}\n[truncated: ${text.length - length} of ${text.length} characters left out; memory_retrieve {"id":"${id}"} returns the whole content]`
  const cut: MessagePart =
    part.type === 'tool-result' ? { ...part, output: shown } : ({ ...part, text: shown } as MessagePart)
  cuts.set(part, { maxTokens, cut })
  return cut
}
