import { type FileHandle, open } from 'node:fs/promises'
import { scanLines } from './archive-lines'
import { readRange } from './durable-fs'
import { corruptLog, storeFailed } from './file-errors'
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
export const DATA_FILE = /^archive\/(\d{6,})\.jsonl$/

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

/** Bytes read at once when a legacy archive is scanned. */
const SCAN_BYTES = 16 * 1024 * 1024

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
