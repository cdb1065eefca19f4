import { type Stats, statSync } from 'node:fs'
import { type FileHandle, open } from 'node:fs/promises'
import { join } from 'node:path'
import { SeqRuns, scanLines } from './archive-lines'
import { readRange } from './durable-fs'
import { corruptLog, isMissing, storeFailed } from './file-errors'
import type { PendingTail } from './log-file'

/** The archive's folder inside a thread folder, and its index. */
export const ARCHIVE_FOLDER = 'archive'
export const INDEX_FILE = `${ARCHIVE_FOLDER}/index.jsonl`
/** The archive of the first layout: one file, rewritten whole by every archive. Read, never written. */
export const LEGACY_ARCHIVE_FILE = 'raw_traces_archive.jsonl'

/** At most this many lines, or this many bytes (a longer single line aside), per part. */
export const PART_LINES = 512
export const PART_BYTES = 1 << 20
/** A data file is not grown past this; the next part starts a new file. */
export const DATA_FILE_BYTES = 1 << 30

/** A data file's name: `archive/000001.jsonl`, numbered from 1. */
export const dataFileName = (number: number): string =>
  `${ARCHIVE_FOLDER}/${String(number).padStart(6, '0')}.jsonl`
const DATA_FILE = /^archive\/(\d{6,})\.jsonl$/

/**
 * One part of the archive: `count` lines in seq order, `bytes` bytes from `offset` of `file` (a path
 * inside the thread folder), holding the seqs of `runs` (`[from, to, from, to, …]`).
 */
export interface ArchivePart {
  file: string
  offset: number
  bytes: number
  from: number
  to: number
  count: number
  runs: number[]
}

/** The index line of a part; `rest` is how many parts of the same archive call follow it. */
export function indexLine(part: ArchivePart, rest: number): string {
  const { file, offset, bytes, from, to, count, runs } = part
  return JSON.stringify({ file, offset, bytes, from, to, count, runs, rest })
}

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0

/** Checks one parsed index line: the part and its `rest`, or why it is not one. */
export function parseIndexLine(value: unknown): { part: ArchivePart; rest: number } | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'is not a JSON object'
  const { file, offset, bytes, from, to, count, runs, rest } = value as Record<string, unknown>
  if (typeof file !== 'string' || (file !== LEGACY_ARCHIVE_FILE && !DATA_FILE.test(file)))
    return 'names no archive data file'
  if (![offset, bytes, count, rest].every(isCount) || !isCount(from) || !isCount(to) || from < 1 || to < from)
    return 'has an invalid offset, size, count or seq range'
  if (!Array.isArray(runs) || runs.length % 2 !== 0 || runs.length === 0) return 'has invalid runs'
  let total = 0
  let previous = 0
  for (let index = 0; index < runs.length; index += 2) {
    const start = runs[index]
    const end = runs[index + 1]
    if (!isCount(start) || !isCount(end) || start <= previous || end < start) return 'has invalid runs'
    total += end - start + 1
    previous = end
  }
  if (runs[0] !== from || previous !== to || total !== count) return 'has runs that do not match its count'
  const part = { file, offset, bytes, from, to, count, runs } as ArchivePart
  return { part, rest: rest as number }
}

interface FileVersion {
  dev: number
  ino: number
  size: number
  mtimeMs: number
}
const versionOf = (stats: Stats): FileVersion => ({
  dev: stats.dev,
  ino: stats.ino,
  size: stats.size,
  mtimeMs: stats.mtimeMs,
})
const sameVersion = (left: FileVersion | undefined, right: FileVersion): boolean =>
  left !== undefined &&
  left.dev === right.dev &&
  left.ino === right.ino &&
  left.size === right.size &&
  left.mtimeMs === right.mtimeMs

const statOrUndefined = (path: string): FileVersion | undefined => {
  try {
    // Runs on every read: a missing file answers undefined rather than an exception.
    const stats = statSync(path, { throwIfNoEntry: false })
    return stats === undefined ? undefined : versionOf(stats)
  } catch (error) {
    if (isMissing(error)) return undefined
    throw storeFailed('read', path, error)
  }
}

/** Groups lines (their seqs and sizes with the newline) into parts: consecutive, bounded in lines and bytes. */
export function groupParts(
  seqs: readonly number[],
  sizes: readonly number[],
): [start: number, end: number][] {
  const groups: [number, number][] = []
  let start = 0
  let bytes = 0
  for (let index = 0; index < seqs.length; index++) {
    if (index > start && (index - start >= PART_LINES || bytes + sizes[index]! > PART_BYTES)) {
      groups.push([start, index])
      start = index
      bytes = 0
    }
    bytes += sizes[index]!
  }
  if (seqs.length > start) groups.push([start, seqs.length])
  return groups
}

