/** An index the pool can drop: it forgets what it holds and is built again at its next use. */
export interface PooledIndex {
  clear(): void
}

/**
 * The search indexes of one memory (its resources', and each thread's own `memory_query` index),
 * within a bound on the entries they hold together: past it, the least recently used are dropped
 * and built again from the store at their next query.
 */
export class IndexPool {
  readonly maxEntries: number
  /** Each index's entries at its last use, least recently used first. */
  readonly #sizes = new Map<PooledIndex, number>()
  #total = 0

  constructor(maxEntries: number) {
    this.maxEntries = maxEntries
  }

  /**
   * Marks `index` as just used, holding `size` entries, then drops the least recently used others
   * until the bound holds (or none is left). Costs nothing per index the memory holds while under it.
   */
  used(index: PooledIndex, size: number) {
    this.#total += size - (this.#sizes.get(index) ?? 0)
    this.#sizes.delete(index)
    this.#sizes.set(index, size)
    for (const [other, held] of this.#sizes) {
      if (this.#total <= this.maxEntries) break
      if (other === index) continue
      this.#total -= held
      other.clear()
      this.#sizes.delete(other)
    }
  }
}
