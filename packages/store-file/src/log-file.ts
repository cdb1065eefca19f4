import { type Stats, statSync } from 'node:fs'
import type { Item } from '@strata-memory/core'
import { isMissing, storeFailed } from './file-errors'
import { type FileVersion, sameFile, versionOf } from './file-version'
import { LogLines } from './log-lines'
import { type LogReader, openLog, readLogInto, readLogRange } from './log-reader'
import { type RewrittenLog, TAIL_CHECK_BYTES } from './log-rewrite'
import { type PendingReason, parseChunk } from './parse-chunk'

export type { PendingReason }

/** Bytes at the end of a log file that are not committed lines: a write in progress, or a torn one. */
export interface PendingTail {
  /** Byte offset where the pending bytes start (the end of the last committed line). */
  offset: number
  /** How many bytes follow `offset`. */
  length: number
  reason: PendingReason
}

const NEWLINE = 0x0a

/**
 * Bytes of a log read at once by a whole load: many 256 KiB segments (see ChunkLines), and a small
 * part of a long log, which is never held whole.
 */
const PIECE_BYTES = 4 * 1024 * 1024

/** Bytes of lines a streamed load parses at once: a page of about a hundred items of a usual log. */
const PAGE_BYTES = 64 * 1024

/**
 * Takes the items of a streamed load's page; the load parses the next page once the promise it
 * returns settles (the page was taken), so that one page is alive at a time.
 */
export type ItemsSink = (items: Item[], progress: LoadProgress) => void | Promise<void>

/** How far a streamed load is: the file's bytes up to the end of the page's lines, and its size. */
export interface LoadProgress {
  bytes: number
  size: number
}

/**
 * The cached, validated content of one JSONL log file (`raw_traces.jsonl` or its archive): its lines'
 * seqs and where they are (see {@link LogLines}: the text stays on disk), oldest first, and any
 * pending tail. {@link refresh} brings it up to date with the disk cheaply: nothing is read when the
 * size and mtime are unchanged, and only the new bytes when the file grew by appends (another
 * process's writes included).
 *
 * A line is committed when it ends with a newline, parses, and — for a multi-item append — every line
 * of its batch is there. The one exception a crash can cause is at the end of the file (a torn tail);
 * anywhere else an unreadable line is `STRATA_CORRUPT_LOG`, and the cache is left as it was.
 */
export class LogFile {
  /** The committed lines of the file as last seen; replaced by a new one when the file is. */
  #lines: LogLines
  pending: PendingTail | undefined
  /** Changes whenever the committed content changes, so derived views can be cached. */
  revision = 0
  /** Counts the times the cache forgot everything (see HeldLease): it must be read whole again. */
  resets = 0
  private version: FileVersion | undefined

  constructor(
    readonly path: string,
    /** Bytes a whole load reads at once (tests set it small). */
    private readonly pieceBytes = PIECE_BYTES,
    /** Bytes of lines a streamed load parses and hands over at once (see `#loadWhole`). */
    private readonly pageBytes = PAGE_BYTES,
  ) {
    this.#lines = this.#newLines(undefined)
  }

  /** Where the committed lines are, and the items of the last whole load (see LogLines). */
  get lines(): LogLines {
    return this.#lines
  }

  /** The seq of each committed line; strictly increasing. */
  get seqs(): readonly number[] {
    return this.#lines.seqs
  }

