import type { IndexPool } from '../content/index-pool'
import { ThreadIndex } from '../content/thread-index'
import type { StrataStoreBase } from '../stores'

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
