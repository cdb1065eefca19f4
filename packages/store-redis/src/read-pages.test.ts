import { type Item, inMemoryStore } from '@strata-memory/core'
import { makeItems } from '@strata-memory/core/testing'
import fc from 'fast-check'
import type { RedisClientType } from 'redis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pagesOf, READ_PAGE_ITEMS } from './redis-log'
import { type RedisStore, redisStore } from './redis-store'
import { cleanUpAndClose, connectTestClient } from './testing/redis-admin'
import { type TestRedis, testRedis } from './testing/redis-server'

/*
 * A read of a long log fetches it a page at a time (READ_PAGE_ITEMS items a round trip) and parses each
 * page before the next: a 100k-item open no longer holds every element as a string beside its item.
 */

let redis: TestRedis
let admin: RedisClientType
const RUN_PREFIX = `strata-test-pages-${process.pid}-${Math.random().toString(36).slice(2, 8)}`
let prefixCounter = 0
const clients: RedisClientType[] = []
const stores: RedisStore[] = []

/** A store on a client of its own, so a test may watch the transactions it sends. */
async function open(): Promise<{ store: RedisStore; client: RedisClientType; prefix: string }> {
  const client = await connectTestClient(redis.url)
  clients.push(client)
  const prefix = `${RUN_PREFIX}-${++prefixCounter}`
  const store = redisStore({ client, prefix })
  stores.push(store)
  return { store, client, prefix }
}

beforeAll(async () => {
  redis = await testRedis()
  admin = await connectTestClient(redis.url)
})

afterAll(async () => {
  await Promise.all(stores.map((store) => store.close()))
  await Promise.all(clients.map((client) => client.close()))
  await cleanUpAndClose(admin, `${RUN_PREFIX}*`)
  await redis?.stop()
})

/** A read plan's reply as READ_PLAN_SCRIPT gives it: two header fields, then each run's bounds. */
const planOf = (runs: [number, number][]) => [
  '',
  'header',
  '0',
  ...runs.flatMap(([from, to]) => [String(from), String(to)]),
]

/** Runs `action` on every MULTI the client sends; the read's pages are its LRANGE transactions. */
function onTransactions(client: RedisClientType, action: (commands: string[][]) => Promise<void> | void) {
  const multi = client.multi.bind(client)
  client.multi = (() => {
    const queued = multi()
    const commands: string[][] = []
    const addCommand = queued.addCommand.bind(queued)
    const exec = queued.exec.bind(queued)
    queued.addCommand = ((args: string[]) => {
      commands.push(args)
      return addCommand(args)
    }) as typeof queued.addCommand
    queued.exec = (async (...rest: Parameters<typeof exec>) => {
      await action(commands)
      return exec(...rest)
    }) as typeof queued.exec
    return queued
  }) as typeof client.multi
}

describe('pagesOf', () => {
  it('cuts runs of seqs into pages of at most the size, covering every seq once, in order', () => {
    const run = fc.tuple(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 60 }))
    fc.assert(
      fc.property(fc.array(run, { maxLength: 12 }), fc.integer({ min: 1, max: 50 }), (gaps, size) => {
        const runs: [number, number][] = []
        let next = 1
        for (const [gap, length] of gaps) {
          runs.push([next + gap, next + gap + length - 1])
          next += gap + length + 1
        }
        const pages = [...pagesOf(planOf(runs), size)]
        const seqs = (ranges: [number, number][]) =>
          ranges.flatMap(([from, to]) => Array.from({ length: to - from + 1 }, (_, index) => from + index))
        expect(pages.flatMap(seqs)).toEqual(seqs(runs))
        for (const [index, page] of pages.entries()) {
          const count = seqs(page).length
          expect(count).toBeGreaterThan(0)
          if (index < pages.length - 1) expect(count).toBe(size)
          else expect(count).toBeLessThanOrEqual(size)
        }
      }),
    )
  })
})