  /** The newest committed seq, 0 when empty. */
  get lastSeq(): number {
    return this.#lines.seqs.at(-1) ?? 0
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

  #newLines(stats: FileVersion | undefined): LogLines {
    const identity = stats === undefined ? undefined : { dev: stats.dev, ino: stats.ino }
    return new LogLines(this.path, identity, (stale) => {
      // Read again in whole at the next refresh, unless the cache has moved on already.
      if (stale === this.#lines) this.reset()
    })
  }

  /**
   * Brings the cache up to date with the file; `STRATA_CORRUPT_LOG` for a bad line. A whole load gives
   * its items to `onItems` (a streamed open) a page at a time instead of keeping them: true when one did. */
  async refresh(onItems?: ItemsSink): Promise<boolean> {
    let current: FileVersion
    let stats: Stats
    try {
      // Synchronous: a stat takes microseconds, less than a round trip through the thread pool, and
      // it runs on every call.
      stats = statSync(this.path)
      current = versionOf(stats)
    } catch (error) {
      if (!isMissing(error)) throw storeFailed('read', this.path, error)
      if (this.version !== undefined || this.#lines.seqs.length > 0) this.reset()
      return false
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
      return false
    }
    let reader: LogReader | undefined
    try {
      reader = await openLog(this.path, stats)
      return await this.load(reader, onItems)
    } catch (error) {
      if (isMissing(error)) {
        this.reset()
        return false
      }
      throw storeFailed('read', this.path, error)
    } finally {
      await reader?.close()
    }
  }

  private async load(reader: LogReader, onItems?: ItemsSink): Promise<boolean> {
    const stats = versionOf(await reader.stat())
    const { committedBytes, tailCheck } = this.#lines
    const start = committedBytes - tailCheck.length
    if (sameFile(this.version, stats) && stats.size >= committedBytes && committedBytes > 0) {
      const bytes = await readLogRange(reader, start, stats.size - start)
      if (bytes.subarray(0, tailCheck.length).equals(tailCheck)) {
        this.absorb(bytes.subarray(tailCheck.length), stats, false)
        return false
      }
    }
    await this.#loadWhole(reader, stats, onItems)
    return onItems !== undefined
  }

  /**
   * Reads the whole file a piece at a time into one reused buffer, each piece's committed lines parsed
   * before the next is read: a long log is never held whole in memory at once (it was, as one buffer
   * as large as the file, until the next full garbage collection). Bytes that are not committed at a
   * piece's end (a line or a batch the piece cuts) go to the front of the buffer and are parsed again
   * with the next piece, so lines and batches commit as a parse of the whole file commits them.
   *
   * A streamed load (`onItems`) parses each piece a sub-page at a time (`pageBytes` of lines; the rest
   * of the piece at once after a batch longer than that) and waits for each sub-page to be taken before
   * it parses the next: the items of one small page are alive at a time, so they die young. Parsed a
   * piece at a time, a 4 MiB piece's items outlived the young generation's collections and were
   * promoted, only to die there: at 100k items that raised the open's peak memory by about 100 MiB.
   */
  async #loadWhole(reader: LogReader, stats: FileVersion, onItems?: ItemsSink): Promise<void> {
    const lines = this.#newLines(stats)
    let items: Item[] = []
    let buffer = Buffer.allocUnsafe(Math.min(this.pieceBytes, stats.size))
    /** Bytes at the buffer's start carried over from the last piece; they start at file offset `base`. */
    let carried = 0
    let base = 0
    let read = 0
    let pendingReason: PendingReason | undefined
    let tailCheck = Buffer.alloc(0)
    while (read < stats.size) {
      // A batch or a line that fills half the buffer uncommitted doubles it: each byte is parsed again
      // a bounded number of times however long the batch.
      if (carried > buffer.length / 2) {
        const larger = Buffer.allocUnsafe(Math.min(buffer.length * 2, carried + stats.size - read))
        buffer.copy(larger, 0, 0, carried)
        buffer = larger
      }
      const wanted = Math.min(buffer.length - carried, stats.size - read)
      const got = await readLogInto(reader, buffer, carried, wanted, read)
      read += got
      const piece = buffer.subarray(0, carried + got)
      const last = got < wanted || read >= stats.size
      /** Bytes of the piece parsed and committed so far. */
      let committed = 0
      let span = onItems === undefined ? piece.length : this.pageBytes
      for (;;) {
        const end = Math.min(committed + span, piece.length)
        const part = piece.subarray(committed, end)
        const parsed = parseChunk(part, {
          path: this.path,
          firstLine: lines.seqs.length + 1,
          previousSeq: lines.seqs.at(-1) ?? 0,
          keepItems: true,
          keepLines: false,
        })
        lines.push(parsed.seqs, parsed.ends, base + committed)
        // The first piece's list is taken as it is (a log under a piece has one); later ones are added
        // by index: a cold load runs this in the interpreter, where `for…of` allocates a result a step.
        const parsedItems = parsed.items
        committed += parsed.committedBytes
        if (onItems !== undefined) {
          if (parsedItems.length > 0)
            await onItems(parsedItems, { bytes: base + committed, size: stats.size })
        } else if (items.length === 0) items = parsedItems
        else for (let index = 0; index < parsedItems.length; index++) items.push(parsedItems[index]!)
        if (end === piece.length) {
          if (last) pendingReason = parsed.pendingReason
          break
        }
        // A part that commits nothing holds one line or batch longer than it: the next part is the rest
        // of the piece, parsed once (parts doubling in size parsed a long batch about twice over).
        span = parsed.committedBytes === 0 ? piece.length - committed : this.pageBytes
      }
      if (committed > 0) {
        tailCheck = Buffer.concat([
          tailCheck,
          piece.subarray(Math.max(0, committed - TAIL_CHECK_BYTES), committed),
        ]).subarray(-TAIL_CHECK_BYTES)
      }
      base += committed
      if (last) {
        // The file was shorter than its stat said (cut meanwhile): what is there is what was read.
        if (read < stats.size) stats = { ...stats, size: read }
        break
      }
      carried = piece.length - committed
      piece.copy(buffer, 0, committed)
    }
    // Parsing succeeded: only now does the cache change.
    lines.items = items
    lines.committedBytes = base
    lines.tailCheck = Buffer.from(tailCheck)
    this.#lines = lines
    this.revision += 1
    this.pending =
      pendingReason === undefined
        ? undefined
        : { offset: base, length: stats.size - base, reason: pendingReason }
    this.version = stats
  }

  /** Parses `bytes` (the whole file, or what follows the committed part) into the cache. */
  private absorb(bytes: Buffer, stats: FileVersion, whole: boolean): void {
    const base = whole ? 0 : this.#lines.committedBytes
    const parsed = parseChunk(bytes, {
      path: this.path,
      firstLine: whole ? 1 : this.#lines.seqs.length + 1,
      previousSeq: whole ? 0 : this.lastSeq,
      keepItems: whole,
      keepLines: false,
    })
    // Parsing succeeded: only now does the cache change.
    const lines = whole ? this.#newLines(stats) : this.#lines
    lines.push(parsed.seqs, parsed.ends, base)
    lines.items = parsed.items
    this.#lines = lines
    if (whole || parsed.seqs.length > 0) this.revision += 1
    const previousCheck = lines.tailCheck
    lines.committedBytes = base + parsed.committedBytes
    const committedInChunk = parsed.committedBytes
    if (committedInChunk >= TAIL_CHECK_BYTES || whole) {
      lines.tailCheck = Buffer.from(
        bytes.subarray(Math.max(0, committedInChunk - TAIL_CHECK_BYTES), committedInChunk),
      )
    } else {
      lines.tailCheck = Buffer.concat([previousCheck, bytes.subarray(0, committedInChunk)]).subarray(
        -TAIL_CHECK_BYTES,
      )
    }
    this.pending =
      parsed.pendingReason === undefined
        ? undefined
        : {
            offset: lines.committedBytes,
            length: stats.size - lines.committedBytes,
            reason: parsed.pendingReason,
          }
    this.version = stats
  }

  /**
   * Records lines this process appended (holding the lock, right after a refresh): their seqs, and
   * where their bytes (`written`, from byte `start`) are, so the next refresh reads nothing.
   */
  appended(seqs: readonly number[], written: Buffer, stats: Stats, start: number): void {
    const version = versionOf(stats)
    if (this.#lines.committedBytes !== start) {
      // The cache was reset while the append ran (its lines turned out stale): it knows nothing of
      // the lines before these, so the next refresh reads the file whole.
      this.reset()
      return
    }
    // A log the append made: its lines are those of the new file.
    if (start === 0) this.#lines = this.#newLines(version)
    const lines = this.#lines
    lines.items = []
    lines.push(seqs, newlinesOf(written), start)
    this.revision += 1
    lines.committedBytes += written.length
    lines.tailCheck = Buffer.concat([lines.tailCheck, written.subarray(-TAIL_CHECK_BYTES)]).subarray(
      -TAIL_CHECK_BYTES,
    )
    this.version = version
  }

  /** Records that the file was replaced by `rewrite` (lines of `seqs`, holding the lock). */
  replaced(seqs: readonly number[], rewrite: RewrittenLog): void {
    const version = versionOf(rewrite.stats)
    const lines = this.#newLines(version)
    lines.push(seqs, rewrite.ends, 0)
    lines.committedBytes = rewrite.bytes
    lines.tailCheck = rewrite.tail
    this.#lines = lines
    this.revision += 1
    this.pending = undefined
    this.version = version
  }

  /** Records that the pending tail was cut off (holding the lock). */
  truncated(stats: Stats): void {
    this.pending = undefined
    this.version = versionOf(stats)
  }

  /** Forgets everything: the file is gone, or not the one the cache describes. */
  reset(): void {
    this.resets += 1
    this.#lines = this.#newLines(undefined)
    this.pending = undefined
    this.revision += 1
    this.version = undefined
  }
}

/** The offset of each newline in `bytes`. */
function newlinesOf(bytes: Buffer): number[] {
  const ends: number[] = []
  for (let newline = bytes.indexOf(NEWLINE); newline !== -1; newline = bytes.indexOf(NEWLINE, newline + 1)) {
    ends.push(newline)
  }
  return ends
}
