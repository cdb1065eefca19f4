import { isAscii } from 'node:buffer'

const NEWLINE = 0x0a

/**
 * Bytes decoded at once: many lines, and over V8's largest regular heap object (128 KiB), so a
 * segment's text is a large object, which the garbage collector never copies while a long log is
 * read: a 100k-item open took 0.84× the CPU it took with 64 KiB segments.
 */
const SEGMENT_BYTES = 256 * 1024

/**
 * A character outside ASCII in a latin1 reading (which holds no other): a byte of a multi-byte UTF-8
 * sequence. Global: searched from a position (`lastIndex`).
 */
const NOT_ASCII = /[\u0080-\u00ff]/g

/**
 * The text of a chunk's lines, read in order. Rather than one `toString` per line, the chunk is decoded
 * a segment of many whole lines at a time and each line is a slice of the segment: one decoding pass,
 * and the lines share the segment's memory instead of each holding a copy, so a cold read of a long
 * log allocates (and the garbage collector moves) half as much.
 *
 * The segment is read as latin1, one character a byte, so it is a one-byte string whatever the log
 * holds, its byte and text offsets are the same (newlines are found in the text), and `JSON.parse` of
 * an ASCII line gives one-byte strings. Decoded as UTF-8, one arrow or accent anywhere in a segment
 * (these logs have one every few kilobytes) made the whole segment two-byte, and with it every string
 * parsed from it: an open 100k-item thread held 2.4× the memory. A line holding a byte outside ASCII
 * is decoded as UTF-8 on its own, so its text is exactly `chunk.toString('utf8', start, newline)`.
 */
export class ChunkLines {
  #segment = ''
  /** Byte offsets in the chunk where the current segment starts and ends (after a newline). */
  #segmentStart = 0
  #segmentEnd = 0
  /**
   * The offset in the segment of its first character outside ASCII at or after the last line asked
   * for (the segment's length when none): a line before it is ASCII, so the segment is searched once
   * in all rather than each line on its own.
   */
  #nextNotAscii = 0

  constructor(
    private readonly chunk: Buffer,
    private readonly segmentBytes = SEGMENT_BYTES,
  ) {}

  /**
   * The byte offset of the first newline at or after byte `start`, where a line starts (each asked for
   * in order, as {@link line}), or -1 when the chunk has none.
   */
  newlineAfter(start: number): number {
    if (start >= this.#segmentEnd && !this.#load(start)) return -1
    return this.#segmentStart + this.#segment.indexOf('\n', start - this.#segmentStart)
  }

  /**
   * The text of the line from byte `start` to the newline at byte `newline`. Lines must be asked for
   * in order, each starting right after the previous one's newline (the first at 0).
   */
  line(start: number, newline: number): string {
    if (start >= this.#segmentEnd) this.#load(start)
    const from = start - this.#segmentStart
    const to = newline - this.#segmentStart
    if (this.#nextNotAscii >= to) return this.#segment.slice(from, to)
    if (this.#nextNotAscii < from) this.#nextNotAscii = this.#searchNotAscii(from)
    if (this.#nextNotAscii >= to) return this.#segment.slice(from, to)
    this.#nextNotAscii = this.#searchNotAscii(to)
    return this.chunk.toString('utf8', start, newline)
  }

  /** The offset of the segment's first character outside ASCII at or after `from`, or its length. */
  #searchNotAscii(from: number): number {
    NOT_ASCII.lastIndex = from
    const found = NOT_ASCII.exec(this.#segment)
    return found === null ? this.#segment.length : found.index
  }

  /**
   * Decodes whole lines from `start`: at least its line, at most about `segmentBytes`; false when no
   * newline follows `start`.
   */
  #load(start: number): boolean {
    const chunk = this.chunk
    const limit = start + this.segmentBytes
    let last = limit >= chunk.length ? chunk.lastIndexOf(NEWLINE) : chunk.lastIndexOf(NEWLINE, limit - 1)
    // A line longer than a segment is decoded whole.
    if (last < start) last = chunk.indexOf(NEWLINE, start)
    if (last === -1) return false
    const end = last + 1
    this.#segment = chunk.toString('latin1', start, end)
    this.#segmentStart = start
    this.#segmentEnd = end
    // Most segments are all ASCII: one fast check of the bytes spares the search.
    this.#nextNotAscii = isAscii(chunk.subarray(start, end)) ? this.#segment.length : this.#searchNotAscii(0)
    return true
  }
}
