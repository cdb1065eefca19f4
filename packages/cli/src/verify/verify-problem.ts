import type { AuditCode, AuditEntry } from '@strata-memory/core/store-kit'

/** What `strata verify` can find: the store audit's codes. */
export type ProblemKind = AuditCode

/** One problem, where it is, and how to repair it. */
export interface VerifyProblem {
  kind: ProblemKind
  threadId: string
  message: string
  /** How to repair it. */
  repair: string
  /** True when `strata verify --repair` repairs it (the store's audit repairs it). */
  repairable: boolean
  /** The file (file store) or key (Redis) and 1-based line (or list index). */
  file?: string
  line?: number
  seq?: number
}

const REPAIRS: Record<ProblemKind, string> = {
  'torn-tail':
    'an append that was never acknowledged (a crash): `strata verify --repair` moves it to the .corrupt file beside the log, as the file store does when it next opens the thread.',
  'archive-pending':
    'an archive was interrupted between its two steps (they stay archived): `strata verify --repair` finishes it, as the file store does when it next opens the thread.',
  'compaction-unfinished':
    'a budget compaction stored its summary but was cut short before archiving what it covers; contexts already show the summary in their place. The thread finishes the archive at its next write or compaction (any append through Strata).',
  'corrupt-line':
    'fix or remove the line by hand (keep a copy of the file first), or restore the thread from a backup or a `strata export`.',
  'seq-gap':
    'items are missing from both the log and the archive: restore the thread from a backup or a `strata export --archive`.',
  'seq-order':
    'lines are out of order: restore the thread from a backup, or reorder the lines by seq by hand (keep a copy).',
  'orphan-tool-call':
    'contexts leave this call out; append a tool result for its toolCallId, or `thread.rewind()` to before it.',
  'orphan-tool-result':
    'contexts leave this result out; append its tool call, or `thread.rewind()` to before it.',
  'missing-content':
    'the citation stays but memory_retrieve cannot return the content: restore the content record (`strata import` of an export, or a backup).',
}

/** A store audit's entry as `verify` shows it, with how to repair it. */
export function problemOf({
  code,
  threadId,
  message,
  repairable,
  file,
  line,
  seq,
}: AuditEntry): VerifyProblem {
  return {
    kind: code,
    threadId,
    message,
    repair: REPAIRS[code],
    repairable,
    ...(file !== undefined ? { file } : {}),
    ...(line !== undefined ? { line } : {}),
    ...(seq !== undefined ? { seq } : {}),
  }
}