describe('a read of a log longer than a page', () => {
  const length = 2 * READ_PAGE_ITEMS + 500

  it('reads every active and archived range as the in-memory store does, a page per round trip', async () => {
    const { store, client } = await open()
    const model = inMemoryStore()
    const items = makeItems(length)
    await store.append('t', items, { expectedSeq: 0 })
    await model.append('t', items, { expectedSeq: 0 })
    // Archived stretches across both page boundaries and a lone archived seq in a page.
    const archived = [
      ...Array.from({ length: 300 }, (_, index) => READ_PAGE_ITEMS - 150 + index),
      READ_PAGE_ITEMS + 777,
      ...Array.from({ length: 10 }, (_, index) => 2 * READ_PAGE_ITEMS - 3 + index),
    ]
    expect(await store.archive('t', { seqs: archived })).toBe(await model.archive('t', { seqs: archived }))

    const pages: number[] = []
    onTransactions(client, (commands) => {
      if (commands.some(([name]) => name === 'LRANGE')) pages.push(commands.length - 1)
    })
    const active = await store.read('t')
    expect(active).toStrictEqual(await model.read('t'))
    // 2,500 items less 311 archived: two full pages and the rest, each one transaction.
    expect(active).toHaveLength(length - archived.length)
    const lranges = pages.length
    expect(lranges).toBe(Math.ceil(active.length / READ_PAGE_ITEMS))
    expect(await store.readArchive('t')).toStrictEqual(await model.readArchive('t'))
    for (const options of [
      { fromSeq: READ_PAGE_ITEMS - 10, toSeq: 2 * READ_PAGE_ITEMS + 10 },
      { fromSeq: 5, limit: READ_PAGE_ITEMS + 3 },
    ]) {
      expect(await store.read('t', options)).toStrictEqual(await model.read('t', options))
      expect(await store.readArchive('t', options)).toStrictEqual(await model.readArchive('t', options))
    }
  })

  it('starts over when the thread is re-created between two pages, and returns only the new thread', async () => {
    const { store, client, prefix } = await open()
    await store.append('t', makeItems(length), { expectedSeq: 0 })
    const replacement = makeItems(3)
    let pages = 0
    let recreated = false
    onTransactions(client, async (commands) => {
      if (!commands.some(([name]) => name === 'LRANGE')) return
      pages++
      // Before the second page of the first read: another process deletes the thread and starts it anew.
      if (pages === 2 && !recreated) {
        recreated = true
        const other = redisStore({ client: admin, prefix })
        await other.deleteThread('t')
        await other.append('t', replacement, { expectedSeq: 0 })
      }
    })
    const read: Item[] = await store.read('t')
    expect(recreated).toBe(true)
    expect(read.map((item) => item.id)).toEqual(replacement.map((item) => item.id))
  })

  it('readActivePages gives the log a page per round trip, and ends with STRATA_SEQ_CONFLICT when the thread is re-created under it', async () => {
    const { store, client, prefix } = await open()
    await store.append('t', makeItems(length), { expectedSeq: 0 })
    const sizes: number[] = []
    for await (const page of store.readActivePages!('t')) sizes.push(page.length)
    expect(sizes).toEqual([READ_PAGE_ITEMS, READ_PAGE_ITEMS, length - 2 * READ_PAGE_ITEMS])
    let pages = 0
    onTransactions(client, async (commands) => {
      if (!commands.some(([name]) => name === 'LRANGE') || ++pages !== 2) return
      const other = redisStore({ client: admin, prefix })
      await other.deleteThread('t')
      await other.append('t', makeItems(3), { expectedSeq: 0 })
    })
    const given: number[] = []
    const error = await (async () => {
      for await (const page of store.readActivePages!('t')) given.push(page.length)
    })().then(
      () => undefined,
      (caught: unknown) => caught,
    )
    expect(given).toEqual([READ_PAGE_ITEMS])
    expect(error).toMatchObject({ code: 'STRATA_SEQ_CONFLICT', details: { threadId: 't' } })
  })
})
