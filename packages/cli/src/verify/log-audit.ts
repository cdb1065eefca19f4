import { seqRanges } from '../output/render-item'
import type { ProblemKind, VerifyProblem } from './verify-problem'
import { REPAIRABLE } from './verify-problem'

/** Where an item was read: the active log or the archive. */
export type LogSource = 'active' | 'archive'

interface ToolCallSeen {
  seq: number
  toolName: string
  source: LogSource
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

/**
 * The checks of `strata verify`, fed one item (or bad line) at a time from the active log and the
 * archive, in any order: seq gaps across both, tool calls without results and results without calls,
 * and the content ids citations name. It keeps one byte per seq and the open tool calls, no items.
 */
export class LogAudit {
  readonly threadId: string
  readonly problems: VerifyProblem[] = []
  /** Memory ids cited by the log, with the seq of the first citation. */
  readonly citedContent = new Map<string, number>()
  /** Items read, active and archived (a seq in both counted once). */
  items = 0
  #seen = new Uint8Array(1024)
  #maxSeq = 0
  readonly #calls = new Map<string, ToolCallSeen>()
  readonly #results = new Map<string, number>()
  /** Seqs read from both the active log and the archive, with where the second copy was read. */
  readonly #inBoth: { seq: number; file: string; line: number }[] = []
  /** Active summaries that name the seqs they replace (`covers`), by the summary's seq. */
  readonly #covers: { seq: number; runs: { fromSeq: number; toSeq: number }[] }[] = []
  /** The newest seq of a user or assistant message: a call in it may still be waiting for its result. */
  #newestTurnSeq = 0

  constructor(threadId: string) {
    this.threadId = threadId
  }

  /** Records a problem found while reading. */
  report(
    kind: ProblemKind,
    message: string,
    where: { file?: string; line?: number; seq?: number } = {},
  ): void {
    this.problems.push({
      kind,
      threadId: this.threadId,
      message,
      repair: REPAIRS[kind],
      repairable: REPAIRABLE.has(kind),
      ...where,
    })
  }

  /**
   * One item as read from the log or the archive: a file store line (the item's fields as the store's
   * line format writes them, or the item under `item`) or a Redis element.
   */
  add(
    source: LogSource,
    seq: number,
    record: Record<string, unknown>,
    where: { file: string; line: number },
  ): void {
    const wrapped = record.item
    const item =
      typeof wrapped === 'object' && wrapped !== null && !Array.isArray(wrapped)
        ? (wrapped as Record<string, unknown>)
        : record
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
    if (item.type === 'summary' && source === 'active' && Array.isArray(item.covers))
      this.#covers.push({ seq, runs: item.covers as { fromSeq: number; toSeq: number }[] })
    if (item.type !== 'message') return
    if (item.role === 'user' || item.role === 'assistant')
      this.#newestTurnSeq = Math.max(this.#newestTurnSeq, seq)
    if (!Array.isArray(item.content)) return
    for (const part of item.content as Record<string, unknown>[]) {
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

  /** Ends the reading: items in both files (one problem: one interrupted archive), seq gaps and unpaired tool calls. */
  finish(): VerifyProblem[] {
    if (this.#inBoth.length > 0) {
      const inBoth = this.#inBoth.sort((left, right) => left.seq - right.seq)
      const ranges = seqRanges(inBoth.map((entry) => entry.seq))
        .map(({ fromSeq, toSeq }) => (fromSeq === toSeq ? `${fromSeq}` : `${fromSeq}–${toSeq}`))
        .join(', ')
      const first = inBoth[0]!
      this.report(
        'archive-pending',
        inBoth.length === 1
          ? `seq ${first.seq} is in both the active log and the archive.`
          : `${inBoth.length} items (seqs ${ranges}) are in both the active log and the archive.`,
        { file: first.file, line: first.line, seq: first.seq },
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
      const ranges = seqRanges(left)
        .map(({ fromSeq, toSeq }) => (fromSeq === toSeq ? `${fromSeq}` : `${fromSeq}–${toSeq}`))
        .join(', ')
      this.report(
        'compaction-unfinished',
        `the summary at seq ${seq} covers ${left.length} items still in the active log (seqs ${ranges}).`,
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
        {
          seq: call.seq,
        },
      )
    }
    for (const [toolCallId, seq] of this.#results) {
      if (this.#calls.has(toolCallId)) continue
      this.report('orphan-tool-result', `tool result ${toolCallId} at seq ${seq} answers no call.`, { seq })
    }
    return this.problems
  }

  /** Reports the cited ids `exists` does not find. */
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
}
