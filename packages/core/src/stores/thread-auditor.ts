import { invalidOptions, shownValue } from '../errors'
import type { Item } from '../items'
import { seqRuns } from '../items/seq-search'
import { isPlainObject } from './store-arguments'
import type { AuditCode, AuditEntry, AuditOptions, AuditReport, AuditSource } from './store-audit'

/** Validates the options of `audit` (`STRATA_INVALID_OPTIONS`); returns them with defaults. */
export function checkAuditOptions(
  options: unknown,
): AuditOptions & { repair: boolean; checks: NonNullable<AuditOptions['checks']> } {
  if (options === undefined) return { repair: false, checks: 'all' }
  if (!isPlainObject(options)) {
    return invalidOptions('audit: options must be an object like { repair: true }.', {})
  }
  const { repair = false, checks = 'all', onProgress, onItem, onItemJson } = options as AuditOptions
  if (typeof repair !== 'boolean') {
    invalidOptions(`audit: repair must be true or false, got ${shownValue(repair)}.`, { repair })
  }
  if (checks !== 'all' && checks !== 'format') {
    invalidOptions(`audit: checks must be 'all' or 'format', got ${shownValue(checks)}.`, {
      checks: String(checks),
    })
  }
  for (const [name, value] of [
    ['onProgress', onProgress],
    ['onItem', onItem],
    ['onItemJson', onItemJson],
  ] as const) {
    if (value !== undefined && typeof value !== 'function') {
      invalidOptions(`audit: ${name} must be a function when given.`, { [name]: String(value) })
    }
  }
  return { ...(options as AuditOptions), repair, checks }
}

/** Where in a store an entry was read: a file (or key) and its 1-based line (or list index). */
export interface AuditPlace {
  file?: string
  line?: number
  seq?: number
}

interface ToolCallSeen {
  seq: number
  toolName: string
  source: AuditSource
}

/** `3, 5–7` for seqs 3, 5, 6, 7 (sorted, distinct). */
const rangesText = (seqs: readonly number[]): string =>
  seqRuns(seqs)
    .map(({ fromSeq, toSeq }) => (fromSeq === toSeq ? `${fromSeq}` : `${fromSeq}–${toSeq}`))
    .join(', ')

/**
 * The checks every store's audit shares, fed by the store's own reading code one item (or problem) at a
 * time from the active log and the archive, in any order: items in both (an interrupted archive), seq
 * gaps across both, summaries whose covered items are still active, tool calls without results and
 * results without calls, and the content ids citations name. It keeps one byte per seq and the open
 * tool calls, no items. A store reports what its format finds (`torn-tail`, `corrupt-line`,
 * `seq-order`) with {@link report}; `repairable` names the codes its repair mends. With `checks:
 * 'format'` (the audit's option) it only counts the items: the store's reports are all there is.
 */
export class ThreadAuditor {
  readonly threadId: string
  readonly entries: AuditEntry[] = []
  /** Memory ids cited by the log, with the seq of the first citation. */
  readonly citedContent = new Map<string, number>()
  /** Items read, active and archived (a seq in both counted once). */
  items = 0
  readonly #repairable: ReadonlySet<AuditCode>
  #seen = new Uint8Array(1024)
  #maxSeq = 0
  readonly #calls = new Map<string, ToolCallSeen>()
  readonly #results = new Map<string, number>()
  /** Seqs read from both the active log and the archive, with where the second copy was read. */
  readonly #inBoth: { seq: number; file: string | undefined; line: number | undefined }[] = []
  /** Active summaries that name the seqs they replace (`covers`), by the summary's seq. */
  readonly #covers: { seq: number; runs: { fromSeq: number; toSeq: number }[] }[] = []
  /** The newest seq of a user or assistant message: a call in it may still be waiting for its result. */
  #newestTurnSeq = 0

  /** Whether only the store's own reports are wanted (`checks: 'format'`): then items are only counted. */
  readonly #formatOnly: boolean

  constructor(
    threadId: string,
    repairable: Iterable<AuditCode> = [],
    { checks = 'all' }: Pick<AuditOptions, 'checks'> = {},
  ) {
    this.threadId = threadId
    this.#repairable = new Set(repairable)
    this.#formatOnly = checks === 'format'
  }

  /** Records a problem found while reading. */
  report(code: AuditCode, message: string, where: AuditPlace = {}): void {
    this.entries.push({
      code,
      threadId: this.threadId,
      message,
      repairable: this.#repairable.has(code),
      ...where,
    })
  }

