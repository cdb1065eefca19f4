import { afterEach, beforeEach } from 'vitest'
import type { MemoryOptions } from '../memory'
import type { StrataStore } from '../stores'

/** What {@link useSuiteStore} gives a suite's tests. */
export interface SuiteStore {
  /** The current test's store (read it inside a test, not while the suite is declared). */
  readonly store: StrataStore
  /** Memory options on that store with a deterministic clock (from 1 001) and ids (`id1`, `id2`, …). */
  options(extra?: Partial<MemoryOptions>): MemoryOptions
}

/**
 * For a suite run against any store, inside its `describe`: a fresh store from `factory` before each
 * test; every thread deleted and the store closed after it.
 */
export function useSuiteStore(factory: () => StrataStore | Promise<StrataStore>): SuiteStore {
  let store: StrataStore | undefined
  let now = 0
  let ids = 0
  beforeEach(async () => {
    store = await factory()
    now = 1_000
    ids = 0
  })
  afterEach(async () => {
    if (store === undefined) return
    for (const threadId of await store.listThreads()) await store.deleteThread(threadId)
    await store.close?.()
  })
  return {
    get store() {
      if (store === undefined) throw new Error('useSuiteStore(): the store exists inside a test only.')
      return store
    },
    options: (extra = {}) => ({
      store: store!,
      clock: () => ++now,
      generateId: () => `id${++ids}`,
      ...extra,
    }),
  }
}
