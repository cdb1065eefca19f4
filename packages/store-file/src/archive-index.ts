import { type Stats, statSync } from 'node:fs'
import { join } from 'node:path'
import { SeqRuns } from './archive-lines'
import {
  type ArchivePart,
  DATA_FILE,
  DATA_FILE_BYTES,
  dataFileName,
  INDEX_FILE,
  LEGACY_ARCHIVE_FILE,
  parseIndexLine,
  scanLegacy,
} from './archive-parts'
import { corruptLog, isMissing, storeFailed } from './file-errors'
import { type FileVersion, sameVersion, versionOf } from './file-version'
import type { PendingTail } from './log-file'
import { type LogReader, openLog, readLogRange } from './log-reader'

const statsOrUndefined = (path: string): Stats | undefined => {
  try {
    // Runs on every read: a missing file answers undefined rather than an exception.
    return statSync(path, { throwIfNoEntry: false })
  } catch (error) {
    if (isMissing(error)) return undefined
    throw storeFailed('read', path, error)
  }
}

const statOrUndefined = (path: string): FileVersion | undefined => {
  const stats = statsOrUndefined(path)
  return stats === undefined ? undefined : versionOf(stats)
}

const TAIL_CHECK_BYTES = 64

/**
 * What a thread's archive holds, known from its index (`archive/index.jsonl`, a few dozen bytes per
 * part) without reading the archived lines: the parts, the set of archived seqs as runs, their count
 * and the newest. The index only grows by appends, so {@link refresh} reads what was appended since.
 * A thread of the first layout (`raw_traces_archive.jsonl`, not yet in the index) is scanned once,
 * a chunk at a time, into parts pointing into that file; the next write holding the lock records
 * them in the index (`migrate`), after which the old file is only read a part at a time.
 */
export class ArchiveIndex {
  /** Committed parts of the index file, in the order they were appended. */
  parts: ArchivePart[] = []
  /** Parts of a first-layout archive not yet recorded in the index. */
  legacyParts: ArchivePart[] = []
  /** A torn tail of the index (an archive cut short before its commit), or of the legacy file. */
  pending: PendingTail | undefined
  legacyPending: PendingTail | undefined
  runs = new SeqRuns()
  /** Changes whenever the archived set changes. */
  revision = 0
  /** Counts the times the cache of the index forgot everything (see HeldLease). */
  resets = 0
  /** True while every part starts after the previous one ends: reads can stop early. */
  ordered = true
  /** Bytes of the index file that are committed lines. */
  committedBytes = 0
  private version: FileVersion | undefined
  private legacyVersion: FileVersion | undefined
  private indexLines = 0
  private batch: { parts: ArchivePart[]; rest: number; line: number } | undefined
  /** True when `runs` already holds the seqs of `legacyParts` (so recording them in the index adds none). */
  private legacyInRuns = false
  /** True when the index names parts of a first-layout archive (it was recorded). */
  private legacyRecorded = false
  /** The last committed bytes of the index, to tell a grown index from another file. */
  private tailCheck: Buffer = Buffer.alloc(0)
  private leftoverCheck:
    | { revision: number; path: string; offset: number; next: string | undefined }
    | undefined

  constructor(readonly directory: string) {}

  get indexPath(): string {
    return join(this.directory, INDEX_FILE)
  }

  get legacyPath(): string {
    return join(this.directory, LEGACY_ARCHIVE_FILE)
  }

  /** Every part: the legacy file's first (when not yet in the index), then the index's. */
  get allParts(): ArchivePart[] {
    return this.legacyParts.length === 0 ? this.parts : [...this.legacyParts, ...this.parts]
  }

  get count(): number {
    return this.runs.size
  }

  get lastSeq(): number {
    return this.runs.last
  }

  get missing(): boolean {
    return this.version === undefined && this.legacyVersion === undefined
  }

  /** The data file the next part goes to, and where in it (the end of its last indexed part). */
  nextData(bytes: number): { file: string; offset: number } {
    let number = 0
    let end = 0
    for (const part of this.parts) {
      const match = DATA_FILE.exec(part.file)
      if (match === null) continue
      const partNumber = Number(match[1])
      if (partNumber > number) {
        number = partNumber
        end = 0
      }
      if (partNumber === number) end = Math.max(end, part.offset + part.bytes)
    }
    if (number === 0) return { file: dataFileName(1), offset: 0 }
    if (end > 0 && end + bytes > DATA_FILE_BYTES) return { file: dataFileName(number + 1), offset: 0 }
    return { file: dataFileName(number), offset: end }
  }

