import { readSync, type Stats, statSync } from 'node:fs'
import { type FileHandle, open } from 'node:fs/promises'
import type { Item } from '@strata-memory/core'
import { ChunkLines } from './chunk-lines'
import { readRange } from './durable-fs'
import { corruptLog, isMissing, storeFailed } from './file-errors'
import { type FileVersion, sameFile, versionOf } from './file-version'
import { itemFromRecord, parseLogRecord } from './line-format'

/** Why the end of a log file is not (yet) part of the log. */
export type PendingReason = 'torn-line' | 'unparseable-last-line' | 'incomplete-batch'

/** Bytes at the end of a log file that are not committed lines: a write in progress, or a torn one. */
export interface PendingTail {
  /** Byte offset where the pending bytes start (the end of the last committed line). */
  offset: number
  /** How many bytes follow `offset`. */
  length: number
  reason: PendingReason
}

const NEWLINE = 0x0a

/** How many bytes before the committed end are compared to tell an appended file from a replaced one. */
const TAIL_CHECK_BYTES = 64

/**
 * The cached, validated content of one JSONL log file (`raw_traces.jsonl` or its archive): its lines
 * and their seqs, oldest first, and any pending tail. {@link refresh} brings it up to date with the
 * disk cheaply: nothing is read when the size and mtime are unchanged, and only the new bytes when the
 * file grew by appends (another process's writes included).
 *
 * A line is committed when it ends with a newline, parses, and — for a multi-item append — every line
 * of its batch is there. The one exception a crash can cause is at the end of the file (a torn tail);
 * anywhere else an unreadable line is `STRATA_CORRUPT_LOG`, and the cache is left as it was.
 */
export class LogFile {
  /** Committed lines, oldest first, exactly as on disk (see {@link lines}). */
  #lines: string[] = []
  /**
   * Where the lines of this process's appends since the lines were last asked for are: bytes
   * `start` to `end` of the file `handle` is open on. They stay on disk (in the page cache) until a
   * read needs them, so a process that only appends holds none of its lines in memory: holding them
   * cost 100-item appends a quarter of their CPU. The handle is the one `AppendHandles` keeps, which
   * calls {@link settle} before it closes it.
   */
  #unread: { handle: FileHandle; start: number; end: number } | undefined
  /** The seq of each committed line; strictly increasing. */
  seqs: number[] = []
  pending: PendingTail | undefined
  /** Changes whenever the committed content changes, so derived views can be cached. */
  revision = 0
  /**
   * The item of each line the last whole load read, until a read takes it (`takeItem`): a cold read
   * then parses each line once, not once to check it and again to build the item, and the parsed line
   * is dropped at once (only the item lives on). Dropped when the lines change otherwise, so a process
   * that only appends does not keep them.
   */
  private items: (Item | undefined)[] = []
  private version: FileVersion | undefined
  private committedBytes = 0
  private tailCheck: Buffer = Buffer.alloc(0)

  constructor(readonly path: string) {}

