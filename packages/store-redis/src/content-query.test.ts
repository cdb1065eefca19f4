import type { ContentRecord } from '@strata-memory/core'
import { describe, expect, it } from 'vitest'
import { redisStore } from './redis-store'
import { connectTestClient } from './testing/redis-admin'
import { redisTestRun } from './testing/suite-redis'

/*
 * queryContent used to fetch every record of the thread, data included (HVALS), then filter: each
 * resource recall paid for every record ever stored. It filters on the content-meta hash now and
 * fetches only the records that match.
 */

const run = redisTestRun('content-query')
const { newPrefix } = run

const record = (id: string, ts: number, overrides: Partial<ContentRecord> = {}): ContentRecord => ({
  id,
  type: 'text',
  tags: [],
  ts,
  size: 200,
  data: `${id}:${'x'.repeat(200)}`,
  ...overrides,
})

/** Every string of a reply, nested arrays included. */
const stringsOf = (reply: unknown): string[] =>
  Array.isArray(reply) ? reply.flatMap(stringsOf) : typeof reply === 'string' ? [reply] : []

/**
 * A store on its own connection, whose replies are counted: how many content records (their data)
 * came over the wire. The client is the real one; only `sendCommand` is observed.
 */
async function countedStore(prefix: string) {
  const client = await connectTestClient(run.url)
  const received = { records: 0 }
  const observed = new Proxy(client, {
    get(target, property) {
      const value = Reflect.get(target, property, target)
      if (property !== 'sendCommand') return typeof value === 'function' ? value.bind(target) : value
      return async (...args: unknown[]) => {
        const reply = await (value as (...args: unknown[]) => Promise<unknown>).apply(target, args)
        received.records += stringsOf(reply).filter((text) => text.includes('"data":')).length
        return reply
      }
    },
  })
  const store = redisStore({ client: observed, prefix })
  return {
    store,
    /** Records received while `action` ran. */
    async records<T>(action: () => Promise<T>): Promise<{ result: T; records: number }> {
      const before = received.records
      const result = await action()
      return { result, records: received.records - before }
    },
    close: async () => {
      await store.close()
      await client.close()
    },
  }
}

const RECORDS = 2_000

describe('redisStore queryContent fetches the data of the records that match, not of every record', () => {
  it('a fromTs query matching 1 of 2,000 records receives 1 record', async () => {
    const counted = await countedStore(newPrefix())
    try {
      for (let start = 0; start < RECORDS; start += 200) {
        await Promise.all(
          Array.from({ length: 200 }, (_, index) =>
            counted.store.putContent('t', record(`m_${start + index}`, start + index)),
          ),
        )
      }
      expect(await counted.records(() => counted.store.queryContent('t', { fromTs: RECORDS - 1 }))).toEqual({
        result: [record(`m_${RECORDS - 1}`, RECORDS - 1)],
        records: 1,
      })
      expect(
        (await counted.records(() => counted.store.queryContent('t', { fromTs: RECORDS }))).records,
      ).toBe(0)
      const limited = await counted.records(() => counted.store.queryContent('t', { limit: 2 }))
      expect(limited.result.map(({ id }) => id)).toEqual([`m_${RECORDS - 1}`, `m_${RECORDS - 2}`])
      expect(limited.records).toBe(2)
    } finally {
      await counted.close()
    }
  })

  it('a thread written before the content-meta hash is read whole once, then through the hash', async () => {
    const prefix = newPrefix()
    const counted = await countedStore(prefix)
    try {
      const content = `${prefix}:{t}:content`
      const meta = `${prefix}:{t}:content-meta`
      // As the store wrote a thread before: records only.
      for (let index = 0; index < 20; index++) {
        await run.admin.hSet(content, `m_${index}`, JSON.stringify(record(`m_${index}`, index)))
      }
      await run.admin.expire(content, 600)
      expect(await counted.records(() => counted.store.queryContent('t', { fromTs: 19 }))).toEqual({
        result: [record('m_19', 19)],
        records: 20,
      })
      expect(await run.admin.hLen(meta)).toBe(20)
      expect(await run.admin.ttl(meta)).toBeGreaterThan(590)
      expect(await counted.records(() => counted.store.queryContent('t', { fromTs: 19 }))).toEqual({
        result: [record('m_19', 19)],
        records: 1,
      })
    } finally {
      await counted.close()
    }
  })

  it('a record written without its fields (an older store) sends the query to the records themselves', async () => {
    const prefix = newPrefix()
    const counted = await countedStore(prefix)
    try {
      await counted.store.putContent('t', record('new', 1))
      await counted.store.putContent('t', record('replaced', 2, { type: 'old' }))
      // An older store beside this one: a record added, and one replaced, in the content hash alone.
      await run.admin.hSet(`${prefix}:{t}:content`, 'old', JSON.stringify(record('old', 3, { tags: ['a'] })))
      expect((await counted.store.queryContent('t', { tags: ['a'] })).map(({ id }) => id)).toEqual(['old'])
      expect((await counted.store.queryContent('t')).map(({ id }) => id)).toEqual(['old', 'replaced', 'new'])
      // Replaced by this store: its fields replaced with it.
      await counted.store.putContent('t', record('replaced', 2, { type: 'new' }))
      expect((await counted.store.queryContent('t', { type: 'new' })).map(({ id }) => id)).toEqual([
        'replaced',
      ])
      expect(await counted.store.queryContent('t', { type: 'old' })).toEqual([])
    } finally {
      await counted.close()
    }
  })

  it('deleteThread removes the content-meta hash with the records', async () => {
    const prefix = newPrefix()
    const counted = await countedStore(prefix)
    try {
      await counted.store.putContent('t', record('a', 1))
      expect(await run.admin.exists(`${prefix}:{t}:content-meta`)).toBe(1)
      await counted.store.deleteThread('t')
      expect(await run.admin.exists([`${prefix}:{t}:content`, `${prefix}:{t}:content-meta`])).toBe(0)
      await counted.store.putContent('t', record('b', 2))
      expect(await counted.store.queryContent('t')).toEqual([record('b', 2)])
    } finally {
      await counted.close()
    }
  })
})
