import type { BudgetRunner } from '../compaction/budget/budget-run'
import type { CompactionState } from '../compaction/compaction-options'
import type { WaterfallRunner } from '../compaction/waterfall/waterfall-run'
import { invalidOptions } from '../errors'
import { traceCompaction } from '../telemetry'
import type { WritePath } from '../thread/write-path'

/** What a compaction by hand runs on: the thread's state, its write path and its two policies. */
export interface ManualCompactionParts<L extends string> {
  id: string
  state: CompactionState<L>
  writes: WritePath<L>
  waterfall: WaterfallRunner<L>
  budget: BudgetRunner<L>
}

/**
 * `thread.compact()`: waits for a running waterfall compaction (starting one when a plan is due) and,
 * with `force` or when the budget asks for it, runs a budget compaction under the write path.
 */
export async function compactByHand<L extends string>(
  parts: ManualCompactionParts<L>,
  force: boolean,
): Promise<void> {
  const { state, writes, waterfall: runner, budget: budgetRunner } = parts
  const { waterfall, budget } = state.deps.compaction
  if (waterfall === false && budget === false) {
    invalidOptions(
      'compact(): no compaction policy is enabled; pass compaction: { waterfall, budget } to createMemory.',
    )
  }
  if (waterfall !== false) {
    runner.start({ manual: true })
    await runner.settled()
  }
  if (budget === false) return
  await budgetRunner.settled()
  if (force || budgetRunner.requested !== undefined || budgetRunner.gauge.urgency() !== 'none') {
    await writes.exclusive(async () => {
      await writes.refresh()
      const span = {
        threadId: parts.id,
        policy: 'budget',
        trigger: 'manual',
        items: () => state.log.activeCount,
      }
      await traceCompaction(state.deps.tracer, state.deps.events, span, () => budgetRunner.compact('manual'))
    })
  }
}