  /** Committed lines, oldest first, exactly as on disk. */
  get lines(): string[] {
    if (this.#unread !== undefined) this.settle()
    return this.#lines
  }

  /**
   * The lines as they are now, made only when the function is called. A view taken before the lines
   * were replaced keeps the old ones (as when the view held the array itself), with the lines appended
   * before the replacement, as when appends pushed onto that array.
   */
  linesLater(): () => readonly string[] {
    const lines = this.#lines
    return () => (lines === this.#lines ? this.lines : lines)
  }

  /** Reads the lines of this process's appends that are still on disk only (see `#unread`). */
  settle(): void {
    const unread = this.#unread
    if (unread === undefined) return
    this.#unread = undefined
    const bytes = Buffer.allocUnsafe(unread.end - unread.start)
    try {
      for (let filled = 0; filled < bytes.length; ) {
        const read = readSync(unread.handle.fd, bytes, filled, bytes.length - filled, unread.start + filled)
        if (read === 0) throw new Error(`the file ends before byte ${unread.end}`)
        filled += read
      }
    } catch (error) {
      // The lines are lost to this cache: the next refresh reads the file again.
      this.reset()
      throw storeFailed('read', this.path, error)
    }
    const texts = new ChunkLines(bytes)
    for (let start = 0; start < bytes.length; ) {
      const newline = bytes.indexOf(NEWLINE, start)
      this.#lines.push(texts.line(start, newline))
      start = newline + 1
    }
  }

  /** Replaces the lines; those still on disk go into the old array first (see linesLater). */
  #replaceLines(lines: string[]): void {
    if (this.#unread !== undefined) this.settle()
    this.#lines = lines
  }

  /** The newest committed seq, 0 when empty. */
  get lastSeq(): number {
    return this.seqs.at(-1) ?? 0
  }

  /** The file's size as last seen: the committed bytes plus any pending ones. */
  get size(): number {
    return this.version?.size ?? 0
  }

  /** Which file it is (device, inode) and its size and mtime as last seen; undefined when missing. */
  get identity(): FileVersion | undefined {
    return this.version
  }

  /** True when the file did not exist when last refreshed. */
  get missing(): boolean {
    return this.version === undefined
  }

  /** Brings the cache up to date with the file on disk; throws `STRATA_CORRUPT_LOG` for a bad line. */
  async refresh(): Promise<void> {
    let current: FileVersion
    try {
      // Synchronous: a stat takes microseconds, less than a round trip through the thread pool, and
      // it runs on every call.
      current = versionOf(statSync(this.path))
    } catch (error) {
      if (!isMissing(error)) throw storeFailed('read', this.path, error)
      if (this.version !== undefined || this.seqs.length > 0) this.reset()
      return
    }
    const cached = this.version
    // A pending tail may be a write that has finished since: always look again.
    if (
      cached !== undefined &&
      this.pending === undefined &&
      sameFile(cached, current) &&
      cached.size === current.size &&
      cached.mtimeMs === current.mtimeMs
    ) {
      return
    }
    let handle: FileHandle | undefined
    try {
      handle = await open(this.path, 'r')
      await this.load(handle)
    } catch (error) {
      if (isMissing(error)) {
        this.reset()
        return
      }
      throw storeFailed('read', this.path, error)
    } finally {
      await handle?.close()
    }
  }

  private async load(handle: FileHandle): Promise<void> {
    const stats = versionOf(await handle.stat())
    const start = this.committedBytes - this.tailCheck.length
    if (sameFile(this.version, stats) && stats.size >= this.committedBytes && this.committedBytes > 0) {
      const bytes = await readRange(handle, start, stats.size - start)
      if (bytes.subarray(0, this.tailCheck.length).equals(this.tailCheck)) {
        this.absorb(bytes.subarray(this.tailCheck.length), stats, false)
        return
      }
    }
    const bytes = await readRange(handle, 0, stats.size)
    this.absorb(bytes, stats, true)
  }

  /** Parses `bytes` (the whole file, or what follows the committed part) into the cache. */
  private absorb(bytes: Buffer, stats: FileVersion, whole: boolean): void {
    const base = whole ? 0 : this.committedBytes
    const parsed = parseChunk(bytes, {
      path: this.path,
      firstLine: whole ? 1 : this.seqs.length + 1,
      previousSeq: whole ? 0 : this.lastSeq,
      keepItems: whole,
    })
    // Parsing succeeded: only now does the cache change.
    if (whole) {
      this.#replaceLines(parsed.lines)
      this.seqs = parsed.seqs
      this.items = parsed.items
    } else {
      this.items = []
      for (let index = 0; index < parsed.lines.length; index += 1) {
        this.lines.push(parsed.lines[index]!)
        this.seqs.push(parsed.seqs[index]!)
      }
    }
    if (whole || parsed.lines.length > 0) this.revision += 1
    this.committedBytes = base + parsed.committedBytes
    const committedInChunk = parsed.committedBytes
    if (committedInChunk >= TAIL_CHECK_BYTES || whole) {
      this.tailCheck = Buffer.from(
        bytes.subarray(Math.max(0, committedInChunk - TAIL_CHECK_BYTES), committedInChunk),
      )
    } else {
      this.tailCheck = Buffer.concat([this.tailCheck, bytes.subarray(0, committedInChunk)]).subarray(
        -TAIL_CHECK_BYTES,
      )
    }
    this.pending =
      parsed.pendingReason === undefined
        ? undefined
        : {
            offset: this.committedBytes,
            length: stats.size - this.committedBytes,
            reason: parsed.pendingReason,
          }
    this.version = stats
  }

  /** The item of line `index`, once: later calls (and lines appended since a load) get undefined. */
  takeItem(index: number): Item | undefined {
    const item = this.items[index]
    if (item !== undefined) this.items[index] = undefined
    return item
  }

  /**
   * Records lines this process appended (holding the lock) through `handle`, so the next refresh
   * reads nothing: their seqs, and where their bytes (`written`, from byte `start`) are, read when
   * the lines are needed.
   */
  appended(
    seqs: readonly number[],
    written: Buffer,
    stats: Stats,
    { handle, start }: { handle: FileHandle; start: number },
  ): void {
    this.items = []
    for (let index = 0; index < seqs.length; index += 1) this.seqs.push(seqs[index]!)
    const unread = this.#unread
    if (unread !== undefined && unread.handle === handle && unread.end === start) {
      unread.end += written.length
    } else {
      this.settle()
      this.#unread = { handle, start, end: start + written.length }
    }
    this.revision += 1
    this.committedBytes += written.length
    this.tailCheck = Buffer.concat([this.tailCheck, written.subarray(-TAIL_CHECK_BYTES)]).subarray(
      -TAIL_CHECK_BYTES,
    )
    this.version = versionOf(stats)
  }

  /** Records that the file was replaced with `chunks` (holding the lock). */
  replaced(lines: string[], seqs: number[], chunks: readonly Buffer[], stats: Stats): void {
    this.items = []
    this.#replaceLines(lines)
    this.seqs = seqs
    this.revision += 1
    this.committedBytes = chunks.reduce((sum, chunk) => sum + chunk.length, 0)
    this.tailCheck = Buffer.concat(chunks.slice(-2)).subarray(-TAIL_CHECK_BYTES)
    this.pending = undefined
    this.version = versionOf(stats)
  }

  /** Records that the pending tail was cut off (holding the lock). */
  truncated(stats: Stats): void {
    this.pending = undefined
    this.version = versionOf(stats)
  }

  /** Forgets everything: the file is gone. */
  reset(): void {
    this.items = []
    try {
      this.#replaceLines([])
    } catch {
      // settle() could not read the lines (it reset the cache itself): the cache starts over anyway.
      this.#lines = []
    }
    this.seqs = []
    this.pending = undefined
    this.revision += 1
    this.version = undefined
    this.committedBytes = 0
    this.tailCheck = Buffer.alloc(0)
  }
}

interface ParsedChunk {
  /** The item of each committed line, in order, when the context asks to keep them (else empty). */
  items: Item[]
  /** The text of each committed line, in order (empty with an `onLine`). */
  lines: string[]
  /** The seq of each committed line, in order. */
  seqs: number[]
  /** Bytes of the chunk that are committed lines. */
  committedBytes: number
  pendingReason: PendingReason | undefined
}

interface ChunkContext {
  path: string
  /** The 1-based line number of the chunk's first line, for error messages. */
  firstLine: number
  /** The seq of the last committed line before the chunk. */
  previousSeq: number
  /** Whether to build each line's item (a whole load, which a read takes them from). */
  keepItems: boolean
  /**
   * Each committed line handed over as it commits (a batch's lines once its last line is read), parsed:
   * the record as the line holds it (its `turn_id` not renamed, the item under `item` when wrapped),
   * and its text. Then no line or item is kept (`lines` and `items` stay empty): a reader that keeps
   * none (an audit) lets each line die young.
   */
  onLine?: (record: Record<string, unknown>, text: string, seq: number) => void
  /** Bytes decoded at once (see `ChunkLines`). */
  segmentBytes?: number
}

/**
 * Splits a chunk into committed lines and a pending tail. Lines of a multi-item append are held back
 * until the batch's last line (`batch_end === seq`) is read; a batch cut short by a crash is pending.
 */
export function parseChunk(
  chunk: Buffer,
  { path, firstLine, previousSeq, keepItems, onLine, segmentBytes }: ChunkContext,
): ParsedChunk {
  const lines: string[] = []
  const seqs: number[] = []
  const items: Item[] = []
  let committedBytes = 0
  let position = 0
  let lineNumber = firstLine - 1
  let lastSeq = previousSeq
  let batch:
    | {
        start: number
        end: number
        firstLine: number
        lines: string[]
        seqs: number[]
        values: unknown[]
      }
    | undefined

  const texts = new ChunkLines(chunk, segmentBytes)
  /**
   * Bytes after the last newline. A flag, not a comparison after the loop: code that an optimised
   * loop reaches once, at its end, would have no type feedback and drop the optimised code each call.
   */
  let tornLine = false
  while (position < chunk.length) {
    const newline = texts.newlineAfter(position)
    if (newline === -1) {
      tornLine = true
      break
    }
    lineNumber += 1
    const lineStart = position
    const text = texts.line(position, newline)
    position = newline + 1
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      // Only the very last line may be a torn write; anything followed by more data is corruption.
      if (position === chunk.length) {
        return {
          items,
          lines,
          seqs,
          committedBytes,
          pendingReason: batch === undefined ? 'unparseable-last-line' : 'incomplete-batch',
        }
      }
      throw corruptLog(path, lineNumber, text.trim() === '' ? 'is empty' : 'is not valid JSON')
    }
    const record = parseLogRecord(value)
    if (typeof record === 'string') throw corruptLog(path, lineNumber, record)
    const { seq, batchEnd } = record
    if (seq <= lastSeq) {
      throw corruptLog(path, lineNumber, `has seq ${seq}, which does not follow the previous seq ${lastSeq}`)
    }
    lastSeq = seq
    if (batch !== undefined && batchEnd !== batch.end) {
      throw corruptLog(
        path,
        lineNumber,
        `does not continue the batch of line ${batch.firstLine}, which ends at seq ${batch.end}`,
      )
    }
    if (batchEnd !== undefined && batchEnd < seq) {
      throw corruptLog(path, lineNumber, `has batch_end ${batchEnd} below its seq ${seq}`)
    }
    if (batch === undefined && batchEnd !== undefined && batchEnd > seq) {
      batch = { start: lineStart, end: batchEnd, firstLine: lineNumber, lines: [], seqs: [], values: [] }
    }
    if (batch === undefined) {
      seqs.push(seq)
      if (onLine !== undefined) onLine(value as Record<string, unknown>, text, seq)
      else {
        lines.push(text)
        if (keepItems) items.push(itemFromRecord(value as Record<string, unknown>))
      }
      committedBytes = position
      continue
    }
    batch.lines.push(text)
    batch.seqs.push(seq)
    if (keepItems || onLine !== undefined) batch.values.push(value)
    if (seq === batch.end) {
      for (let index = 0; index < batch.lines.length; index += 1) {
        const batchSeq = batch.seqs[index]!
        seqs.push(batchSeq)
        const record = batch.values[index] as Record<string, unknown>
        if (onLine !== undefined) onLine(record, batch.lines[index]!, batchSeq)
        else {
          lines.push(batch.lines[index]!)
          if (keepItems) items.push(itemFromRecord(record))
        }
      }
      batch = undefined
      committedBytes = position
    }
  }
  const pendingReason: PendingReason | undefined =
    batch !== undefined ? 'incomplete-batch' : tornLine ? 'torn-line' : undefined
  return { items, lines, seqs, committedBytes, pendingReason }
}
