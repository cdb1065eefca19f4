import type { JsonValue } from '../items'

/** How many nodes of a JSON value the pattern summarizer visits: a huge result costs a bounded walk. */
export const SCAN_NODES = 400
/** How many of those nodes a one-line gist (and a call's identifiers) reads. */
export const GIST_NODES = 64

// The walk's queue, shared by every scan (a scan runs to its end before the next starts): written over,
// never shrunk, and emptied of values after each walk so it holds none.
const queueValues: unknown[] = []
const queueKeys: string[] = []

/**
 * The scalars of a JSON value, breadth first (top-level fields before nested ones), among its first
 * {@link SCAN_NODES} nodes, each with the key that leads to it (the nearest object key above it; `''`
 * for none: array entries take their array's). Walked once per value, and only as far as asked: its
 * gist reads the leaves of the first {@link GIST_NODES} nodes (`gistLeaves` of them: a walk limited to
 * {@link GIST_NODES} nodes visits exactly those nodes), its identifiers read on until they have enough
 * ({@link leaf}), its size reads them all ({@link size}).
 */
export class JsonScan {
  /** The scalars found so far, in walk order: the first {@link count} entries. */
  readonly values: unknown[] = []
  /** The key of each scalar. */
  readonly keys: string[] = []
  /** How many scalars the walk found so far. */
  count = 0
  /** How many of the scalars are among the first {@link GIST_NODES} nodes. */
  gistLeaves = 0
  /** The next node to visit, and the end of the queue. */
  #head = 0
  #tail = 0

  /** Starts a walk of `value` (forgetting the previous one) and visits its first {@link GIST_NODES} nodes. */
  scan(value: JsonValue): this {
    this.clear()
    queueValues[0] = value
    queueKeys[0] = ''
    this.#tail = 1
    this.#walk(GIST_NODES, Number.POSITIVE_INFINITY)
    this.gistLeaves = this.count
    return this
  }

  /** True when scalar `index` exists (the walk goes on until it is found or the walk ends). */
  leaf(index: number): boolean {
    if (index < this.count) return true
    this.#walk(SCAN_NODES, index + 1)
    return index < this.count
  }

  /**
   * About the characters of the value (its scalars and keys, the whole walk) when it is an array or
   * object: at most `most`.
   */
  size(most: number): number {
    this.#walk(SCAN_NODES, Number.POSITIVE_INFINITY)
    const { values, keys } = this
    let size = 0
    for (let index = 0; index < this.count && size < most; index++) {
      const value = values[index]
      size += (typeof value === 'string' ? value.length : String(value).length) + keys[index]!.length
    }
    return Math.min(size, most)
  }

  /** Forgets the walk and the values it found. */
  clear() {
    this.values.fill(undefined, 0, this.count)
    queueValues.fill(undefined, 0, this.#tail)
    this.count = 0
    this.gistLeaves = 0
    this.#head = 0
    this.#tail = 0
  }

  /** Visits nodes until `nodes` are visited, the queue is empty or `leaves` scalars are found. */
  #walk(nodes: number, leaves: number) {
    const { values, keys } = this
    let count = this.count
    let head = this.#head
    let tail = this.#tail
    for (; head < tail && head < nodes && count < leaves; head++) {
      const current = queueValues[head]
      if (current === null) continue
      const key = queueKeys[head]!
      if (typeof current !== 'object') {
        values[count] = current
        keys[count++] = key
      } else if (Array.isArray(current)) {
        // Nodes past the limit are never visited: they are not queued.
        const entries = Math.min(current.length, SCAN_NODES - tail)
        for (let index = 0; index < entries; index++) {
          queueValues[tail] = current[index]
          queueKeys[tail++] = key
        }
      } else {
        const fields = Object.keys(current)
        const entries = Math.min(fields.length, SCAN_NODES - tail)
        for (let index = 0; index < entries; index++) {
          const field = fields[index]!
          queueValues[tail] = (current as Record<string, unknown>)[field]
          queueKeys[tail++] = field
        }
      }
    }
    this.count = count
    this.#head = head
    this.#tail = tail
  }
}
