import type { Item, MessagePart } from '../items'

/** The tokens an old step's results are cut to when a context must shrink to its budget: the smallest cut. */
export const CUT_RESULT_TOKENS = 64

/** A cut within this many tokens (or 1% of its target, when more) of its target is close enough. */
const CUT_TOLERANCE = 8

/** About what a cut part's note costs, for the first guess of a cut's size. */
const NOTE_GUESS = 40

/** What {@link cutToTarget} cuts and how. */
export interface CutSearchInput<I extends Item> {
  /** The step's items (a tool call with its results, or one item). */
  items: readonly I[]
  /** Their rendered tokens, whole. */
  full: number
  /** The most rendered tokens the cut step may hold. */
  target: number
  /** An item with its long parts cut to `maxTokens` each (never briefed here). */
  shrink: (item: I, maxTokens: number, brief: boolean) => I
  /** The rendered tokens of items. */
  measure: (items: readonly I[]) => number
  countMessage: (message: { content: readonly MessagePart[] }) => number
}

/** The cut size last found for a step (by its first part) and target: a context fitted again finds it at once. */
const cutSizes = new WeakMap<MessagePart, { target: number; full: number; size: number }>()

/**
 * The step with its long parts cut to one size, the largest found whose rendered tokens are within
 * `target` and close to it (within {@link CUT_TOLERANCE}, or 1%); undefined when no cut above the
 * smallest fits. A cut costs about its size, so each probe moves the size by what the last one
 * missed, shared among the parts it cuts, inside the bounds found so far (a bisection when that
 * stalls). The size found is kept for the step and target, so an unchanged thread is not searched again.
 */
export function cutToTarget<I extends Item>(
  input: CutSearchInput<I>,
): { items: I[]; tokens: number } | undefined {
  const { items, full, target, shrink, measure } = input
  const key = firstPart(items)
  const known = key === undefined ? undefined : cutSizes.get(key)
  if (known?.target === target && known.full === full) {
    const cut = items.map((item) => shrink(item, known.size, false))
    const tokens = measure(cut)
    if (tokens <= target) return { items: cut, tokens }
  }
  const found = searchCut(input)
  if (key !== undefined && found !== undefined) cutSizes.set(key, { target, full, size: found.size })
  return found
}

function searchCut<I extends Item>({
  items,
  full,
  target,
  shrink,
  measure,
  countMessage,
}: CutSearchInput<I>): { items: I[]; tokens: number; size: number } | undefined {
  const sizes: number[] = []
  for (const item of items) {
    if (item.type !== 'message') continue
    for (const part of item.content) {
      if (part.type === 'text' || part.type === 'reasoning' || part.type === 'tool-result')
        sizes.push(countMessage({ content: [part] }) - countMessage({ content: [] }))
    }
  }
  const cutAt = (size: number) => sizes.filter((tokens) => tokens > size).length || 1
  let low = CUT_RESULT_TOKENS + 1
  let high = Math.max(...sizes, 0) - 1
  const tolerance = Math.max(CUT_TOLERANCE, Math.floor(target / 100))
  let best: { items: I[]; tokens: number; size: number } | undefined
  // The first guess: every part cut to what the step's overflow leaves it, less about a note each.
  let size = high - Math.ceil((full - target) / cutAt(high)) - NOTE_GUESS
  const tried = new Set<number>()
  while (low <= high) {
    if (size < low || size > high || tried.has(size)) size = Math.floor((low + high) / 2)
    tried.add(size)
    const cut = items.map((item) => shrink(item, size, false))
    const tokens = measure(cut)
    if (tokens <= target) {
      best = { items: cut, tokens, size }
      if (target - tokens <= tolerance) break
      low = size + 1
    } else high = size - 1
    size += Math.trunc((target - tokens) / cutAt(size))
  }
  return best
}

/** The first part of a step's messages, which stands for the step in {@link cutSizes}. */
function firstPart(items: readonly Item[]): MessagePart | undefined {
  for (const item of items) if (item.type === 'message' && item.content.length > 0) return item.content[0]
  return undefined
}
