import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import { readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { assertThreadId, StrataError } from '@strata-memory/core'
import {
  type AuditOptions,
  type AuditPlace,
  type AuditReport,
  auditWithRepair,
  checkAuditOptions,
  ThreadAuditor,
} from '@strata-memory/core/store-kit'
import { contentFileName } from './content-files'
import { archiveSize, auditArchive, type Sink } from './file-audit-archive'
import type { FileContext } from './file-context'
import { isMissing, storeFailed } from './file-errors'
import { itemFromRecord, itemJsonFromLine, parseLogRecord, recordAsItem } from './line-format'
import { parseChunk } from './parse-chunk'
import { ACTIVE_FILE, CONTENT_FOLDER } from './thread-files'

/** What the file store's repair mends, holding the thread's lock: the same as a write does first. */
const REPAIRABLE = ['torn-tail', 'archive-pending'] as const

const NEWLINE = 0x0a

/** The byte offset in `bytes` where line `count + 1` starts (after `count` newlines). */
function offsetAfterLines(bytes: Buffer, count: number): number {
  let offset = 0
  for (let line = 0; line < count; line++) offset = bytes.indexOf(NEWLINE, offset) + 1
  return offset
}

/** `2 lines of a batch (seq 7–9)`: the whole lines of a batch cut short, as their first line names it. */
function batchText(whole: Buffer): string {
  const count = whole.filter((byte) => byte === NEWLINE).length
  const first = parseLogRecord(JSON.parse(whole.toString('utf8', 0, whole.indexOf(NEWLINE))))
  const range = typeof first === 'string' ? '' : ` (seq ${first.seq}–${first.batchEnd})`
  return `${count} line${count === 1 ? '' : 's'} of a batch${range}`
}

/**
 * A log's bytes as an audit reads them, a window at a time: a buffer (`slice` is `subarray`), or a file
 * read into one reused buffer ({@link FileBytes}), so an audit holds a window of the log, never all of it.
 * A window is valid until the next `slice`.
 */
export interface LogBytes {
  readonly length: number
  slice(start: number, end: number): Buffer
}

/** A log file's bytes up to `length` (its size when the audit began), read on demand. */
class FileBytes implements LogBytes {
  #buffer = Buffer.alloc(0)

  constructor(
    private readonly descriptor: number,
    readonly length: number,
  ) {}

  slice(start: number, end: number): Buffer {
    const size = end - start
    if (this.#buffer.length < size) this.#buffer = Buffer.allocUnsafe(size)
    let filled = 0
    while (filled < size) {
      const read = readSync(this.descriptor, this.#buffer, filled, size - filled, start + filled)
      if (read === 0) break
      filled += read
    }
    return this.#buffer.subarray(0, filled)
  }
}

/**
 * Bytes of a log parsed at once: whole lines, so the lines of one window die young. Each window is
 * decoded whole: Node makes a text of ASCII longer than about a megabyte an external string, outside
 * the heap the garbage collector scans (a 100k-item audit allocated 18 MB less heap than with the
 * read's 256 KiB segments).
 */
const WINDOW_BYTES = 2 << 20

/**
 * Reads a log file's bytes with the store's own line rules (`parseChunk`: committed lines, batches,
 * a pending tail) a window of whole lines at a time, each committed line handed to `sink` as it commits,
 * and, where the store would stop at a corrupt line (`STRATA_CORRUPT_LOG`), reports it and reads on
 * after it, so one audit finds every problem. Read-only.
 */
export function auditLog(
  bytes: LogBytes,
  name: string,
  auditor: ThreadAuditor,
  sink: Sink,
  windowBytes = WINDOW_BYTES,
): void {
  let position = 0
  let firstLine = 1
  let previousSeq = 0
  /** How far the windows reach: always further than the last one (a batch longer than a window grows it). */
  let reach = 0
  // The lines of the window handed over so far, and the last one's seq: a corrupt line stops the
  // parse after them. One function for every window, so the parse calls one target.
  let committed = 0
  let lastSeq = 0
  let windowStart = 1
  const onLine = (record: Record<string, unknown>, text: string, seq: number) => {
    sink('active', record, text, name, windowStart + committed)
    committed++
    lastSeq = seq
  }
  const length = bytes.length
  while (position < length) {
    reach = Math.max(reach, position) + windowBytes
    let end = length
    let window: Buffer
    if (reach < length) {
      window = bytes.slice(position, reach)
      const newline = window.lastIndexOf(NEWLINE)
      if (newline !== -1) end = position + newline + 1
      else {
        // A line longer than the window: read on to its newline.
        let to = reach
        let found = -1
        while (found === -1 && to < length) {
          to = Math.min(length, to + windowBytes)
          window = bytes.slice(position, to)
          found = window.indexOf(NEWLINE)
        }
        end = found === -1 ? length : position + found + 1
      }
    } else {
      window = bytes.slice(position, length)
    }
    const final = end === length
    const chunk = window.subarray(0, end - position)
    committed = 0
    lastSeq = previousSeq
    windowStart = firstLine
    try {
      const parsed = parseChunk(chunk, {
        path: name,
        firstLine,
        previousSeq,
        keepItems: false,
        onLine,
        segmentBytes: WINDOW_BYTES,
      })
      const reason = parsed.pendingReason
      const nextLine = firstLine + committed
      if (reason === undefined || !final) {
        // Not the file's end: a batch that goes on past the window is read again with the next one;
        // an unparseable last line of the window is a corrupt line in the middle of the file.
        const corrupt = reason === 'unparseable-last-line'
        if (corrupt) {
          auditor.report('corrupt-line', `${name} line ${nextLine} is not valid JSON.`, {
            file: name,
            line: nextLine,
          })
        }
        position += corrupt || reason === undefined ? chunk.length : parsed.committedBytes
        firstLine = nextLine + (corrupt ? 1 : 0)
        previousSeq = lastSeq
        continue
      }
      const pending = chunk.subarray(parsed.committedBytes)
      const whole = pending.subarray(0, pending.lastIndexOf(NEWLINE) + 1)
      const message =
        reason === 'torn-line'
          ? `${name} ends with ${pending.subarray(whole.length).toString('utf8').length} characters without a final newline.`
          : reason === 'unparseable-last-line'
            ? `${name} line ${nextLine} (the last) does not parse.`
            : `${name} ends with ${batchText(whole)} without its last line.`
      auditor.report('torn-tail', message, { file: name, line: nextLine })
      return
    } catch (error) {
      if (!StrataError.isInstance(error, 'STRATA_CORRUPT_LOG')) throw error
      const { line, problem } = error.details as { line: number; problem: string }
      const badStart = offsetAfterLines(chunk, line - firstLine)
      // The lines of a batch the bad line broke were whole lines: each is read on its own.
      let lineNumber = firstLine + committed
      for (let start = offsetAfterLines(chunk, committed); start < badStart; lineNumber++) {
        const lineEnd = chunk.indexOf(NEWLINE, start)
        const text = chunk.toString('utf8', start, lineEnd)
        const value = JSON.parse(text) as Record<string, unknown>
        const record = parseLogRecord(value)
        if (typeof record !== 'string') {
          sink('active', value, text, name, lineNumber)
          lastSeq = record.seq
        }
        start = lineEnd + 1
      }
      const order = problem.startsWith('has seq') && problem.includes('does not follow')
      auditor.report(order ? 'seq-order' : 'corrupt-line', `${name} line ${line} ${problem}.`, {
        file: name,
        line,
      })
      const badEnd = chunk.indexOf(NEWLINE, badStart)
      position += badEnd + 1
      firstLine = line + 1
      previousSeq = lastSeq
    }
  }
}

/**
 * Audits a log file a window at a time (`auditLog`); none there is an empty log. Returns its size,
 * for progress.
 */
export function auditLogFile(
  path: string,
  name: string,
  auditor: ThreadAuditor,
  sink: Sink,
  windowBytes = WINDOW_BYTES,
): number {
  let descriptor: number
  try {
    descriptor = openSync(path, 'r')
  } catch (error) {
    if (isMissing(error)) return 0
    throw storeFailed('read', path, error)
  }
  try {
    let length: number
    try {
      length = fstatSync(descriptor).size
    } catch (error) {
      throw storeFailed('read', path, error)
    }
    auditLog(new FileBytes(descriptor, length), name, auditor, sink, windowBytes)
    return length
  } finally {
    closeSync(descriptor)
  }
}

/**
 * The file store's audit (`flags.audit`): reads a thread's active log and archive read-only, with the
 * store's own reading code, and feeds a {@link ThreadAuditor}; `repair` mends what the store mends
 * when it next writes the thread (its `repair`, holding the thread's lock), then audits again.
 */
export function fileAudit({
  agentsDirectory,
  threadFiles,
  locked,
  repair: mend,
}: FileContext): (threadId: string, options?: AuditOptions) => Promise<AuditReport> {
  return async (threadId, options) => {
    assertThreadId(threadId)
    const { repair, checks, onItem, onItemJson, onProgress } = checkAuditOptions(options)
    const thread = threadFiles(threadId)
    const once = async (): Promise<AuditReport> => {
      const auditor = new ThreadAuditor(threadId, REPAIRABLE, { checks })
      // The auditor reads a record as it is (no item built): what it reads is the item's own.
      // One place object for every line: the auditor copies what it keeps of it.
      const where: AuditPlace = {}
      const sink: Sink = (source, record, text, file, line) => {
        const item = recordAsItem(record)
        where.file = file
        where.line = line
        auditor.add(source, item, where)
        if (onItemJson !== undefined) {
          const json = itemJsonFromLine(text, record) ?? JSON.stringify(itemFromRecord(record))
          onItemJson(item.seq, source, json)
        }
        if (onItem !== undefined) {
          const built = itemFromRecord(record)
          onItem(built, source, () => itemJsonFromLine(text, record) ?? JSON.stringify(built))
        }
      }
      const archiveBytes = await archiveSize(thread.directory)
      const active = auditLogFile(thread.active.path, ACTIVE_FILE, auditor, sink)
      const total = active + archiveBytes
      onProgress?.(active, total)
      await auditArchive(thread.directory, auditor, sink, (bytes) =>
        onProgress?.(active + Math.min(bytes, archiveBytes), total),
      )
      auditor.finish()
      await auditor.checkContent((ids) => contentFound(agentsDirectory, threadId, ids))
      return auditor.result()
    }
    return auditWithRepair(once, repair, () => locked(thread, () => mend(thread)))
  }
}

/**
 * Which cited content ids have a record: in the thread's folder (listed once: a `stat` per cited id
 * took 2.6 s of a 1M-item thread's audit), else (a sub-agent sharing its parent's content, a rare
 * case) in another thread's.
 */
async function contentFound(agentsDirectory: string, threadId: string, ids: string[]): Promise<boolean[]> {
  const exists = (folder: string, id: string) =>
    stat(join(agentsDirectory, folder, CONTENT_FOLDER, contentFileName(id))).then(
      () => true,
      () => false,
    )
  const own = new Set(
    await readdir(join(agentsDirectory, threadId, CONTENT_FOLDER)).catch(() => [] as string[]),
  )
  let others: string[] | undefined
  const found: boolean[] = []
  for (const id of ids) {
    if (own.has(contentFileName(id))) {
      found.push(true)
      continue
    }
    others ??= (await readdir(agentsDirectory).catch(() => [] as string[])).filter(
      (name) => name !== threadId && !name.startsWith('.'),
    )
    let elsewhere = false
    for (const other of others) if (!elsewhere && (await exists(other, id))) elsewhere = true
    found.push(elsewhere)
  }
  return found
}
