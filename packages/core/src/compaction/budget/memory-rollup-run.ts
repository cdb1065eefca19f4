import type { SummaryItem, UnsequencedItem } from '../../items'
import { seqRuns } from '../../items/seq-search'
import type { WritePath } from '../../thread-state/write-path'
import type { PolicyState } from '../compaction-policy'
import { planRollup } from './memory-rollup'

/** What a roll-up cost: the memory items it read and archived, and what it wrote. */
export interface RollupCost {
  itemsRead: number
  itemsArchived: number
  summariesWritten: number
  factsWritten: number
}

const NONE: RollupCost = { itemsRead: 0, itemsArchived: 0, summariesWritten: 0, factsWritten: 0 }

/**
 * Rolls up the memory slots when a compaction left them over their bounds (see `MEMORY_LIMITS`), as
 * one committed step inside the compaction's exclusive section: the long-term summary of the old
 * episodic summaries and the merged facts are written first, naming what they replace (`covers`),
 * then the replaced items move to the archive. A summarizer failure leaves the slots as they are (the
 * next compaction tries again); a store failure after the write is finished by the thread's next write.
 */
export async function rollUpMemory<L extends string>(
  state: PolicyState<L>,
  writes: WritePath<L>,
): Promise<RollupCost> {
  const plan = planRollup(state.log.memoryItems)
  if (plan === undefined) return NONE
  let text: string | undefined
  if (plan.summaries.length > 0) {
    const previous = plan.summaries[0]!.tier === 'long-term' ? plan.summaries[0]!.text : undefined
    try {
      const result = await state.summarize(plan.summaries, {
        tier: 'long-term',
        ...(previous === undefined ? {} : { previousSummary: previous }),
      })
      text = result.summary
    } catch {
      return NONE
    }
  }
  const written: UnsequencedItem<L>[] = []
  if (text !== undefined) {
    const ranges = plan.summaries.map((summary) => summary.range)
    const range = {
      fromSeq: Math.min(...ranges.map((each) => each.fromSeq)),
      toSeq: Math.max(...ranges.map((each) => each.toSeq)),
    }
    const turnIds = [...new Set(plan.summaries.flatMap((summary) => summary.turnIds ?? []))]
    const summary: Omit<SummaryItem<L>, 'seq'> = {
      ...state.summaryItem('long-term', text, range, turnIds.length > 0 ? turnIds : undefined),
      // Everything this roll-up replaces, summaries and facts: archived below, or by the next write.
      covers: seqRuns(plan.seqs),
    }
    written.push(summary as UnsequencedItem<L>)
  }
  for (const fact of plan.facts) {
    written.push(
      state.factItem({
        text: fact.text,
        tags: fact.tags,
        confidence: fact.confidence,
        salience: fact.salience,
      }) as UnsequencedItem<L>,
    )
  }
  let superseded = false
  await writes.write(() => {
    // Another writer may have rolled up meanwhile: only if every planned item is still a memory item.
    const present = new Set(state.log.memoryItems.map((item) => item.seq))
    superseded = plan.seqs.some((seq) => !present.has(seq))
    return superseded ? [] : written
  })
  if (superseded) return NONE
  // During a long compaction the replaced items wait with its steps' (see `ThreadLog.archiveLag`).
  let archived: number
  if (state.log.archiveLag) {
    archived = await writes.finishArchive()
  } else {
    archived = await state.deps.store.archive(state.id, { seqs: plan.seqs })
    state.log.removeArchived(new Set(plan.seqs))
  }
  return {
    itemsRead: plan.seqs.length,
    itemsArchived: archived,
    summariesWritten: text === undefined ? 0 : 1,
    factsWritten: plan.facts.length,
  }
}
