import { withoutBatchEnd } from './line-format'

const NEWLINE = 0x0a
const CLOSE = 0x7d
const ZERO = 0x30
const NINE = 0x39
/** How the store ends a line of a batch: `,"batch_end":N}`. */
const SUFFIX_KEY = Buffer.from(',"batch_end":')
const KEY = Buffer.from('"batch_end":')

/**
 * A stored line (its bytes with its newline) as a rewritten log or the archive stores it, without its
 * `batch_end` (see `withoutBatchEnd`), told apart without decoding it: `-1` when the line has none (its
 * bytes as they are); a byte count when the store wrote it (`,"batch_end":N}` ends the line): the line is
 * its bytes up to there, then `}` and the newline; else the line rewritten through its text (a line
 * edited by hand). A long compaction moves every line of a long log: decoding each to text and
 * encoding it again, and a buffer per line, took longer than the rest of the move.
 */
export type CleanLine = number | Buffer

/** See {@link CleanLine}. */
export function cleanLine(bytes: Buffer): CleanLine {
  const at = batchEndSuffixAt(bytes)
  if (at !== -1) return at
  if (bytes.indexOf(KEY) === -1) return -1
  return Buffer.from(`${withoutBatchEnd(bytes.toString('utf8', 0, bytes.length - 1))}\n`)
}

/** The bytes of `bytes` cleaned as `clean` says (see {@link CleanLine}). */
export function cleanLength(bytes: Buffer, clean: CleanLine): number {
  if (typeof clean !== 'number') return clean.length
  return clean === -1 ? bytes.length : clean + 2
}

/** Writes `bytes` cleaned as `clean` says into `target` at `offset`; returns how many bytes it wrote. */
export function copyClean(bytes: Buffer, clean: CleanLine, target: Buffer, offset: number): number {
  if (typeof clean !== 'number') return clean.copy(target, offset)
  if (clean === -1) return bytes.copy(target, offset)
  bytes.copy(target, offset, 0, clean)
  target[offset + clean] = CLOSE
  target[offset + clean + 1] = NEWLINE
  return clean + 2
}

/** Where `,"batch_end":N}` begins when it ends the line `bytes` (with its newline), else -1. */
function batchEndSuffixAt(bytes: Buffer): number {
  const end = bytes.length - 2
  if (end < SUFFIX_KEY.length + 1 || bytes[end] !== CLOSE || bytes[end + 1] !== NEWLINE) return -1
  let digits = end
  while (digits > 0 && bytes[digits - 1]! >= ZERO && bytes[digits - 1]! <= NINE) digits--
  const start = digits - SUFFIX_KEY.length
  if (digits === end || start < 0) return -1
  return bytes.compare(SUFFIX_KEY, 0, SUFFIX_KEY.length, start, digits) === 0 ? start : -1
}
