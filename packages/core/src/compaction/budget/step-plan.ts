import type { Item } from '../../items'
import { isContextMemoryItem } from '../../views'

/** Options of {@link planStepCompaction}. */
export interface StepPlanOptions<I extends Item> {
  /** The tokens the newest steps may keep raw; older complete steps are compacted. */
  keepTokens: number
  /** The tokens of an item as the thread counts them. */
  countItem: (item: I) => number
  /** The newest steps always kept, whatever their size. @default 2 */
  minSteps?: number
  /** Seqs never compacted (the opening items of open scopes). */
  keep?: ReadonlySet<number>
}

/** The old steps to compact: their seqs, oldest first, and the turns they belong to. */
export interface StepPlan {
  seqs: number[]
  turnIds: string[]
}

/**
 * Plans compaction inside turns: an agent that works many tool steps in one request fills its budget
 * without ever finishing a turn. A step is an assistant message with tool calls, with the messages
 * holding their results; it is complete when every call has its result. Walking from the newest, steps stay
 * raw while they fit in `keepTokens` (the newest `minSteps` always); every older complete step is
 * planned, never a call without its results. User messages, scope opening items, transitions and
 * results whose call is not among `items` are never planned. Undefined when no step is old enough.
 *
 * @example
 * planStepCompaction(items, { keepTokens: 4_000, countItem }) // { seqs, turnIds } of old steps
 */
export function planStepCompaction<I extends Item>(
  items: readonly I[],
  { keepTokens, countItem, minSteps = 2, keep = new Set() }: StepPlanOptions<I>,
): StepPlan | undefined {
  const steps = stepsOf(items.filter((item) => !isContextMemoryItem(item) && !keep.has(item.seq)))
  let kept = 0
  let tokens = 0
  let cut = steps.length
  for (let index = steps.length - 1; index >= 0; index--) {
    const step = steps[index]!
    const size = step.items.reduce((sum, item) => sum + countItem(item), 0)
    if (kept >= minSteps && tokens + size > keepTokens) break
    kept++
    tokens += size
    cut = index
  }
  const planned = steps.slice(0, cut).filter((step) => step.complete)
  if (planned.length === 0) return undefined
  const seqs = planned.flatMap((step) => step.items.map((item) => item.seq)).sort((a, b) => a - b)
  const turnIds = [...new Set(planned.flatMap((step) => step.items.map((item) => item.turnId)))]
  return { seqs, turnIds }
}

interface Step<I extends Item> {
  items: I[]
  complete: boolean
}

/** The assistant steps among `items`, oldest first. */
function stepsOf<I extends Item>(items: readonly I[]): Step<I>[] {
  const steps: Step<I>[] = []
  const byCall = new Map<string, { step: Step<I>; open: Set<string> }>()
  for (const item of items) {
    if (item.type !== 'message') continue
    if (item.role === 'assistant') {
      // A step is tool work; an answer in words is not one (whole old turns take it with them).
      if (!item.content.some((part) => part.type === 'tool-call')) continue
      const step: Step<I> = { items: [item], complete: true }
      const open = new Set<string>()
      for (const part of item.content) {
        if (part.type === 'tool-call') open.add(part.toolCallId)
      }
      for (const part of item.content) if (part.type === 'tool-result') open.delete(part.toolCallId)
      const entry = { step, open }
      for (const id of open) byCall.set(id, entry)
      step.complete = open.size === 0
      steps.push(step)
      continue
    }
    if (item.role !== 'tool') continue
    const results = item.content.flatMap((part) => (part.type === 'tool-result' ? [part.toolCallId] : []))
    const entry = results.map((id) => byCall.get(id)).find((found) => found !== undefined)
    // A result whose call is not a step here (compacted, or older than `items`) stays as it is.
    if (entry === undefined || results.some((id) => byCall.get(id) !== entry)) continue
    entry.step.items.push(item)
    for (const id of results) {
      entry.open.delete(id)
      byCall.delete(id)
    }
    entry.step.complete = entry.open.size === 0
  }
  return steps
}
