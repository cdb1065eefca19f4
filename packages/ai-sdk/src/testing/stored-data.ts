import type { StrataStore } from '@strata-memory/core'

/** What the store holds of a thread, to compare before and after a refused call. */
export const storedData = async (store: StrataStore, threadId: string) => ({
  active: await store.read(threadId),
  archive: await store.readArchive(threadId),
  state: await store.getState(threadId),
  content: await store.queryContent(threadId),
})
