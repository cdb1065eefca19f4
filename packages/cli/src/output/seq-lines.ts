/** Bytes per block: large enough that writing them is a few big writes. */
const BLOCK_BYTES = 1 << 20

const NEWLINE = 0x0a

/**
 * One place's lines (the active log's or the archive's) in the order they came: each line's seq, and
 * its UTF-8 bytes in blocks of about a megabyte, each string encoded once, as it comes. Holding bytes
 * and numbers in typed arrays only, no string it was given stays alive and the garbage collector has
 * nothing to copy.
 */
class PlaceLines {
  /** Lines added. */
  count = 0
  /** Each line's seq. */
  seqs = new Float64Array(1024)
  /** Each line's block (-1: no bytes), and where its bytes start and end there (the newline included). */
  place = new Int32Array(3 * 1024)
  readonly blocks: Buffer[] = []
  /** Where the bytes of each block but the last end. */
  readonly #blockEnds: number[] = []
  #block: Buffer | undefined
  #used = 0

  /** The blocks, each cut to the bytes it holds. */
  written(): Buffer[] {
    return this.blocks.map((block, index) => block.subarray(0, this.#blockEnds[index] ?? this.#used))
  }

  /** A line of `seq`: `text` and a newline, or no bytes when `text` is undefined (a line not written). */
  add(seq: number, text: string | undefined): void {
    const index = this.count++
    if (index === this.seqs.length) this.#grow()
    this.seqs[index] = seq
    const at = 3 * index
    if (text === undefined) {
      this.place[at] = -1
      return
    }
    // A UTF-16 unit takes at most 3 bytes in UTF-8 (a surrogate pair, 2 units, takes 4).
    const most = text.length * 3 + 1
    if (this.#block === undefined || this.#block.length - this.#used < most) {
      if (this.#block !== undefined) this.#blockEnds.push(this.#used)
      this.#block = Buffer.allocUnsafe(Math.max(BLOCK_BYTES, most))
      this.blocks.push(this.#block)
      this.#used = 0
    }
    this.place[at] = this.blocks.length - 1
    this.place[at + 1] = this.#used
    this.#used += this.#block.write(text, this.#used)
    this.#block[this.#used++] = NEWLINE
    this.place[at + 2] = this.#used
  }

  #grow(): void {
    const seqs = new Float64Array(this.seqs.length * 2)
    seqs.set(this.seqs)
    this.seqs = seqs
    const place = new Int32Array(this.place.length * 2)
    place.set(this.place)
    this.place = place
  }

  /** The lines' indexes in seq order (a stable sort), or undefined when they came in seq order. */
  order(): number[] | undefined {
    const { seqs, count } = this
    let ascending = true
    for (let index = 1; index < count && ascending; index++) ascending = seqs[index - 1]! <= seqs[index]!
    if (ascending) return undefined
    return Array.from({ length: count }, (_value, index) => index).sort(
      (left, right) => seqs[left]! - seqs[right]! || left - right,
    )
  }
}

/** What {@link SeqLines.finish} gives: the text in seq order, and what the seqs were. */
export interface SeqLinesResult {
  /** The lines' bytes, in seq order, as chunks of about a megabyte (or more). */
  chunks: Buffer[]
  /** Lines in the chunks. */
  count: number
  /** The newest seq of all lines, written or not; 0 when there are none. */
  lastSeq: number
  /** The seqs of the archived lines in the chunks, ascending. */
  archivedSeqs: number[]
}

/**
 * One line of text per item of a thread, added as a store hands the items over (in any order, an item
 * in both the active log and the archive twice) and given back in seq order, a seq in both taken once,
 * from the archive. The text is kept as UTF-8 bytes, so a long thread's lines cost the garbage
 * collector nothing, and lines that came in order go out as the blocks they were written to.
 */
export class SeqLines {
  readonly #active = new PlaceLines()
  readonly #archive = new PlaceLines()

  /** Adds the line of `seq`; `text` undefined counts the seq but writes no line for it. */
  add(seq: number, archived: boolean, text: string | undefined): void {
    ;(archived ? this.#archive : this.#active).add(seq, text)
  }

  /** The lines in seq order; adding after this is not allowed. */
  finish(): SeqLinesResult {
    const active = this.#active
    const archive = this.#archive
    const activeOrder = active.order()
    const archiveOrder = archive.order()
    // The usual thread: each place in order, the archive's seqs all below the active log's. Its lines
    // go out as the blocks they were written to, archive first, with no line-by-line merge.
    if (
      activeOrder === undefined &&
      archiveOrder === undefined &&
      (active.count === 0 || archive.count === 0 || archive.seqs[archive.count - 1]! < active.seqs[0]!)
    ) {
      return inOrder([archive, active])
    }
    const chunks = new ChunkGatherer()
    const archivedSeqs: number[] = []
    let count = 0
    let lastSeq = 0
    const take = (lines: PlaceLines, index: number, archived: boolean) => {
      const seq = lines.seqs[index]!
      if (seq > lastSeq) lastSeq = seq
      const block = lines.place[3 * index]!
      if (block === -1) return
      count++
      if (archived) archivedSeqs.push(seq)
      chunks.add(lines.blocks[block]!, lines.place[3 * index + 1]!, lines.place[3 * index + 2]!)
    }
    let left = 0
    let right = 0
    const activeCount = active.count
    const archiveCount = archive.count
    while (left < activeCount || right < archiveCount) {
      const activeIndex = left < activeCount ? (activeOrder?.[left] ?? left) : -1
      const archiveIndex = right < archiveCount ? (archiveOrder?.[right] ?? right) : -1
      const activeSeq = activeIndex === -1 ? Number.POSITIVE_INFINITY : active.seqs[activeIndex]!
      const archiveSeq = archiveIndex === -1 ? Number.POSITIVE_INFINITY : archive.seqs[archiveIndex]!
      if (activeSeq < archiveSeq) {
        take(active, activeIndex, false)
        left++
        continue
      }
      if (activeSeq === archiveSeq) left++
      take(archive, archiveIndex, true)
      right++
    }
    return { chunks: chunks.finish(), count, lastSeq, archivedSeqs }
  }
}

/** The lines of places in seq order, one after the other (see {@link SeqLines.finish}); the last is active. */
function inOrder(places: readonly PlaceLines[]): SeqLinesResult {
  const chunks: Buffer[] = []
  const archivedSeqs: number[] = []
  let count = 0
  let lastSeq = 0
  places.forEach((lines, at) => {
    const archived = at < places.length - 1
    for (let index = 0; index < lines.count; index++) {
      if (lines.place[3 * index] === -1) continue
      count++
      if (archived) archivedSeqs.push(lines.seqs[index]!)
    }
    if (lines.count > 0) lastSeq = Math.max(lastSeq, lines.seqs[lines.count - 1]!)
    for (const block of lines.written()) if (block.length > 0) chunks.push(block)
  })
  return { chunks, count, lastSeq, archivedSeqs }
}

/**
 * Byte ranges gathered into chunks for writing: ranges that follow each other in one block grow into
 * one, a range of half a megabyte or more goes as it is, smaller ones are copied together into a chunk
 * of a megabyte, so a thread whose lines came out of order is still a few large writes.
 */
class ChunkGatherer {
  readonly #chunks: Buffer[] = []
  /** The range growing: its block, start and end. */
  #block: Buffer | undefined
  #start = 0
  #end = 0
  #copy: Buffer | undefined
  #copied = 0

  add(block: Buffer, start: number, end: number): void {
    if (block === this.#block && start === this.#end) {
      this.#end = end
      return
    }
    this.#flushRange()
    this.#block = block
    this.#start = start
    this.#end = end
  }

  finish(): Buffer[] {
    this.#flushRange()
    this.#flushCopy()
    return this.#chunks
  }

  #flushRange(): void {
    const block = this.#block
    if (block === undefined) return
    this.#block = undefined
    const length = this.#end - this.#start
    if (length >= BLOCK_BYTES / 2) {
      this.#flushCopy()
      this.#chunks.push(block.subarray(this.#start, this.#end))
      return
    }
    if (this.#copy === undefined || this.#copy.length - this.#copied < length) {
      this.#flushCopy()
      this.#copy = Buffer.allocUnsafe(BLOCK_BYTES)
    }
    this.#copied += block.copy(this.#copy, this.#copied, this.#start, this.#end)
  }

  #flushCopy(): void {
    if (this.#copy !== undefined && this.#copied > 0) this.#chunks.push(this.#copy.subarray(0, this.#copied))
    this.#copy = undefined
    this.#copied = 0
  }
}
