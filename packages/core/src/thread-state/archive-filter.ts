import type { SeqRange } from '../items'

/** Keys per block: a block holds the ids and tool-call ids of about this many items' worth. */
const BLOCK_KEYS = 1024
/** Bits per block: 16 per key, with {@link HASHES} hashes about 1 false "maybe" in 2 000 when full. */
const BLOCK_BITS = 16_384
const HASHES = 10

/** One block: a Bloom filter over the keys of the items in a seq range. */
interface FilterBlock {
  fromSeq: number
  toSeq: number
  keys: number
  bits: Uint8Array
  /** The bits in base64, while they have not changed since. */
  encoded?: string
}

/** A block as the thread's state keeps it (JSON: the bits in base64). */
export interface StoredFilterBlock {
  fromSeq: number
  toSeq: number
  keys: number
  bits: string
}

/** The key of an item id and of a tool call's id: one filter answers both questions. */
export const idKey = (id: string) => `i:${id}`
export const callKey = (toolCallId: string) => `c:${toolCallId}`

/**
 * Which seq ranges of a thread may hold an item id or a tool call, without reading them: a Bloom
 * filter per block of about a thousand keys, each block naming the seqs it covers. "No" is certain,
 * so an append of a new id reads nothing; "maybe" names the blocks to read, each one page of the
 * archive (`readArchive({ fromSeq, toSeq })`), so `memory_retrieve` of an archived item reads one page.
 * Fixed-size blocks keep the size linear in the keys (2 bytes each) and let a block fill across saves.
 */
export class ArchiveFilter {
  readonly #blocks: FilterBlock[]

  constructor(blocks: FilterBlock[] = []) {
    this.#blocks = blocks
  }

  /** Records `key` of the item at `seq`; items come in seq order, roughly (a block's range widens). */
  add(key: string, seq: number) {
    let block = this.#blocks.at(-1)
    if (block === undefined || block.keys >= BLOCK_KEYS || seq < block.fromSeq) {
      block = { fromSeq: seq, toSeq: seq, keys: 0, bits: new Uint8Array(BLOCK_BITS / 8) }
      this.#blocks.push(block)
    }
    const [first, step] = hashes(key)
    for (let index = 0; index < HASHES; index++) {
      const bit = (first + index * step) % BLOCK_BITS
      block.bits[bit >>> 3]! |= 1 << (bit & 7)
    }
    block.keys++
    block.encoded = undefined
    if (seq > block.toSeq) block.toSeq = seq
  }

  /** The seq ranges whose blocks may hold `key`, newest first. */
  rangesOf(key: string): SeqRange[] {
    const [first, step] = hashes(key)
    const ranges: SeqRange[] = []
    for (let at = this.#blocks.length - 1; at >= 0; at--) {
      const block = this.#blocks[at]!
      let maybe = true
      for (let index = 0; index < HASHES && maybe; index++) {
        const bit = (first + index * step) % BLOCK_BITS
        maybe = (block.bits[bit >>> 3]! & (1 << (bit & 7))) !== 0
      }
      if (maybe) ranges.push({ fromSeq: block.fromSeq, toSeq: block.toSeq })
    }
    return ranges
  }

  /** A copy that further adds leave this one as it is. */
  clone(): ArchiveFilter {
    return new ArchiveFilter(this.#blocks.map((block) => ({ ...block, bits: block.bits.slice() })))
  }

  /** The blocks as a state keeps them; a block's base64 is made once, until its bits change. */
  toJSON(): StoredFilterBlock[] {
    return this.#blocks.map((block) => {
      block.encoded ??= toBase64(block.bits)
      return { fromSeq: block.fromSeq, toSeq: block.toSeq, keys: block.keys, bits: block.encoded }
    })
  }

  /** The filter a state held, or undefined when it is not one this code wrote (then it is rebuilt). */
  static fromJSON(value: unknown): ArchiveFilter | undefined {
    if (!Array.isArray(value)) return undefined
    const blocks: FilterBlock[] = []
    for (const entry of value) {
      if (typeof entry !== 'object' || entry === null) return undefined
      const { fromSeq, toSeq, keys, bits } = entry as Record<string, unknown>
      if (!isCount(fromSeq) || !isCount(toSeq) || !isCount(keys) || typeof bits !== 'string') return undefined
      const decoded = fromBase64(bits)
      if (decoded?.length !== BLOCK_BITS / 8) return undefined
      blocks.push({ fromSeq, toSeq, keys, bits: decoded, encoded: bits })
    }
    return new ArchiveFilter(blocks)
  }
}

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0

/** Two 32-bit FNV-1a hashes of the key's UTF-16 units (other offsets), for double hashing. */
function hashes(key: string): [number, number] {
  let first = 0x811c9dc5
  let second = 0x01000193 ^ 0x5bd1e995
  for (let index = 0; index < key.length; index++) {
    const unit = key.charCodeAt(index)
    first = Math.imul(first ^ unit, 0x01000193)
    second = Math.imul(second ^ unit, 0x5bd1e995)
    second ^= second >>> 15
  }
  // An odd step visits distinct bits of the power-of-two block.
  return [first >>> 0, (second | 1) >>> 0]
}

function toBase64(bytes: Uint8Array): string {
  let binary = ''
  for (let at = 0; at < bytes.length; at += 4096)
    binary += String.fromCharCode(...bytes.subarray(at, at + 4096))
  return btoa(binary)
}

function fromBase64(text: string): Uint8Array | undefined {
  let binary: string
  try {
    binary = atob(text)
  } catch {
    return undefined
  }
  const bytes = new Uint8Array(binary.length)
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index)
  return bytes
}