const TAIL_CHECK_BYTES = 64

/** Bytes read at once when a legacy archive is scanned. */
const SCAN_BYTES = 16 * 1024 * 1024

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
    const current = statOrUndefined(path)
    if (current === undefined) {
      if (this.version !== undefined) this.resetIndex()
      return
    }
    if (this.pending === undefined && sameVersion(this.version, current)) return
    let handle: FileHandle | undefined
    try {
      handle = await open(path, 'r')
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
        const read = await readRange(handle, start, stats.size - start)
        grown = read.subarray(0, tail.length).equals(tail)
        bytes = read.subarray(tail.length)
      }
      if (!grown) {
        this.resetIndex()
        bytes = await readRange(handle, 0, stats.size)
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
    this.runs = new SeqRuns()
    this.ordered = true
    const parts = this.parts
    this.parts = []
    for (const part of parts) this.addPart(part)
    this.revision++
  }

  /** Scans a first-layout archive not recorded in the index, once per version of it. */
  private async refreshLegacy(): Promise<void> {
    if (this.parts.some((part) => part.file === LEGACY_ARCHIVE_FILE)) {
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

/**
 * Reads a first-layout archive a chunk at a time (never whole), checking every line, into parts that
 * point into it. A last line cut short (the file is only ever replaced by rename, so only by a
 * damaged disk) is a pending tail.
 */
export async function scanLegacy(
  path: string,
  size: number,
): Promise<{ parts: ArchivePart[]; pending: PendingTail | undefined }> {
  const parts: ArchivePart[] = []
  let handle: FileHandle | undefined
  let offset = 0
  let line = 1
  let previousSeq = 0
  let pending: PendingTail | undefined
  try {
    handle = await open(path, 'r')
    while (offset < size) {
      const chunk = await readRange(handle, offset, Math.min(SCAN_BYTES, size - offset))
      const last = chunk.lastIndexOf(0x0a)
      const atEnd = offset + chunk.length >= size
      if (last === -1) {
        if (atEnd || chunk.length === 0) {
          pending = { offset, length: size - offset, reason: 'torn-line' }
          break
        }
        throw corruptLog(path, line, `is longer than ${SCAN_BYTES} bytes`)
      }
      const whole = chunk.subarray(0, last + 1)
      const { lines, tornAt } = scanLines(whole, {
        path,
        firstLine: line,
        check: true,
        lastMayTear: atEnd && last === chunk.length - 1,
      })
      for (const [index, scanned] of lines.entries()) {
        if (scanned.seq <= previousSeq) {
          throw corruptLog(
            path,
            line + index,
            `has seq ${scanned.seq}, which does not follow the previous seq ${previousSeq}`,
          )
        }
        previousSeq = scanned.seq
      }
      const seqs = lines.map((scanned) => scanned.seq)
      const sizes = lines.map((scanned) => scanned.end - scanned.start + 1)
      for (const [start, end] of groupParts(seqs, sizes)) {
        const first = lines[start]!
        const lastLine = lines[end - 1]!
        parts.push(
          partOf(
            LEGACY_ARCHIVE_FILE,
            offset + first.start,
            lastLine.end + 1 - first.start,
            seqs.slice(start, end),
          ),
        )
      }
      line += lines.length
      if (tornAt !== undefined) {
        pending = { offset: offset + tornAt, length: size - offset - tornAt, reason: 'unparseable-last-line' }
        break
      }
      offset += whole.length
      if (atEnd && offset < size) {
        pending = { offset, length: size - offset, reason: 'torn-line' }
        break
      }
    }
  } catch (error) {
    throw storeFailed('read', path, error)
  } finally {
    await handle?.close()
  }
  return { parts, pending }
}

/** A part's description from its seqs (ascending). */
export function partOf(file: string, offset: number, bytes: number, seqs: readonly number[]): ArchivePart {
  const runs: number[] = []
  for (const seq of seqs) {
    if (runs.length > 0 && runs[runs.length - 1] === seq - 1) runs[runs.length - 1] = seq
    else runs.push(seq, seq)
  }
  return { file, offset, bytes, from: seqs[0]!, to: seqs.at(-1)!, count: seqs.length, runs }
}
