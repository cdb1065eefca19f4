import type { Item, SeqRange } from '../../items'
import { assertInteger, turnBoundaries } from '../turn-boundaries'

/** Options of {@link planWaterfall}. */
export interface WaterfallPlanOptions {
  /** History items kept in full at the end of the context. @default 64 */
  window?: number
  /** History items between two triggers. @default 64 */
  every?: number
  /** The last seq a short-term summary already covers. @default 0 (nothing summarized yet) */
  summarizedThroughSeq?: number
  /** Waterfall compactions committed so far (store the plan's `compactions` after committing). @default 0 */
  compactions?: number
}

/** What a waterfall compaction should do. */
export interface WaterfallPlan {
  /** The threshold reached: `window + every × (n + 1) + 1` history items (129, 193, 257, … by default). */
  trigger: number
  /** The number of history items now (equal to `trigger` when planned after every append). */
  count: number
  /** The value of `compactions` to store once this compaction commits. */
  compactions: number
  /** Seqs of the history items to summarize into the new short-term summary, oldest first. */
  shortTermSeqs: number[]
  /** From the first to the last of `shortTermSeqs`. */
  range: SeqRange
  /** The turns `shortTermSeqs` cover, oldest first. */
  turnIds: string[]
  /** The new `summarizedThroughSeq`: everything up to it is covered once this commits. */
  summarizedThroughSeq: number
  /** True when a previous short-term summary exists and goes, with the long-term one, into a new long-term. */
  longTermFromPrevious: boolean
}

/** The `n`-th waterfall trigger (0-based): 129, 193, 257, … with the defaults. */
export const waterfallTrigger = (n: number, { window = 64, every = 64 }: WaterfallPlanOptions = {}) =>
  window + every * (n + 1) + 1

/**
 * Plans the cascading short-term / long-term summaries. Pure: reads `items` (the active log, in seq
 * order), decides, and returns seqs; the engine summarizes and stores.
 *
 * Counting rule: the count is the number of history items in `items`, that is every active item except
 * context-memory items (facts and non-scope summaries), whichever its level; items already covered by a
 * summary stay in the log and still count. The `n`-th trigger (n = `compactions`) fires once the count
 * reaches `window + every × (n + 1) + 1`: 129, 193, 257, … When planned after every append of a plain
 * history, it fires at exactly those counts; after a batch that jumps past several thresholds it fires
 * once, for the highest one reached.
 *
 * The short-term range is the history outside the immediate window (the newest `window` items) not yet
 * summarized, cut back to a whole-turn boundary (the window grows to keep whole turns), never reaching
 * the current turn or a turn with a pending tool call. Returns undefined when no threshold is due or
 * nothing can be summarized yet (the next plan tries again).
 *
 * @example
 * const plan = planWaterfall(items, { summarizedThroughSeq: state.through, compactions: state.count })
 */
export function planWaterfall<L extends string>(
  items: readonly Item<L>[],
  options: WaterfallPlanOptions = {},
): WaterfallPlan | undefined {
  const { window = 64, every = 64, summarizedThroughSeq = 0, compactions = 0 } = options
  assertInteger(window, 'window', 1)
  assertInteger(every, 'every', 1)
  assertInteger(summarizedThroughSeq, 'summarizedThroughSeq', 0)
  assertInteger(compactions, 'compactions', 0)

  const boundaries = turnBoundaries(items)
  const count = boundaries.history.length
  // The index of the highest threshold reached; below the next one due, nothing to do.
  const reached = Math.floor((count - window - 1) / every) - 1
  if (reached < compactions) return undefined

  const candidate = boundaries.history[count - window - 1]!.seq
  const cut = boundaries.cutAtOrBefore(candidate)
  const shortTerm = boundaries.between(summarizedThroughSeq, cut)
  if (shortTerm.length === 0) return undefined

  const turnIds = [...new Set(shortTerm.map((item) => item.turnId))]
  return {
    trigger: waterfallTrigger(reached, { window, every }),
    count,
    compactions: reached + 1,
    shortTermSeqs: shortTerm.map((item) => item.seq),
    range: { fromSeq: shortTerm[0]!.seq, toSeq: cut },
    turnIds,
    summarizedThroughSeq: cut,
    longTermFromPrevious: compactions > 0,
  }
}
