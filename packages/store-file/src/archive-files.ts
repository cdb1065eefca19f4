import { statSync } from 'node:fs'
import { type FileHandle, mkdir, open, rm } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { Item, ReadOptions } from '@strata-memory/core'
import type { ArchiveIndex } from './archive-index'
import { scanLines } from './archive-lines'
import {
  ARCHIVE_FOLDER,
  type ArchivePart,
  dataFileName,
  indexLine,
  PART_BYTES,
  PART_LINES,
  partOf,
} from './archive-parts'
import { type CleanLine, cleanLength, cleanLine, copyClean } from './clean-lines'
import { readRange, syncDirectory, writeFully } from './durable-fs'
import { corruptLog, errorCode, isMissing, storeFailed } from './file-errors'
import { itemFromLogLine } from './line-format'

/** The bytes of one part, checked against the index: whole lines, as many as it says, in its seqs. */
export async function readPart(
  index: ArchiveIndex,
  part: ArchivePart,
): Promise<{ bytes: Buffer } & PartLines> {
  const path = join(index.directory, part.file)
  let handle: FileHandle | undefined
  let bytes: Buffer
  try {
    handle = await open(path, 'r')
    bytes = await readRange(handle, part.offset, part.bytes)
  } catch (error) {
    throw storeFailed('read', path, error)
  } finally {
    await handle?.close()
  }
  return { bytes, ...partLines(index, part, bytes) }
}

/** Where a part's lines are in its bytes, and their seqs. */
export interface PartLines {
  seqs: number[]
  starts: number[]
  ends: number[]
}

/**
 * The lines of a part's bytes (read by {@link readPart}, or with the parts beside it), checked against
 * the index: whole lines, as many as it says, in its seqs; else `STRATA_CORRUPT_LOG`.
 */
export function partLines(index: ArchiveIndex, part: ArchivePart, bytes: Buffer): PartLines {
  const path = join(index.directory, part.file)
  const problem = (what: string) =>
    corruptLog(
      path,
      0,
      `at byte ${part.offset} (seqs ${part.from}–${part.to}, as ${index.indexPath} says) ${what}`,
    )
  if (bytes.length !== part.bytes || bytes[bytes.length - 1] !== 0x0a) throw problem('is cut short')
  const { lines } = scanLines(bytes, { path, firstLine: 1, check: false })
  if (lines.length !== part.count || lines[0]?.seq !== part.from || lines.at(-1)?.seq !== part.to) {
    throw problem(`holds ${lines.length} lines, not the ${part.count} the index names`)
  }
  return {
    seqs: lines.map((line) => line.seq),
    starts: lines.map((line) => line.start),
    ends: lines.map((line) => line.end),
  }
}

/**
 * Archived items in a seq range, oldest first, reading only the parts that can hold them: with
 * `limit`, reading stops once no further part can hold an earlier seq than those found.
 */
export async function readArchivePage(index: ArchiveIndex, options: ReadOptions): Promise<Item[]> {
  const from = options.fromSeq ?? 1
  const to = options.toSeq ?? Number.MAX_SAFE_INTEGER
  const limit = options.limit ?? Number.POSITIVE_INFINITY
  if (limit <= 0 || to < from) return []
  const parts = index.allParts
  let candidates: ArchivePart[]
  if (index.ordered) {
    // Parts ascend and do not overlap: the first that ends at or after `from`, then onwards.
    let low = 0
    let high = parts.length
    while (low < high) {
      const middle = (low + high) >>> 1
      if (parts[middle]!.to < from) low = middle + 1
      else high = middle
    }
    candidates = parts.slice(low)
  } else {
    candidates = parts.filter((part) => part.to >= from).sort((left, right) => left.from - right.from)
  }
  const found: { seq: number; item: Item }[] = []
  for (const part of candidates) {
    if (part.from > to) {
      if (index.ordered) break
      continue
    }
    if (found.length >= limit) {
      if (index.ordered) break
      // The limit-th seq found so far: a part starting after it cannot add an earlier one.
      found.sort((left, right) => left.seq - right.seq)
      found.length = limit
      if (part.from > found.at(-1)!.seq) break
    }
    const { bytes, seqs, starts, ends } = await readPart(index, part)
    for (let line = 0; line < seqs.length; line++) {
      const seq = seqs[line]!
      if (seq < from) continue
      if (seq > to || (index.ordered && found.length >= limit)) break
      found.push({ seq, item: itemFromLogLine(bytes.toString('utf8', starts[line], ends[line])) })
    }
  }
  if (!index.ordered) found.sort((left, right) => left.seq - right.seq)
  if (found.length > limit) found.length = limit
  return found.map((entry) => entry.item)
}