  /**
   * True when the data files hold bytes no index line names: an archive cut short before its commit
   * (or one being written right now). Two `stat`s; repaired holding the lock (`trimArchiveData`).
   */
  hasLeftovers(): boolean {
    if (this.leftoverCheck?.revision !== this.revision) {
      const { file, offset } = this.nextData(0)
      const number = Number(DATA_FILE.exec(file)![1])
      this.leftoverCheck = {
        revision: this.revision,
        path: join(this.directory, file),
        offset,
        next: offset > 0 ? join(this.directory, dataFileName(number + 1)) : undefined,
      }
    }
    const { path, offset, next } = this.leftoverCheck
    const size = statOrUndefined(path)?.size
    return (
      (size !== undefined && size > offset) || (next !== undefined && statOrUndefined(next) !== undefined)
    )
  }

  /** Brings the index up to date with the disk; throws `STRATA_CORRUPT_LOG` for a bad index line. */
  async refresh(): Promise<void> {
    await this.refreshIndex()
    await this.refreshLegacy()
  }

  private async refreshIndex(): Promise<void> {
    const path = this.indexPath
    const found = statsOrUndefined(path)
    if (found === undefined) {
      if (this.version !== undefined) this.resetIndex()
      return
    }
    if (this.pending === undefined && sameVersion(this.version, versionOf(found))) return
    let handle: LogReader | undefined
    try {
      // A small index (the usual: one line per archive) is read synchronously, as the active log.
      handle = await openLog(path, found)
      const stats = versionOf(await handle.stat())
      const tail = this.tailCheck
      let grown =
        this.version !== undefined &&
        this.version.dev === stats.dev &&
        this.version.ino === stats.ino &&
        stats.size >= this.committedBytes
      let bytes: Buffer | undefined
      if (grown) {
        // The last committed bytes must still be there: else this is another file (a thread deleted and
        // made again, its index given the same inode).
        const start = this.committedBytes - tail.length
        const read = await readLogRange(handle, start, stats.size - start)
        grown = read.subarray(0, tail.length).equals(tail)
        bytes = read.subarray(tail.length)
      }
      if (!grown) {
        this.resetIndex()
        bytes = await readLogRange(handle, 0, stats.size)
      }
      this.absorb(bytes!, stats)
    } catch (error) {
      if (isMissing(error)) {
        this.resetIndex()
        return
      }
      throw storeFailed('read', path, error)
    } finally {
      await handle?.close()
    }
  }

  /** Parses index lines appended since the last refresh. */
  private absorb(bytes: Buffer, stats: FileVersion): void {
    const path = this.indexPath
    let position = 0
    let committed = 0
    let batch: typeof this.batch
    let lineNumber = this.indexLines
    const added: ArchivePart[] = []
    let pendingReason: PendingTail['reason'] | undefined
    while (position < bytes.length) {
      const newline = bytes.indexOf(0x0a, position)
      if (newline === -1) {
        pendingReason = 'torn-line'
        break
      }
      lineNumber++
      const text = bytes.toString('utf8', position, newline)
      position = newline + 1
      let parsed: ReturnType<typeof parseIndexLine>
      try {
        parsed = parseIndexLine(JSON.parse(text))
      } catch {
        if (position === bytes.length) {
          pendingReason = batch === undefined ? 'unparseable-last-line' : 'incomplete-batch'
          break
        }
        throw corruptLog(path, lineNumber, 'is not valid JSON')
      }
      if (typeof parsed === 'string') throw corruptLog(path, lineNumber, parsed)
      if (batch !== undefined && parsed.rest !== batch.rest - 1) {
        throw corruptLog(path, lineNumber, `does not continue the archive of line ${batch.line}`)
      }
      batch ??= { parts: [], rest: parsed.rest + 1, line: lineNumber }
      batch.parts.push(parsed.part)
      batch.rest = parsed.rest
      if (parsed.rest === 0) {
        added.push(...batch.parts)
        batch = undefined
        committed = position
      }
    }
    if (pendingReason === undefined && batch !== undefined) pendingReason = 'incomplete-batch'
    // Parsing succeeded: only now does the index change. A batch cut short is read again next time.
    this.batch = undefined
    this.indexLines = lineNumber - (pendingReason === undefined ? 0 : countLines(bytes, committed, position))
    for (const part of added) this.addPart(part)
    if (added.length > 0) this.revision++
    if (added.some((part) => part.file === LEGACY_ARCHIVE_FILE)) this.legacyParts = []
    this.committedBytes += committed
    this.tailCheck = Buffer.concat([this.tailCheck, bytes.subarray(0, committed)]).subarray(-TAIL_CHECK_BYTES)
    this.pending =
      pendingReason === undefined
        ? undefined
        : { offset: this.committedBytes, length: stats.size - this.committedBytes, reason: pendingReason }
    this.version = stats
  }

