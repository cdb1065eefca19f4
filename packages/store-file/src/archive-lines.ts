import { seqLowerBound } from '@strata-memory/core/store-kit'
import { corruptLog } from './file-errors'
import { parseLogRecord } from './line-format'

const NEWLINE = 0x0a
const SEQ_PREFIX = Buffer.from('{"seq":')

/**
 * The seq a log line starts with (`{"seq":N,` — every line the store writes, wrapped ones too), read
 * from its bytes without parsing the line; undefined when the line does not start that way.
 */
export function leadingSeq(bytes: Buffer, start: number, end: number): number | undefined {
  if (
    end - start < SEQ_PREFIX.length + 2 ||
    bytes.compare(SEQ_PREFIX, 0, SEQ_PREFIX.length, start, start + SEQ_PREFIX.length) !== 0
  )
    return undefined
  let seq = 0
  let position = start + SEQ_PREFIX.length
  const first = position
  for (; position < end && position - first < 16; position++) {
    const digit = bytes[position]! - 0x30
    if (digit < 0 || digit > 9) break
    seq = seq * 10 + digit
  }
  const next = bytes[position]
  if (
    position === first ||
    (next !== 0x2c && next !== 0x7d) ||
    (bytes[first] === 0x30 && position - first > 1)
  )
    return undefined
  return Number.isSafeInteger(seq) && seq >= 1 ? seq : undefined
}

/** One committed line of an archive data file: its seq and where its bytes are (without the newline). */
export interface ScannedLine {
  seq: number
  start: number
  end: number
}

/**
 * The lines of a chunk of whole lines (it ends with a newline), each with its seq: read from the
 * line's start when it has the usual form, else by parsing the line. `check` parses every line
 * (a file read for the first time); a line that is not a log line is `STRATA_CORRUPT_LOG`.
 */
export function scanLines(
  chunk: Buffer,
  {
    path,
    firstLine,
    check,
    lastMayTear = false,
  }: { path: string; firstLine: number; check: boolean; lastMayTear?: boolean },
): { lines: ScannedLine[]; tornAt: number | undefined } {
  const lines: ScannedLine[] = []
  let position = 0
  let lineNumber = firstLine
  while (position < chunk.length) {
    const newline = chunk.indexOf(NEWLINE, position)
    if (newline === -1) break
    let seq = check ? undefined : leadingSeq(chunk, position, newline)
    if (seq === undefined) {
      const text = chunk.toString('utf8', position, newline)
      let value: unknown
      try {
        value = JSON.parse(text)
      } catch {
        if (lastMayTear && newline === chunk.length - 1) return { lines, tornAt: position }
        throw corruptLog(path, lineNumber, text.trim() === '' ? 'is empty' : 'is not valid JSON')
      }
      const record = parseLogRecord(value)
      if (typeof record === 'string') throw corruptLog(path, lineNumber, record)
      seq = record.seq
    }
    lines.push({ seq, start: position, end: newline })
    position = newline + 1
    lineNumber++
  }
  return { lines, tornAt: undefined }
}

/** The runs (`[from, to, from, to, …]`) of an ascending list of seqs. */
export function runsOf(seqs: readonly number[]): number[] {
  const runs: number[] = []
  for (const seq of seqs) {
    if (runs.length > 0 && runs[runs.length - 1] === seq - 1) runs[runs.length - 1] = seq
    else runs.push(seq, seq)
  }
  return runs
}

/**
 * A set of seqs kept as sorted, disjoint runs (`starts[i]..ends[i]`): what the archive holds, known
 * from its index alone. Compaction archives long runs, so this stays small.
 */
export class SeqRuns {
  starts: number[] = []
  ends: number[] = []
  size = 0

  add(from: number, to: number): void {
    const { starts, ends } = this
    this.size += to - from + 1
    const last = ends.length - 1
    if (last < 0 || from > ends[last]! + 1) {
      starts.push(from)
      ends.push(to)
      return
    }
    if (from === ends[last]! + 1) {
      ends[last] = to
      return
    }
    // Out of order: the first run ending at or after from - 1.
    const low = seqLowerBound(ends, from - 1)
    let end = low
    let start = from
    let stop = to
    while (end < starts.length && starts[end]! <= to + 1) {
      start = Math.min(start, starts[end]!)
      stop = Math.max(stop, ends[end]!)
      // A seq is archived once: overlapping runs only touch, so nothing is counted twice.
      end++
    }
    starts.splice(low, end - low, start)
    ends.splice(low, end - low, stop)
  }

  has(seq: number): boolean {
    const { starts, ends } = this
    // The first run ending at or after seq holds it when it starts at or before it.
    const low = seqLowerBound(ends, seq)
    return low < starts.length && starts[low]! <= seq
  }

  get last(): number {
    return this.ends.at(-1) ?? 0
  }
}
