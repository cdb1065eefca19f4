import type { Item } from '../items'

/**
 * What an audit can find, each a stable code:
 * - `torn-tail`: bytes at the end of a log (or of an archive's index or data) that were never
 *   committed, an append or archive cut short by a crash. Never acknowledged; repairable.
 * - `archive-pending`: items in both the active log and the archive, an archive interrupted between
 *   its two steps (they count as archived). Repairable.
 * - `corrupt-line`: a stored line or element that is not a committed item of its place (not JSON, a
 *   broken batch, an archive part that does not hold what its index says).
 * - `seq-order`: a line whose seq does not follow the one before it.
 * - `seq-gap`: seqs below the newest that are in neither the active log nor the archive.
 * - `compaction-unfinished`: a summary whose covered items are still in the active log (a compaction
 *   cut short between its summary and its archive; the thread finishes it at its next write).
 * - `orphan-tool-call` / `orphan-tool-result`: a call without a result (older than the newest turn),
 *   a result that answers no call.
 * - `missing-content`: content cited by an item that neither the thread nor any other thread holds.
 */
export type AuditCode =
  | 'torn-tail'
  | 'corrupt-line'
  | 'seq-gap'
  | 'seq-order'
  | 'archive-pending'
  | 'compaction-unfinished'
  | 'orphan-tool-call'
  | 'orphan-tool-result'
  | 'missing-content'

/** Every {@link AuditCode}, in the order above. */
export const AUDIT_CODES: readonly AuditCode[] = [
  'torn-tail',
  'corrupt-line',
  'seq-gap',
  'seq-order',
  'archive-pending',
  'compaction-unfinished',
  'orphan-tool-call',
  'orphan-tool-result',
  'missing-content',
]

/** One problem an audit found, and where. */
export interface AuditEntry {
  code: AuditCode
  threadId: string
  /** What is wrong, in a sentence naming the file or key and the seqs. */
  message: string
  /** True when `audit(threadId, { repair: true })` of this store repairs it. */
  repairable: boolean
  /** The file (inside the thread's folder) or key the problem is in. */
  file?: string
  /** The 1-based line of `file` (a list index for a Redis log). */
  line?: number
  seq?: number
}

/** Where an item was read from. */
export type AuditSource = 'active' | 'archive'

/** Options of {@link StoreAuditMethods.audit}. */
export interface AuditOptions {
  /**
   * Repair what the store repairs by itself when it next writes the thread (a torn tail moved aside,
   * an interrupted archive finished), holding the thread's lock, then audit again. Without it the
   * audit is read-only: it changes nothing, not even what a read of the store would repair.
   */
  repair?: boolean
  /**
   * `'format'`: only what reading the store's format finds (`torn-tail`, `corrupt-line`, `seq-order`),
   * without the checks across items (seq gaps, items in both places, unfinished compactions, tool calls
   * and results, cited content): a walk of the items (`onItem`, `onItemJson`) that costs what a read
   * costs, for a reader such as an export that needs no more. `report.items` is counted either way.
   * @default 'all'
   */
  checks?: 'all' | 'format'
  /** Progress of the read, in units of the store's choosing (bytes, items). */
  onProgress?: (done: number, total: number) => void
  /**
   * Each committed item as read, in no particular order (an item in both the active log and the
   * archive comes twice, once from each): a read-only walk of the thread, e.g. for an export. `json()`
   * is the item's JSON, the text `JSON.stringify(item)` gives; a store that keeps items as JSON may
   * cut it from its own text rather than serialise the item again.
   */
  onItem?: (item: Item, source: AuditSource, json: () => string) => void
  /**
   * Each committed item's JSON as read, with its seq, as `onItem` hands items over (in no particular
   * order, an item in both places twice): the text `JSON.stringify(item)` gives, without the item. For
   * a reader that only copies items (an export): a store that keeps items as JSON cuts it from its own
   * text and builds no item.
   */
  onItemJson?: (seq: number, source: AuditSource, json: string) => void
}

/** What {@link StoreAuditMethods.audit} found. */
export interface AuditReport {
  threadId: string
  /** Items read, active and archived (an item in both counted once). */
  items: number
  /** The problems found (after the repair, when one was asked for), in the order found. */
  entries: AuditEntry[]
  /** With `repair`: the problems the repair mended (as the first audit found them); else empty. */
  repaired: AuditEntry[]
}

/**
 * The audit: an optional capability of a `v2` store, declared with `flags.audit`. It reads a thread
 * as stored, with the store's own reading code, and reports what is wrong with typed entries; `strata
 * verify` calls it, so a tool needs no knowledge of a store's layout.
 */
export interface StoreAuditMethods {
  /**
   * Audits one thread. An unknown thread is a clean report with 0 items. Read-only unless `repair`.
   */
  audit(threadId: string, options?: AuditOptions): Promise<AuditReport>
}