  private addPart(part: ArchivePart): void {
    const previous = this.parts.at(-1) ?? this.legacyParts.at(-1)
    if (previous !== undefined && part.from <= previous.to) this.ordered = false
    this.parts.push(part)
    if (part.file === LEGACY_ARCHIVE_FILE) this.legacyRecorded = true
    if (part.file === LEGACY_ARCHIVE_FILE && this.legacyInRuns) return
    for (let index = 0; index < part.runs.length; index += 2)
      this.runs.add(part.runs[index]!, part.runs[index + 1]!)
  }

  /** Records parts this process appended holding the lock, so the next refresh reads nothing. */
  appended(parts: readonly ArchivePart[], data: Buffer, stats: Stats): void {
    const written = data.length
    for (const part of parts) this.addPart(part)
    if (parts.some((part) => part.file === LEGACY_ARCHIVE_FILE)) this.legacyParts = []
    this.revision++
    this.committedBytes += written
    this.tailCheck = Buffer.concat([this.tailCheck, data.subarray(-TAIL_CHECK_BYTES)]).subarray(
      -TAIL_CHECK_BYTES,
    )
    this.indexLines += parts.length
    this.pending = undefined
    this.version = versionOf(stats)
  }

  /** Records that the index's pending tail was cut off (holding the lock). */
  truncated(stats: Stats): void {
    this.pending = undefined
    this.version = versionOf(stats)
  }

  /** Records that the legacy file's pending tail was cut off (holding the lock): scanned again next time. */
  legacyTruncated(): void {
    this.legacyPending = undefined
    this.legacyVersion = undefined
  }

  private resetIndex(): void {
    this.resets++
    this.parts = []
    this.batch = undefined
    this.pending = undefined
    this.committedBytes = 0
    this.tailCheck = Buffer.alloc(0)
    this.indexLines = 0
    this.version = undefined
    this.legacyVersion = undefined
    this.rebuild()
  }

  private rebuild(): void {
    this.legacyInRuns = false
    this.legacyRecorded = false
    this.runs = new SeqRuns()
    this.ordered = true
    const parts = this.parts
    this.parts = []
    for (const part of parts) this.addPart(part)
    this.revision++
  }

  /** Scans a first-layout archive not recorded in the index, once per version of it. */
  private async refreshLegacy(): Promise<void> {
    // Every read comes here: a flag, not a walk over the parts.
    if (this.legacyRecorded) {
      this.legacyVersion = undefined
      return
    }
    const path = this.legacyPath
    const current = statOrUndefined(path)
    if (current === undefined) {
      if (this.legacyVersion !== undefined || this.legacyParts.length > 0) {
        this.legacyParts = []
        this.legacyPending = undefined
        this.legacyVersion = undefined
        this.rebuildWithLegacy()
      }
      return
    }
    if (sameVersion(this.legacyVersion, current)) return
    const { parts, pending } = await scanLegacy(path, current.size)
    this.legacyParts = parts
    this.legacyPending = pending
    this.legacyVersion = current
    this.rebuildWithLegacy()
  }

  private rebuildWithLegacy(): void {
    const indexParts = this.parts
    this.parts = []
    this.legacyRecorded = false
    this.runs = new SeqRuns()
    this.ordered = true
    this.legacyInRuns = this.legacyParts.length > 0
    for (const part of this.legacyParts) {
      for (let index = 0; index < part.runs.length; index += 2)
        this.runs.add(part.runs[index]!, part.runs[index + 1]!)
    }
    for (const part of indexParts) this.addPart(part)
    this.revision++
  }
}

function countLines(bytes: Buffer, from: number, to: number): number {
  let count = 0
  for (
    let index = bytes.indexOf(0x0a, from);
    index !== -1 && index < to;
    index = bytes.indexOf(0x0a, index + 1)
  )
    count++
  return count
}
