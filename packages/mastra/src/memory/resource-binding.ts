import type { Memory } from '@strata-memory/core'
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
