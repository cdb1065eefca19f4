import type { PolicyDefinition } from '../compaction-policy'
import type { WaterfallCompaction } from './waterfall-options'
import { WaterfallRunner } from './waterfall-run'

/**
 * The waterfall policy: after each append a compaction starts in the background when a plan is due;
 * by hand it starts one (retries aside) and waits for it; a rewind waits for a running one first.
 */
export const waterfallPolicy: PolicyDefinition<WaterfallCompaction> = {
  name: 'waterfall',
  create({ state, writes, report }) {
    const runner = new WaterfallRunner(state, writes, report)
    return {
      name: 'waterfall',
      enabled: () => state.deps.compaction.waterfall !== false,
      afterWrite: () => runner.start(),
      async compact() {
        runner.start({ manual: true })
        await runner.settled()
      },
      // A waterfall summary of items the rewind archives must not land after it.
      beforeRewind: () => runner.settled(),
      settled: () => runner.settled(),
    }
  },
}