/** The stored line of an archived seq, or undefined. */
export async function archivedLine(index: ArchiveIndex, seq: number): Promise<string | undefined> {
  if (!index.runs.has(seq)) return undefined
  for (const part of index.allParts) {
    if (part.from > seq || part.to < seq) continue
    const { bytes, seqs, starts, ends } = await readPart(index, part)
    const line = seqs.indexOf(seq)
    if (line !== -1) return bytes.toString('utf8', starts[line], ends[line])
  }
  return undefined
}

/**
 * Holding the lock: appends lines (ascending seqs, each its bytes with its newline) to the archive as
 * they come, each without its batch_end (see `cleanLine`). First the parts go to the end of a data
 * file, a part a write (at most {@link PART_LINES} lines and {@link PART_BYTES}, or one longer line),
 * synced at the {@link commit}; then their index lines go to the index in one write, synced: that
 * write is the commit. A crash before it leaves bytes no index line names (ignored, cut off by the
 * next archive); a crash inside it leaves an incomplete batch (a pending tail, moved aside). Either way
 * the items are still in the active log. Nothing proportional to the archive, or to the lines
 * appended, is read or held: a part's buffer is reused.
 */
export class ArchiveAppend {
  readonly #parts: ArchivePart[] = []
  #buffer = Buffer.allocUnsafe(PART_BYTES)
  #used = 0
  #seqs: number[] = []
  #position: number

  private constructor(
    private readonly index: ArchiveIndex,
    private readonly file: string,
    private readonly dataPath: string,
    private readonly handle: FileHandle,
    offset: number,
    private readonly created: boolean,
    private readonly durable: boolean,
  ) {
    this.#position = offset
  }

  /** Opens the data file the next parts go to, for at most `bytes` of lines. */
  static async create(index: ArchiveIndex, bytes: number, durable: boolean): Promise<ArchiveAppend> {
    const { file, offset } = index.nextData(bytes)
    const dataPath = join(index.directory, file)
    const folder = dirname(dataPath)
    const folderCreated = statOrMissing(folder) === undefined
    await mkdir(folder, { recursive: true }).catch((error: unknown) => {
      throw storeFailed('create', folder, error)
    })
    if (folderCreated && durable) await syncDirectory(index.directory)
    let handle: FileHandle | undefined
    try {
      const created = statOrMissing(dataPath) === undefined
      handle = await open(dataPath, 'a')
      // Bytes past the last indexed part were never committed (an archive cut short): cut them off.
      const size = (await handle.stat()).size
      if (size < offset)
        throw corruptLog(
          dataPath,
          0,
          `ends at byte ${size}, before the ${offset} bytes ${index.indexPath} names`,
        )
      if (size > offset) await handle.truncate(offset)
      return new ArchiveAppend(index, file, dataPath, handle, offset, created, durable)
    } catch (error) {
      await handle?.close().catch(() => {})
      throw storeFailed('append to', dataPath, error)
    }
  }