  /**
   * One committed item as read from the active log or the archive; `where` is read at once, not kept
   * (a store may hand the same object over each time).
   */
  add(source: AuditSource, item: Item, where: AuditPlace = {}): void {
    const { seq } = item
    if (seq >= this.#seen.length) {
      const grown = new Uint8Array(Math.max(seq + 1, this.#seen.length * 2))
      grown.set(this.#seen)
      this.#seen = grown
    }
    const mark = source === 'active' ? 1 : 2
    const before = this.#seen[seq] ?? 0
    if ((before & mark) !== 0) return
    this.#seen[seq] = before | mark
    if (before !== 0) {
      if (before !== mark) this.#inBoth.push({ seq, file: where.file, line: where.line })
      return
    }
    this.items++
    if (seq > this.#maxSeq) this.#maxSeq = seq
    if (this.#formatOnly) return
    if (item.type === 'summary' && source === 'active' && Array.isArray(item.covers))
      this.#covers.push({ seq, runs: item.covers })
    if (item.type !== 'message') return
    if (item.role === 'user' || item.role === 'assistant')
      this.#newestTurnSeq = Math.max(this.#newestTurnSeq, seq)
    if (!Array.isArray(item.content)) return
    for (const part of item.content as unknown as Record<string, unknown>[]) {
      if (typeof part !== 'object' || part === null) continue
      if (part.type === 'tool-call' && typeof part.toolCallId === 'string') {
        // An id in both (an edited call superseding the archived one) is the active log's call.
        if (this.#calls.get(part.toolCallId)?.source !== 'active')
          this.#calls.set(part.toolCallId, { seq, toolName: String(part.toolName), source })
      } else if (part.type === 'tool-result' && typeof part.toolCallId === 'string') {
        this.#results.set(part.toolCallId, seq)
      }
      const reference = (part.meta as Record<string, unknown> | undefined)?.strataContent as
        | Record<string, unknown>
        | undefined
      if (typeof reference?.id === 'string' && !this.citedContent.has(reference.id)) {
        this.citedContent.set(reference.id, seq)
      }
    }
  }

  /** Ends the reading: items in both (one entry: one interrupted archive), seq gaps, unfinished compactions and unpaired tool calls. */
  finish(): AuditEntry[] {
    if (this.#formatOnly) return this.entries
    if (this.#inBoth.length > 0) {
      const inBoth = this.#inBoth.sort((left, right) => left.seq - right.seq)
      const first = inBoth[0]!
      this.report(
        'archive-pending',
        inBoth.length === 1
          ? `seq ${first.seq} is in both the active log and the archive.`
          : `${inBoth.length} items (seqs ${rangesText(inBoth.map((entry) => entry.seq))}) are in both the active log and the archive.`,
        {
          ...(first.file !== undefined ? { file: first.file } : {}),
          ...(first.line !== undefined ? { line: first.line } : {}),
          seq: first.seq,
        },
      )
    }
    let gapStart = 0
    for (let seq = 1; seq <= this.#maxSeq + 1; seq++) {
      const present = seq > this.#maxSeq || (this.#seen[seq] ?? 0) !== 0
      if (!present && gapStart === 0) gapStart = seq
      if (present && gapStart !== 0) {
        const range = gapStart === seq - 1 ? `seq ${gapStart} is` : `seqs ${gapStart}–${seq - 1} are`
        this.report('seq-gap', `${range} in neither the active log nor the archive.`, { seq: gapStart })
        gapStart = 0
      }
    }
    for (const { seq, runs } of this.#covers) {
      const left: number[] = []
      for (const { fromSeq, toSeq } of runs)
        for (let covered = fromSeq; covered <= toSeq && covered < this.#seen.length; covered++)
          if (this.#seen[covered] === 1) left.push(covered)
      if (left.length === 0) continue
      this.report(
        'compaction-unfinished',
        `the summary at seq ${seq} covers ${left.length} items still in the active log (seqs ${rangesText(left)}).`,
        { seq },
      )
    }
    for (const [toolCallId, call] of this.#calls) {
      // An archived call without a result was archived unanswered: a rewind (a regenerated answer, a
      // call a human edited or rejected) set it aside; compaction archives a call with its result.
      if (this.#results.has(toolCallId) || call.seq >= this.#newestTurnSeq || call.source === 'archive')
        continue
      this.report(
        'orphan-tool-call',
        `tool call ${toolCallId} (${call.toolName}) at seq ${call.seq} has no result.`,
        { seq: call.seq },
      )
    }
    for (const [toolCallId, seq] of this.#results) {
      if (this.#calls.has(toolCallId)) continue
      this.report('orphan-tool-result', `tool result ${toolCallId} at seq ${seq} answers no call.`, { seq })
    }
    return this.entries
  }

  /** Reports the cited ids `exists` does not find (the store looks in the thread, then in the others). */
  async checkContent(exists: (ids: string[]) => Promise<boolean[]>): Promise<void> {
    const ids = [...this.citedContent.keys()]
    if (ids.length === 0) return
    const found = await exists(ids)
    ids.forEach((id, index) => {
      if (found[index]) return
      const seq = this.citedContent.get(id)
      this.report('missing-content', `content ${id}, cited at seq ${seq}, is not in the content store.`, {
        ...(seq !== undefined ? { seq } : {}),
      })
    })
  }

  /** The report of a read-only audit. */
  result(): AuditReport {
    return { threadId: this.threadId, items: this.items, entries: this.entries, repaired: [] }
  }
}

/**
 * An audit with `repair`: audits, and when something repairable was found, repairs (`mend`, holding
 * the store's lock) and audits again. The report's `repaired` lists what the first audit found that
 * the repair mends.
 */
export async function auditWithRepair(
  audit: () => Promise<AuditReport>,
  repair: boolean,
  mend: () => Promise<void>,
): Promise<AuditReport> {
  const first = await audit()
  if (!repair) return first
  const repaired = first.entries.filter((entry) => entry.repairable)
  if (repaired.length === 0) return first
  await mend()
  return { ...(await audit()), repaired }
}
