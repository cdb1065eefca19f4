import { isAscii } from 'node:buffer'

const NEWLINE = 0x0a

/**
 * Bytes decoded at once: many lines, and over V8's largest regular heap object (128 KiB), so a
 * segment's text is a large object, which the garbage collector never copies while a long log is
 * read: a 100k-item open took 0.84× the CPU it took with 64 KiB segments.
 */
const SEGMENT_BYTES = 256 * 1024

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
   * Whether the segment is all ASCII: then no line of it is checked. In the others (most segments of a
   * log with an arrow or an accent every few kilobytes) each line's bytes are checked on their own,
   * natively: two thirds of the time a regular-expression search of the segment's text took.
   */
  #ascii = true

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
    // A plain view, not `subarray`: a Buffer's subarray runs node's JavaScript for each of the
    // thousand lines of a cold open, in the interpreter.
    const chunk = this.chunk
    if (this.#ascii || isAscii(new Uint8Array(chunk.buffer, chunk.byteOffset + start, newline - start))) {
      return this.#segment.slice(start - this.#segmentStart, newline - this.#segmentStart)
    }
    return this.chunk.toString('utf8', start, newline)
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
    this.#ascii = isAscii(chunk.subarray(start, end))
    return true
  }
}
