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
import { CONTENT_FIELDS_SCRIPT, FILL_CONTENT_FIELDS_SCRIPT } from './content-scripts'
import { PUT_CONTENT_SCRIPT } from './lua-scripts'
import type { RedisContext } from './redis-context'
import { type ThreadKeys, threadKeys } from './thread-keys'

/** What the content-meta hash keeps of a record (its id is the field): what queries filter and sort on. */
type RecordFields = Pick<ContentRecord, 'id' | 'type' | 'source' | 'level' | 'tags' | 'ts'>

const fieldsJson = ({ type, source, level, tags, ts }: ContentRecord): string =>
  JSON.stringify({ type, source, level, tags, ts })

/** Records fetched by one HMGET when a query reads the matches in turn (a limit, a text filter). */
const FETCH_AT_ONCE = 100

/**
 * The store's content channel: one hash of records per thread, and one of their fields (content-meta,
 * see ThreadKeys) that queries filter on, so that they fetch only the records that match.
 */
export function redisContent(context: RedisContext): StoreContentMethods {
  const { prefix, ttl, send, run, register, parseRecord } = context

  /** The fields of every record, or undefined when the content-meta hash does not cover the thread. */
  const listFields = async (threadId: string, keys: ThreadKeys): Promise<RecordFields[] | undefined> => {
    const reply = await run(CONTENT_FIELDS_SCRIPT, threadId, keys, [])
    if (reply[0] !== 'ok') return undefined
    const listed: RecordFields[] = []
    for (let index = 1; index + 1 < reply.length; index += 2) {
      let fields: RecordFields
      try {
        fields = { ...JSON.parse(reply[index + 1]!), id: reply[index]! }
      } catch {
        return undefined
      }
      if (typeof fields.ts !== 'number' || !Array.isArray(fields.tags)) return undefined
      listed.push(fields)
    }
    return listed
  }

  /** Every record, read whole: a thread the content-meta hash does not cover, which it then does. */
  const readWhole = async (threadId: string, keys: ThreadKeys): Promise<ContentRecord[]> => {
    const values = (await send(keys.content, ['HVALS', keys.content], threadId)) as unknown[]
    const records = values.map((value) => parseRecord(value, keys.content, threadId))
    if (records.length > 0) {
      const entries = records.flatMap((record) => [record.id, fieldsJson(record)])
      // Best effort: the next query reads the thread whole again if this did not land.
      await run(FILL_CONTENT_FIELDS_SCRIPT, threadId, keys, entries).catch(() => {})
    }
    return records
  }

  return {
    async putContent(threadId: string, record: ContentRecord): Promise<void> {
      assertThreadId(threadId)
      checkContentRecord(record)
      assertSerializable(record, 'record')
      const keys = threadKeys(prefix, threadId)
      await Promise.all([
        register(threadId),
        run(PUT_CONTENT_SCRIPT, threadId, keys, [ttl, record.id, JSON.stringify(record), fieldsJson(record)]),
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
      const listed = await listFields(threadId, keys)
      if (listed === undefined) {
        const matches = (await readWhole(threadId, keys)).filter((record) =>
          matchesContentQuery(record, query),
        )
        matches.sort(compareContentNewestFirst)
        return matches.slice(0, query.limit ?? matches.length)
      }
      // Without `text`, matching looks at the fields only (never at data).
      const filters: ContentQuery = { ...query, text: undefined }
      const candidates = listed.filter((fields) => matchesContentQuery(fields as ContentRecord, filters))
      candidates.sort((left, right) =>
        compareContentNewestFirst(left as ContentRecord, right as ContentRecord),
      )
      const limit = query.limit ?? candidates.length
      const matches: ContentRecord[] = []
      let next = 0
      while (next < candidates.length && matches.length < limit) {
        // Newest first, no more than the limit still needs unless a text filter may drop some; without
        // a limit, every candidate at once.
        const wanted =
          query.limit === undefined
            ? candidates.length
            : query.text === undefined
              ? limit - matches.length
              : FETCH_AT_ONCE
        const ids = candidates.slice(next, next + wanted).map(({ id }) => id)
        next += ids.length
        const values = (await send(keys.content, ['HMGET', keys.content, ...ids], threadId)) as unknown[]
        for (const value of values) {
          if (value === null || value === undefined) continue
          // A record replaced since its fields were read is checked as it is now.
          const record = parseRecord(value, keys.content, threadId)
          if (matchesContentQuery(record, query)) matches.push(record)
        }
      }
      matches.sort(compareContentNewestFirst)
      return matches.slice(0, limit)
    },
  }
}
