import { type Memory, StrataError } from '@strata-memory/core'
import { toStrataThreadId } from '../threads/thread-id-mapping'

/** The Strata resource id of a Mastra resource id: mapped as thread ids are (`toStrataThreadId`). */
export const toStrataResourceId = (resourceId: string) => toStrataThreadId(resourceId)

/**
 * Binds a run's Strata thread to its Mastra resource (core's `memory.thread(id, { resource })`), so
 * its context shows the resource's working memory and the resource's ranked recall reaches it. A
 * store without resources (`flags.resources`) leaves the thread unbound.
 */
export async function bindToResource(memory: Memory, strataThreadId: string, resourceId: string) {
  if (memory.store.flags?.resources !== true) return
  await memory.thread(strataThreadId, { resource: await toStrataResourceId(resourceId) })
}

/**
 * Binds a thread Mastra saved to its resource when it is bound to none, so that the resource's thread
 * list finds it before its first run. A thread bound to another resource stays where it is: a run on
 * it is refused before anything is stored.
 */
export async function bindSavedThread(memory: Memory, strataThreadId: string, resourceId: string) {
  try {
    await bindToResource(memory, strataThreadId, resourceId)
  } catch (error) {
    if (!StrataError.isInstance(error, 'STRATA_INVALID_OPTIONS')) throw error
  }
}

/**
 * The Strata threads to read for a thread list: with a resource and a store that keeps resources, the
 * resource's own threads (its index, a page at a time), else every stored thread.
 */
export async function threadIdsToList(memory: Memory, resourceId: string | undefined): Promise<string[]> {
  if (resourceId === undefined || memory.store.flags?.resources !== true) return memory.listThreads()
  const resource = memory.resource(await toStrataResourceId(resourceId))
  const ids: string[] = []
  let cursor: string | undefined
  do {
    const page = await resource.listThreads({ limit: 1_000, ...(cursor === undefined ? {} : { cursor }) })
    ids.push(...page.threads.map((entry) => entry.threadId))
    cursor = page.cursor
  } while (cursor !== undefined)
  return ids
}
