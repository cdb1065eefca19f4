import type { StateCompaction, ThreadState } from '../thread-state/thread-state'
import type { ResolvedSharedCompaction } from './compaction-options'

/**
 * A thread's shared state as a compaction policy sees it: the shared compaction options and the
 * policy's own resolved options (`C`, e.g. `{ budget: ResolvedBudget }`).
 */
export type PolicyState<L extends string, C extends object = object> = ThreadState<
  L,
  StateCompaction & ResolvedSharedCompaction & C
>
