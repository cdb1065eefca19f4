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
 * either way), so the n-th `\n` of a segment's text is its n-th newline byte. A segment that decodes
 * to as many characters as it has bytes decoded each byte to one character (no sequence gives more
 * characters than bytes), so there its byte and text offsets are the same.
 */
export class ChunkLines {
  #segment = ''
  /** Byte offsets in the chunk where the current segment starts and ends (after a newline). */
  #segmentStart = 0
  #segmentEnd = 0
  /**
   * Whether each byte of the segment decoded to one character (as many characters as bytes: ASCII,
   * nearly every log): then a byte offset is a text offset, and lines are found in the text alone.
   */
  #oneByteEach = false
  /** Where the next line starts in the segment's text. */
  #next = 0

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
    if (!this.#oneByteEach) return this.chunk.indexOf(NEWLINE, start)
    return this.#segmentStart + this.#segment.indexOf('\n', start - this.#segmentStart)
  }

  /**
   * The text of the line from byte `start` to the newline at byte `newline`. Lines must be asked for
   * in order, each starting right after the previous one's newline (the first at 0).
   */
  line(start: number, newline: number): string {
    if (start >= this.#segmentEnd) this.#load(start)
    if (this.#oneByteEach) {
      const at = start - this.#segmentStart
      this.#next = newline + 1 - this.#segmentStart
      return this.#segment.slice(at, this.#next - 1)
    }
    const end = this.#segment.indexOf('\n', this.#next)
    const text = this.#segment.slice(this.#next, end)
    this.#next = end + 1
    return text
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
    this.#segment = chunk.toString('utf8', start, end)
    this.#segmentStart = start
    this.#segmentEnd = end
    this.#oneByteEach = this.#segment.length === end - start
    this.#next = 0
    return true
  }
}
