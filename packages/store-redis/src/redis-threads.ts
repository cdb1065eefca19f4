import {
  assertThreadId,
  isValidThreadId,
  type JsonObject,
  type LeaseWriteOptions,
  type StrataStore,
} from '@strata-memory/core'
import { checkState, isPlainObject, leaseOfWrite } from '@strata-memory/core/store-kit'
import { PRUNE_REGISTRY_SCRIPT, SET_STATE_SCRIPT, TOMBSTONE_SCRIPT } from './lua-scripts'
import type { RedisContext } from './redis-context'
import { busyError, corruptError, storeError } from './redis-errors'
import { threadResourceKeys } from './resource-keys'
import type { ThreadEpochs } from './thread-epochs'
import { TOMBSTONE_TTL_SECONDS, threadKeyList, threadKeys, tombstoneKey } from './thread-keys'

/** An empty thread found in the registry is removed from it only after this long, so a write under way is never unlisted. */
const PRUNE_AFTER_MS = 60_000

/** The store's thread state, and the thread registry behind listThreads and deleteThread. */
export function redisThreads(
  context: RedisContext,
  { forgetThread, epochs }: { forgetThread(threadId: string): Promise<void>; epochs: ThreadEpochs },
): Pick<StrataStore, 'getState' | 'setState' | 'listThreads' | 'deleteThread'> {
  const { connection, prefix, ttl, registry, send, run, register, parseJson } = context

  return {
    async getState(threadId: string): Promise<JsonObject | undefined> {
      assertThreadId(threadId)
      epochs.checkLost(threadId)
      const keys = threadKeys(prefix, threadId)
      const value = await send(keys.state, ['GET', keys.state], threadId)
      if (value === null) {
        // No state for a thread this store saw: its log is looked at, so that a Redis that lost the
        // thread is reported here too, not read as a thread that never had state (an app's own
        // records there, Mastra's thread record, would read as a new thread and be written again).
        if (epochs.knows(threadId)) await epochs.recheck(threadId)
        return undefined
      }
      const state = parseJson(value, keys.state, threadId)
      if (!isPlainObject(state))
        throw corruptError(prefix, keys.state, 'JSON that is not an object', threadId)
      return state as JsonObject
    },

    async setState(threadId: string, state: JsonObject, options?: LeaseWriteOptions): Promise<void> {
      assertThreadId(threadId)
      checkState(state)
      epochs.checkLost(threadId)
      const lease = leaseOfWrite(options, 'setState') ?? ''
      const keys = threadKeys(prefix, threadId)
      const [, reply] = await Promise.all([
        register(threadId),
        run(SET_STATE_SCRIPT, threadId, keys, [ttl, JSON.stringify(state), lease]),
      ])
      if (reply[0] === 'busy') throw busyError(threadId, Number(reply[1]))
    },

    async listThreads(): Promise<string[]> {
      const reply = (await send(registry, ['ZRANGE', registry, '0', '-1', 'WITHSCORES'])) as unknown[]
      const now = Date.now()
      const listed = await Promise.all(
        registryEntries(reply).map(async ({ threadId, score }) => {
          // Entries are written by this store only; anything else there names no thread.
          if (!isValidThreadId(threadId)) return undefined
          const keys = threadKeys(prefix, threadId)
          const existing = await send(keys.log, ['EXISTS', keys.log, keys.content, keys.state], threadId)
          if (Number(existing) > 0) return threadId
          // Deleted, expired, or only a refused write: forget it once no write can still be under way.
          if (score < now - PRUNE_AFTER_MS) {
            await connection.evaluate(PRUNE_REGISTRY_SCRIPT, [registry], [threadId, String(score)])
          }
          return undefined
        }),
      )
      return listed.filter((threadId) => threadId !== undefined).sort()
    },

    /** Removes the thread's keys, its lease, slots, binding and vectors included, and its resource index entry. */
    async deleteThread(threadId: string): Promise<void> {
      assertThreadId(threadId)
      const keys = threadKeys(prefix, threadId)
      const { binding, vectors } = threadResourceKeys(prefix, threadId)
      // The index entry first (another slot): a failure in between leaves the thread, still bound.
      await forgetThread(threadId)
      // Unregistered first: a writer re-creating the thread meanwhile registers it again, so the
      // registry never misses a thread that has data (it may name one that has none; listThreads checks).
      await send(registry, ['ZREM', registry, threadId])
      // The deleted log's header stays behind a while, so that every store that saw the log tells
      // this delete from a loss of data (see threadEpochs).
      const tombstone = tombstoneKey(prefix, threadId)
      try {
        await connection.evaluate(
          TOMBSTONE_SCRIPT,
          [keys.log, tombstone],
          [String(Date.now()), String(TOMBSTONE_TTL_SECONDS)],
        )
      } catch (error) {
        throw storeError(error, prefix, tombstone, 'EVALSHA', threadId)
      }
      await send(keys.log, ['DEL', ...threadKeyList(keys), binding, vectors], threadId)
      epochs.forget(threadId)
    },
  }
}

/** `ZRANGE … WITHSCORES` as entries: RESP3 replies with pairs, RESP2 with a flat list. */
function registryEntries(reply: unknown[]): { threadId: string; score: number }[] {
  const entries: { threadId: string; score: number }[] = []
  if (reply.length > 0 && Array.isArray(reply[0])) {
    for (const pair of reply as unknown[][])
      entries.push({ threadId: String(pair[0]), score: Number(pair[1]) })
  } else {
    for (let index = 0; index + 1 < reply.length; index += 2) {
      entries.push({ threadId: String(reply[index]), score: Number(reply[index + 1]) })
    }
  }
  return entries
}
