import {
  assertThreadId,
  type JsonObject,
  type LeaseWriteOptions,
  type StoreSlotMethods,
} from '@strata-memory/core'
import { checkSlotName, checkSlotValue, isPlainObject, leaseOfWrite } from '@strata-memory/core/store-kit'
import { SET_SLOT_SCRIPT } from './lua-scripts'
import type { RedisContext } from './redis-context'
import { busyError, corruptError, storeError } from './redis-errors'
import type { ThreadEpochs } from './thread-epochs'
import { threadKeyList, threadKeys } from './thread-keys'

/**
 * The Redis store's slots (store contract `v2`, `flags.slots`): one field of the thread's slots hash
 * each (see ThreadKeys), read with one `HGET`, written by a script that checks the lease like
 * `setState`. With a ttl, every write to the thread refreshes the hash's with the other keys'.
 */
export function redisSlots(context: RedisContext, epochs: ThreadEpochs): StoreSlotMethods {
  const { connection, prefix, ttl, send, scriptReply, checkOpen, parseJson } = context

  return {
    async getSlot(threadId: string, name: string): Promise<JsonObject | undefined> {
      assertThreadId(threadId)
      checkSlotName(name, 'getSlot')
      epochs.checkLost(threadId)
      const key = threadKeys(prefix, threadId).slots
      const value = await send(key, ['HGET', key, name], threadId)
      if (value === null || value === undefined) return undefined
      const parsed = parseJson(value, key, threadId)
      if (!isPlainObject(parsed))
        throw corruptError(prefix, key, `slot '${name}' holding JSON that is not an object`, threadId)
      return parsed as JsonObject
    },

    async setSlot(
      threadId: string,
      name: string,
      value: JsonObject | undefined,
      options?: LeaseWriteOptions,
    ): Promise<void> {
      assertThreadId(threadId)
      checkSlotName(name, 'setSlot')
      checkSlotValue(value)
      epochs.checkLost(threadId)
      const lease = leaseOfWrite(options, 'setSlot') ?? ''
      const keys = threadKeys(prefix, threadId)
      checkOpen()
      let reply: unknown
      try {
        reply = await connection.evaluate(SET_SLOT_SCRIPT, threadKeyList(keys), [
          ttl,
          name,
          value === undefined ? '' : JSON.stringify(value),
          lease,
        ])
      } catch (error) {
        throw storeError(error, prefix, keys.slots, 'EVALSHA', threadId)
      }
      const [status, remaining] = scriptReply(reply, threadId)
      if (status === 'busy') throw busyError(threadId, Number(remaining))
    },
  }
}
