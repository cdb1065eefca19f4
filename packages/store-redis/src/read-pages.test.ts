import { type Item, inMemoryStore } from '@strata-memory/core'
import { makeItems, makeMessageItem } from '@strata-memory/core/testing'
import fc from 'fast-check'
import type { RedisClientType } from 'redis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { nextPageItems, pagesOf, READ_PAGE } from './read-pages'
import { type RedisStore, redisStore } from './redis-store'
import { cleanUpAndClose, connectTestClient } from './testing/redis-admin'
import { type TestRedis, testRedis } from './testing/redis-server'

/*
 * A read of a long log fetches it a page at a time (a round trip each) and parses each page before the
 * next: a 100k-item open no longer holds every element as a string beside its item. Pages are sized by
 * the characters of their elements (READ_PAGE): a log of large items is read in pages of fewer items.
 */
const { firstItems: FIRST, maxItems: MAX } = READ_PAGE

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
  it('cuts runs of seqs into pages of the size asked for each page, covering every seq once, in order', () => {
    const run = fc.tuple(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 60 }))
    const sizes = fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1, maxLength: 8 })
    fc.assert(
      fc.property(fc.array(run, { maxLength: 12 }), sizes, (gaps, sizeList) => {
        const runs: [number, number][] = []
        let next = 1
        for (const [gap, length] of gaps) {
          runs.push([next + gap, next + gap + length - 1])
          next += gap + length + 1
        }
        let asked = 0
        const pages = [...pagesOf(planOf(runs), () => sizeList[asked++ % sizeList.length]!)]
        const seqs = (ranges: [number, number][]) =>
          ranges.flatMap(([from, to]) => Array.from({ length: to - from + 1 }, (_, index) => from + index))
        expect(pages.flatMap(seqs)).toEqual(seqs(runs))
        for (const [index, page] of pages.entries()) {
          const count = seqs(page).length
          const size = sizeList[index % sizeList.length]!
          expect(count).toBeGreaterThan(0)
          if (index < pages.length - 1) expect(count).toBe(size)
          else expect(count).toBeLessThanOrEqual(size)
        }
      }),
    )
  })
})

describe('nextPageItems', () => {
  it("asks for as many items as fit in READ_PAGE.chars at the last page's average size, from 1 to READ_PAGE.maxItems", () => {
    expect(nextPageItems(100, 100 * 8_192)).toBe(READ_PAGE.chars / 8_192)
    expect(nextPageItems(10, 10 * 200)).toBe(MAX)
    expect(nextPageItems(1, 4 * READ_PAGE.chars)).toBe(1)
    expect(nextPageItems(0, 0)).toBe(MAX)
  })
})

describe('a read of a log longer than a page', () => {
  // Small items: a first page of FIRST items, then pages of MAX.
  const length = FIRST + 2 * MAX + 500
  /** Active items that `count` pages hold, the first holding FIRST. */
  const pagesFor = (count: number) => (count <= FIRST ? 1 : 1 + Math.ceil((count - FIRST) / MAX))

  it('reads every active and archived range as the in-memory store does, a page per round trip', async () => {
    const { store, client } = await open()
    const model = inMemoryStore()
    const items = makeItems(length)
    await store.append('t', items, { expectedSeq: 0 })
    await model.append('t', items, { expectedSeq: 0 })
    // Archived stretches across the page boundaries and a lone archived seq in a page.
    const archived = [
      ...Array.from({ length: 40 }, (_, index) => FIRST - 20 + index),
      ...Array.from({ length: 300 }, (_, index) => FIRST + MAX - 150 + index),
      FIRST + MAX + 777,
      ...Array.from({ length: 10 }, (_, index) => FIRST + 2 * MAX - 3 + index),
    ]
    expect(await store.archive('t', { seqs: archived })).toBe(await model.archive('t', { seqs: archived }))

    const pages: number[] = []
    onTransactions(client, (commands) => {
      if (commands.some(([name]) => name === 'LRANGE')) pages.push(commands.length - 1)
    })
    const active = await store.read('t')
    expect(active).toStrictEqual(await model.read('t'))
    // The first page, full pages and the rest, each one transaction.
    expect(active).toHaveLength(length - archived.length)
    expect(pages).toHaveLength(pagesFor(active.length))
    expect(await store.readArchive('t')).toStrictEqual(await model.readArchive('t'))
    for (const options of [
      { fromSeq: FIRST - 10, toSeq: FIRST + MAX + 10 },
      { fromSeq: 5, limit: FIRST + MAX + 3 },
    ]) {
      expect(await store.read('t', options)).toStrictEqual(await model.read('t', options))
      expect(await store.readArchive('t', options)).toStrictEqual(await model.readArchive('t', options))
    }
  })

  it('sends each page before it gives the one before it: Redis reads the next page meanwhile', async () => {
    const { store, client } = await open()
    await store.append('t', makeItems(length), { expectedSeq: 0 })
    let sent = 0
    onTransactions(client, (commands) => {
      if (commands.some(([name]) => name === 'LRANGE')) sent++
    })
    const sentWhenGiven: number[] = []
    for await (const _page of store.readActivePages!('t')) sentWhenGiven.push(sent)
    // Four pages: each given once the next one is on its way (none after the last).
    expect(sentWhenGiven).toEqual([2, 3, 4, 4])
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
    expect(sizes).toEqual([FIRST, MAX, MAX, length - FIRST - 2 * MAX])
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
    expect(given).toEqual([FIRST])
    expect(error).toMatchObject({ code: 'STRATA_SEQ_CONFLICT', details: { threadId: 't' } })
  })
})

describe('a read of a log of large items', () => {
  it('takes pages of about READ_PAGE.chars characters, each sized from the page before it', async () => {
    const { store, prefix } = await open()
    const model = inMemoryStore()
    // Items of 4,000 to 16,000 characters, in no order: a few dozen fit in READ_PAGE.chars.
    const items = Array.from({ length: 300 }, (_, index) =>
      makeMessageItem({ text: `${index} ${'x'.repeat(4_000 + ((index * 7_919) % 12_000))}` }),
    )
    await store.append('t', items, { expectedSeq: 0 })
    await model.append('t', items, { expectedSeq: 0 })
    const lengths = (await admin.lRange(`${prefix}:{t}:log`, 1, -1)).map((element) => element.length)
    const sum = (values: number[]) => values.reduce((total, value) => total + value, 0)
    const expected: number[][] = []
    for (let from = 0, size = FIRST; from < lengths.length; ) {
      const page = lengths.slice(from, from + size)
      expected.push(page)
      size = nextPageItems(page.length, sum(page))
      from += page.length
    }
    const sizes: number[] = []
    for await (const page of store.readActivePages!('t')) sizes.push(page.length)
    expect(sizes).toEqual(expected.map((page) => page.length))
    expect(sizes.length).toBeGreaterThan(4)
    // Past the first page (sized before any item was seen), each is near READ_PAGE.chars.
    for (const page of expected.slice(1)) expect(sum(page)).toBeLessThan(1.5 * READ_PAGE.chars)
    expect(await store.read('t')).toStrictEqual(await model.read('t'))
    expect(await store.read('t', { fromSeq: 90, limit: 50 })).toStrictEqual(
      await model.read('t', { fromSeq: 90, limit: 50 }),
    )
  })
})
