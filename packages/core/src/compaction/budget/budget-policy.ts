import { traceCompaction } from '../../telemetry'
import type { PolicyDefinition } from '../compaction-policy'
import type { BudgetCompaction } from './budget-options'
import { BudgetRunner } from './budget-run'

/**
 * The token budget: contexts are held to the input budget (calibrated by usage reports, and by the
 * last one stored with the thread when it is opened anew); after each append and on each usage report
 * over the threshold a compaction starts in the background, and the memory slots roll up after it.
 */
export const budgetPolicy: PolicyDefinition<BudgetCompaction> = {
  name: 'budget',
  create({ state, writes, report, lastUsage }) {
    const runner = new BudgetRunner(state, writes, report)
    // A thread opened anew (a serverless request) keeps the budget calibrated by the last usage report.
    runner.gauge.calibrate(lastUsage)
    const enabled = () => state.deps.compaction.budget !== false
    return {
      name: 'budget',
      enabled,
      afterWrite: () => runner.afterWrite(),
      onUsage: ({ inputTokens, estimatedTokens }) => runner.reportInputTokens(inputTokens, estimatedTokens),
      inputBudget: () => (enabled() ? runner.gauge.effectiveBudget() : undefined),
      afterContext({ systemTokens }) {
        runner.gauge.systemTokens = systemTokens
      },
      /** With `force`, or when the budget asks for it (the estimate, or the last usage report, over its threshold). */
      async compact({ force }) {
        await runner.settled()
        if (!force && runner.requested === undefined && runner.gauge.urgency() === 'none') return
        await writes.exclusive(async () => {
          await writes.refresh()
          const span = {
            threadId: state.id,
            policy: 'budget',
            trigger: 'manual',
            items: () => state.log.activeCount,
          }
          await traceCompaction(state.deps.tracer, state.deps.events, span, () => runner.compact('manual'))
        })
      },
      settled: () => runner.settled(),
      status: () => (runner.requested === undefined ? {} : { budgetRequested: runner.requested }),
      rawTailTurns() {
        const { budget } = state.deps.compaction
        return budget === false ? undefined : budget.rawTailTurns
      },
    }
  },
}
