import { assertThreadId, type StoreLeaseMethods } from '@strata-memory/core'
import { checkLeaseOptions, checkLeaseOwner } from '@strata-memory/core/store-kit'
import { ACQUIRE_LEASE_SCRIPT, RELEASE_LEASE_SCRIPT, RENEW_LEASE_SCRIPT } from './lease-scripts'
import type { LuaScript } from './lua-scripts'
import type { RedisContext } from './redis-context'
import { busyError, storeError } from './redis-errors'
import { threadKeys } from './thread-keys'

/**
 * The store's lease (store contract `v2`): the key `<prefix>:{<threadId>}:lease` holds the owner token
 * with a PX expiry, so Redis itself drops a lease its holder stopped renewing. It shares the thread's
 * hash tag, so the write scripts check it in the same atomic step as they write, on Cluster too.
 * Taking, renewing and releasing are Lua scripts (release is a compare-and-delete); expiries are
 * reported by this process's clock plus the key's remaining time.
 */
export function redisLease(context: RedisContext): StoreLeaseMethods {
  const { connection, prefix, checkOpen, send } = context

  const evaluate = async (script: LuaScript, threadId: string, args: string[]): Promise<unknown> => {
    checkOpen()
    const key = threadKeys(prefix, threadId).lease
    try {
      return await connection.evaluate(script, [key], args)
    } catch (error) {
      throw storeError(error, prefix, key, 'EVALSHA', threadId)
    }
  }

  return {
    async acquireLease(threadId, options) {
      assertThreadId(threadId)
      const { owner, ttlMs } = checkLeaseOptions(options, 'acquireLease')
      const reply = (await evaluate(ACQUIRE_LEASE_SCRIPT, threadId, [owner, String(ttlMs)])) as unknown[]
      if (String(reply[0]) === 'busy') throw busyError(threadId, Number(reply[1]))
      return { expiresAt: Date.now() + ttlMs }
    },

    async renewLease(threadId, options) {
      assertThreadId(threadId)
      const { owner, ttlMs } = checkLeaseOptions(options, 'renewLease')
      const reply = (await evaluate(RENEW_LEASE_SCRIPT, threadId, [owner, String(ttlMs)])) as unknown[]
      return String(reply[0]) === 'ok' ? { expiresAt: Date.now() + ttlMs } : undefined
    },

    async releaseLease(threadId, options) {
      assertThreadId(threadId)
      const owner = checkLeaseOwner(options, 'releaseLease')
      return Number(await evaluate(RELEASE_LEASE_SCRIPT, threadId, [owner])) === 1
    },

    async readLease(threadId) {
      assertThreadId(threadId)
      const key = threadKeys(prefix, threadId).lease
      const remaining = Number(await send(key, ['PTTL', key], threadId))
      // -2: no lease. A lease always has an expiry; a key without one (-1) was not written by this store.
      return remaining > 0 ? { expiresAt: Date.now() + remaining } : undefined
    },
  }
}
