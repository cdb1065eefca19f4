import {
  assertSerializable,
  assertThreadId,
  type ContentQuery,
  type ContentRecord,
  invalidOptions,
  type StoreContentMethods,
} from '@strata-memory/core'
import {
  checkContentQuery,
  checkContentRecord,
  compareContentNewestFirst,
  matchesContentQuery,
} from '@strata-memory/core/store-kit'
import { PUT_CONTENT_SCRIPT } from './lua-scripts'
import type { RedisContext } from './redis-context'
import { threadKeys } from './thread-keys'

/** The store's content channel: one hash of records per thread. */
export function redisContent(context: RedisContext): StoreContentMethods {
  const { prefix, ttl, send, run, register, parseRecord } = context

  return {
    async putContent(threadId: string, record: ContentRecord): Promise<void> {
      assertThreadId(threadId)
      checkContentRecord(record)
      assertSerializable(record, 'record')
      const keys = threadKeys(prefix, threadId)
      await Promise.all([
        register(threadId),
        run(PUT_CONTENT_SCRIPT, threadId, keys, [ttl, record.id, JSON.stringify(record)]),
      ])
    },

    async getContent(threadId: string, id: string): Promise<ContentRecord | undefined> {
      assertThreadId(threadId)
      if (typeof id !== 'string')
        invalidOptions('getContent(threadId, id) needs the memory id as a string.', {})
      const keys = threadKeys(prefix, threadId)
      const value = await send(keys.content, ['HGET', keys.content, id], threadId)
      return value === null ? undefined : parseRecord(value, keys.content, threadId)
    },

    async queryContent(threadId: string, query: ContentQuery = {}): Promise<ContentRecord[]> {
      assertThreadId(threadId)
      checkContentQuery(query)
      const keys = threadKeys(prefix, threadId)
      const values = (await send(keys.content, ['HVALS', keys.content], threadId)) as unknown[]
      const matches = values
        .map((value) => parseRecord(value, keys.content, threadId))
        .filter((record) => matchesContentQuery(record, query))
      matches.sort(compareContentNewestFirst)
      return matches.slice(0, query.limit ?? matches.length)
    },
  }
}
