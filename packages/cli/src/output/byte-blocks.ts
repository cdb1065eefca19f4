/** Bytes per block: large enough that writing them is a few big writes. */
const BLOCK_BYTES = 1 << 20

/**
 * Text gathered as UTF-8 bytes in blocks of about a megabyte, each string encoded once, as it comes.
 * Cheaper than joining the strings and encoding the joined text (which copies it all once more to
 * flatten it), and it holds bytes only: no string it was given stays alive.
 */
export class ByteBlocks {
  readonly #blocks: Buffer[] = []
  #block = Buffer.allocUnsafe(BLOCK_BYTES)
  #used = 0

  /** Appends `text` encoded as UTF-8. */
  add(text: string): void {
    // A UTF-16 unit takes at most 3 bytes in UTF-8 (a surrogate pair, 2 units, takes 4).
    if (this.#block.length - this.#used < text.length * 3) {
      this.#blocks.push(this.#block.subarray(0, this.#used))
      this.#block = Buffer.allocUnsafe(Math.max(BLOCK_BYTES, text.length * 3))
      this.#used = 0
    }
    this.#used += this.#block.write(text, this.#used)
  }

  /** The blocks so far, the last one cut to what it holds; adding after this is not allowed. */
  finish(): Buffer[] {
    this.#blocks.push(this.#block.subarray(0, this.#used))
    return this.#blocks
  }
}
