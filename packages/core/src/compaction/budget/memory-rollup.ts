import { MAX_FACTS } from '../../context/render-context'
import type { FactItem, Item, SummaryItem } from '../../items'
import { mergeFacts } from '../../items/facts'

/**
 * The bounds of the memory slots under budget compaction. When a compaction leaves more than
 * `episodic` episodic summaries, all but the newest `keepEpisodic` roll up, with the previous roll-up,
 * into one long-term summary; when it leaves more than `facts` fact items, they merge (one per text,
 * tags joined, the latest confidence) into the newest `keepFacts`. What rolls up is archived, never
 * deleted. So the active log holds at most {@link MAX_MEMORY_ITEMS} memory items after a compaction.
 */
export const MEMORY_LIMITS = { episodic: 8, keepEpisodic: 3, facts: 40, keepFacts: MAX_FACTS } as const

/**
 * The most memory items (summaries and facts the context draws on) the active log holds after a budget
 * compaction, however long the history: one roll-up, the episodic summaries and the facts at their
 * bounds. Short-term summaries of a waterfall run alongside are not counted.
 */
export const MAX_MEMORY_ITEMS = 1 + MEMORY_LIMITS.episodic + MEMORY_LIMITS.facts

/** What a roll-up reads, writes and archives. */
export interface RollupPlan<L extends string> {
  /** The summaries it summarizes into the new long-term one, oldest first (the previous roll-up first). */
  summaries: SummaryItem<L>[]
  /** The facts it writes again, merged, oldest first. */
  facts: FactItem<L>[]
  /** Every memory item it archives, by seq, oldest first. */
  seqs: number[]
}

/** Whether a long-term summary is a roll-up (it names what it replaced), not the waterfall's. */
export const isRollup = (item: Item): item is SummaryItem =>
  item.type === 'summary' && item.tier === 'long-term' && item.covers !== undefined

/**
 * Plans the roll-up of the memory slots (see {@link MEMORY_LIMITS}); undefined when they are within
 * their bounds. Linear in the memory items, which are bounded.
 *
 * @example
 * planRollup(log.memoryItems) // { summaries: [rollup, e1, …, e6], facts: [...20 merged], seqs }
 */
export function planRollup<L extends string>(memoryItems: readonly Item<L>[]): RollupPlan<L> | undefined {
  const episodic = memoryItems.filter(
    (item): item is SummaryItem<L> => item.type === 'summary' && item.tier === 'episodic',
  )
  const facts = memoryItems.filter((item): item is FactItem<L> => item.type === 'fact')
  const rollEpisodic = episodic.length > MEMORY_LIMITS.episodic
  const mergeTheFacts = facts.length > MEMORY_LIMITS.facts
  if (!rollEpisodic && !mergeTheFacts) return undefined
  const archived: number[] = []
  const summaries: SummaryItem<L>[] = []
  if (rollEpisodic) {
    let previous: SummaryItem<L> | undefined
    for (const item of memoryItems) if (isRollup(item)) previous = item as SummaryItem<L>
    if (previous !== undefined) summaries.push(previous)
    summaries.push(...episodic.slice(0, episodic.length - MEMORY_LIMITS.keepEpisodic))
    archived.push(...summaries.map((item) => item.seq))
  }
  let merged: FactItem<L>[] = []
  if (mergeTheFacts) {
    merged = mergeFacts(facts, []).slice(-MEMORY_LIMITS.keepFacts)
    archived.push(...facts.map((item) => item.seq))
  }
  return { summaries, facts: merged, seqs: archived.sort((a, b) => a - b) }
}
