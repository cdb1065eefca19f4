import type { Item, JsonObject } from '../items'
import { createMemory } from '../memory'
import type { ContentRecord, StrataStore, StrataStoreBase } from '../stores'

/** What a store holds of a thread (see {@link storedThread}). */
export interface StoredThread {
  active: Item[]
  archive: Item[]
  state: JsonObject | undefined
  content: ContentRecord[]
}

/**
 * Everything a store holds of a thread — its active log, archive, state and content records — to
 * compare before and after a call that must leave the thread exactly as it was.
 *
 * @example
 * const before = await storedThread(store, 'chat-7')
 * await expect(agent.invoke(tooBig, config)).rejects.toThrow()
 * expect(await storedThread(store, 'chat-7')).toEqual(before)
 */
export async function storedThread(store: StrataStoreBase, threadId: string): Promise<StoredThread> {
  return {
    active: await store.read(threadId),
    archive: await store.readArchive(threadId),
    state: await store.getState(threadId),
    content: (await store.queryContent?.(threadId, {})) ?? [],
  }
}

/**
 * Resolves when another process — a second memory on the same store — can take the thread at once,
 * that is when no request holds it; rejects with `STRATA_THREAD_BUSY` otherwise.
 */
export async function expectThreadFree(store: StrataStore, threadId: string): Promise<void> {
  const hold = await (await createMemory({ store }).thread(threadId)).hold()
  await hold.release()
}
