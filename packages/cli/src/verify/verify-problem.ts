/** What `strata verify` can find. */
export type ProblemKind =
  | 'torn-tail'
  | 'corrupt-line'
  | 'seq-gap'
  | 'seq-order'
  | 'archive-pending'
  | 'compaction-unfinished'
  | 'orphan-tool-call'
  | 'orphan-tool-result'
  | 'missing-content'

/** One problem, where it is, and how to repair it. */
export interface VerifyProblem {
  kind: ProblemKind
  threadId: string
  message: string
  /** How to repair it. */
  repair: string
  /** True when `strata verify --repair` repairs it. */
  repairable: boolean
  /** The file (file store) or key (Redis) and 1-based line (or list index). */
  file?: string
  line?: number
  seq?: number
}

/** Which repairs `--repair` does: the ones the store itself does when it opens a thread. */
export const REPAIRABLE: ReadonlySet<ProblemKind> = new Set(['torn-tail', 'archive-pending'])