  /**
   * Adds the line `bytes` of item `seq`. A promise when a part was written first: await it before the
   * next line, and keep `bytes` as they are until then.
   */
  add(bytes: Buffer, seq: number): Promise<void> | undefined {
    const clean = cleanLine(bytes)
    const size = cleanLength(bytes, clean)
    const count = this.#seqs.length
    if (count > 0 && (count >= PART_LINES || this.#used + size > PART_BYTES)) {
      return this.#writePart().then(() => this.#put(bytes, clean, size, seq))
    }
    this.#put(bytes, clean, size, seq)
    return undefined
  }

  /** Writes the last part, syncs the data file and commits the parts in the index. */
  async commit(): Promise<void> {
    try {
      await this.#writePart()
      if (this.durable) await this.handle.sync()
      if (this.created && this.durable) await syncDirectory(dirname(this.dataPath))
    } catch (error) {
      throw storeFailed('append to', this.dataPath, error)
    } finally {
      await this.handle.close()
    }
    await appendIndex(this.index, this.#parts, this.durable)
  }

  /** Gives up: nothing is committed (the bytes written are cut off by the next archive). */
  async abort(): Promise<void> {
    await this.handle.close().catch(() => {})
  }

  #put(bytes: Buffer, clean: CleanLine, size: number, seq: number): void {
    // One line longer than a part: a buffer of its own, written as the part it is alone in.
    if (size > this.#buffer.length) this.#buffer = Buffer.allocUnsafe(size)
    this.#used += copyClean(bytes, clean, this.#buffer, this.#used)
    this.#seqs.push(seq)
  }

  async #writePart(): Promise<void> {
    if (this.#seqs.length === 0) return
    const bytes = this.#buffer.subarray(0, this.#used)
    try {
      await writeFully(this.handle, bytes)
    } catch (error) {
      throw storeFailed('append to', this.dataPath, error)
    }
    this.#parts.push(partOf(this.file, this.#position, bytes.length, this.#seqs))
    this.#position += bytes.length
    this.#used = 0
    this.#seqs = []
    if (this.#buffer.length > PART_BYTES) this.#buffer = Buffer.allocUnsafe(PART_BYTES)
  }
}

/** Holding the lock: appends the index lines of `parts` in one write, synced; cut back on failure. */
export async function appendIndex(
  index: ArchiveIndex,
  parts: readonly ArchivePart[],
  durable: boolean,
): Promise<void> {
  if (parts.length === 0) return
  const path = index.indexPath
  const data = Buffer.from(
    parts.map((part, number) => `${indexLine(part, parts.length - 1 - number)}\n`).join(''),
  )
  const created = statOrMissing(path) === undefined
  let handle: FileHandle | undefined
  try {
    await mkdir(dirname(path), { recursive: true })
    handle = await open(path, 'a')
    const before = (await handle.stat()).size
    if (before !== index.committedBytes) await handle.truncate(index.committedBytes)
    try {
      await writeFully(handle, data)
      if (durable) await handle.sync()
    } catch (error) {
      await handle.truncate(index.committedBytes).catch(() => {})
      throw error
    }
    if (created && durable) await syncDirectory(dirname(path))
    index.appended(parts, data, await handle.stat())
  } catch (error) {
    throw storeFailed('append to', path, error)
  } finally {
    await handle?.close()
  }
}

/**
 * Holding the lock: records a first-layout archive's parts in the index (one committed write), so it
 * is never scanned again; the old file stays where it is and is read a part at a time from then on.
 */
export async function migrateLegacy(index: ArchiveIndex, durable: boolean): Promise<boolean> {
  if (index.legacyParts.length === 0 || index.legacyPending !== undefined) return false
  await appendIndex(index, index.legacyParts, durable)
  return true
}

/**
 * Holding the lock: removes what an archive cut short before its commit left in the data files (bytes
 * past the last indexed part, a data file no part names yet), so `strata verify` finds nothing.
 */
export async function trimArchiveData(index: ArchiveIndex): Promise<void> {
  const { file, offset } = index.nextData(0)
  const path = join(index.directory, file)
  const size = statOrMissing(path)
  if (size !== undefined && size > offset) {
    if (offset === 0) await rm(path, { force: true })
    else {
      const handle = await open(path, 'r+')
      try {
        await handle.truncate(offset)
      } finally {
        await handle.close()
      }
    }
  }
  const number = Number(/(\d+)\.jsonl$/.exec(file)![1])
  const next = join(index.directory, dataFileName(number + 1))
  if (offset > 0 && statOrMissing(next) !== undefined) await rm(next, { force: true })
}

function statOrMissing(path: string): number | undefined {
  try {
    // Every append's repair looks: a missing file answers undefined rather than an exception.
    return statSync(path, { throwIfNoEntry: false })?.size
  } catch (error) {
    if (isMissing(error) || errorCode(error) === 'ENOTDIR') return undefined
    throw error
  }
}

export { ARCHIVE_FOLDER }
