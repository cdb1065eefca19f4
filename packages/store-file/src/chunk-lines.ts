const NEWLINE = 0x0a

/**
 * Bytes decoded at once: many lines, and over V8's largest regular heap object (128 KiB), so a
 * segment's text is a large object, which the garbage collector never copies while a long log is
 * read: a 100k-item open took 0.84× the CPU it took with 64 KiB segments. A segment with a non-ASCII
 * character decodes as a two-byte string; in a log whose summaries and messages hold one every few
 * kilobytes (an arrow, an accent) every segment does at any size, and decoding such lines one by one
 * instead was slower still.
 */
const SEGMENT_BYTES = 256 * 1024

/**
 * The text of a chunk's lines, read in order. Rather than one `toString` per line, the chunk is decoded
 * a segment of many whole lines at a time and each line is a slice of the segment: one decoding pass,
 * and the lines share the segment's memory instead of each holding a copy, so a cold read of a long
 * log allocates (and the garbage collector moves) half as much.
 *
 * A line's text is the same as `chunk.toString('utf8', start, newline)`: a newline byte is never part
 * of a UTF-8 sequence and always decodes to `\n` (an invalid sequence before it decodes to U+FFFD
 * either way), so the n-th `\n` of a segment's text is its n-th newline byte.
 */
export class ChunkLines {
  #segment = ''
  /** Byte offset in the chunk where the current segment ends (after a newline). */
  #segmentEnd = 0
  /** Where the next line starts in the segment's text. */
  #next = 0

  constructor(
    private readonly chunk: Buffer,
    private readonly segmentBytes = SEGMENT_BYTES,
  ) {}

  /**
   * The text of the line from byte `start` to the newline at byte `newline`. Lines must be asked for
   * in order, each starting right after the previous one's newline (the first at 0).
   */
  line(start: number, newline: number): string {
    if (start >= this.#segmentEnd) this.#load(start, newline)
    const end = this.#segment.indexOf('\n', this.#next)
    const text = this.#segment.slice(this.#next, end)
    this.#next = end + 1
    return text
  }

  /** Decodes whole lines from `start`: at least through `newline`, at most about `segmentBytes`. */
  #load(start: number, newline: number) {
    const chunk = this.chunk
    let end = newline + 1
    const limit = start + this.segmentBytes
    if (limit > end) {
      const last = limit >= chunk.length ? chunk.lastIndexOf(NEWLINE) : chunk.lastIndexOf(NEWLINE, limit - 1)
      if (last + 1 > end) end = last + 1
    }
    this.#segment = chunk.toString('utf8', start, end)
    this.#segmentEnd = end
    this.#next = 0
  }
}
