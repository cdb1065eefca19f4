import type { CompactionDependencies } from '../compaction/policy-registry'
import type { ThreadHolds } from '../thread-state/thread-hold'
import type { ThreadBudget } from './thread-budget'

/**
 * A thread's own view of the memory's dependencies: every part writes through a store that stamps the
 * thread's hold on its writes (see ThreadHolds.store), read at each call because the memory wraps its
 * store in spans once an adapter passes a tracer; its compaction options carry the thread's own budget
 * (`memory.thread(id, { budget })`), which may change.
 */
export function threadDependencies<L extends string>(
  memoryDeps: CompactionDependencies<L>,
  holds: ThreadHolds,
  budget: ThreadBudget,
): CompactionDependencies<L> {
  return Object.create(memoryDeps, {
    store: { get: () => holds.store(), enumerable: true },
    compaction: { get: () => budget.compaction(memoryDeps.compaction), enumerable: true },
  })
}
