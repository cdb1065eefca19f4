import { ThreadIndex } from '../content/thread-index'
import type { StrataStoreBase } from '../stores'

/**
 * The resource indexes of one memory, within a bound on the entries they hold together: past it, the
 * least recently queried resources are dropped (and rebuilt from the store at their next query).
 */
export class IndexPool {
  readonly maxEntries: number
  /** Each index's entries at its last use, least recently used first. */
  readonly #sizes = new Map<ResourceIndex, number>()
  #total = 0

  constructor(maxEntries: number) {
    this.maxEntries = maxEntries
  }

  /**
   * Marks `index` as just used, holding `size` entries, then drops the least recently used others
   * until the bound holds (or none is left). Costs nothing per index the memory holds while under it.
   */
  used(index: ResourceIndex, size: number) {
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

/**
 * A resource's search index, kept in memory between queries: one {@link ThreadIndex} per thread,
 * each brought up to date from the store (by its head) at every query, so a warm query reads each
 * thread's head and whatever was appended since — never the whole history.
 */
export class ResourceIndex {
  readonly #pool: IndexPool
  readonly #threads = new Map<string, ThreadIndex>()

  constructor(pool: IndexPool) {
    this.#pool = pool
  }

  /** The entries held. */
  get size(): number {
    let size = 0
    for (const thread of this.#threads.values()) size += thread.size
    return size
  }

  /** The threads `threadIds` names, each up to date with the store. */
  async sync(store: StrataStoreBase, threadIds: readonly string[]): Promise<ThreadIndex[]> {
    const threads = threadIds.map((threadId) => {
      let thread = this.#threads.get(threadId)
      if (thread === undefined) {
        thread = new ThreadIndex(threadId)
        this.#threads.set(threadId, thread)
      }
      return thread
    })
    await Promise.all(threads.map((thread) => thread.sync(store)))
    this.#pool.used(this, this.size)
    return threads
  }

  /** Content was stored in the thread without an append (which its head would show). */
  contentStored(threadId: string) {
    this.#threads.get(threadId)?.contentStored()
  }

  /** Forgets the threads no longer bound to the resource. */
  retain(threadIds: readonly string[]) {
    const kept = new Set(threadIds)
    for (const threadId of this.#threads.keys()) if (!kept.has(threadId)) this.#threads.delete(threadId)
  }

  clear() {
    this.#threads.clear()
  }
}
