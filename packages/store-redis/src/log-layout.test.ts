import { inMemoryStore, StrataError, type StrataErrorCode, type StrataStore } from '@strata-memory/core'
import { makeItems, withSeqs } from '@strata-memory/core/testing'
import fc from 'fast-check'
import type { RedisClientType } from 'redis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RedisStore, redisStore } from './redis-store'
import { APPEND_PATHS, largeItems } from './testing/item-sizes'
import { cleanUpAndClose, connectTestClient, keysMatching } from './testing/redis-admin'
import { type TestRedis, testRedis } from './testing/redis-server'

/*
 * The log layout: one list of every item (active or archived) in seq order, an archived bitmap, and
 * appends that take one of two paths by size: a script that carries the items' JSON (small appends),
 * or a transaction whose native RPUSHX carries it through a gate the script opens (larger ones).
 */

let redis: TestRedis
let admin: RedisClientType
let client: RedisClientType
const RUN_PREFIX = `strata-test-layout-${process.pid}-${Math.random().toString(36).slice(2, 8)}`
let prefixCounter = 0
const newPrefix = () => `${RUN_PREFIX}-${++prefixCounter}`
const opened: RedisStore[] = []
const open = (options: { prefix?: string; ttlSeconds?: number } = {}) => {
  const store = redisStore({ client, prefix: newPrefix(), ...options })
  opened.push(store)
  return store
}

beforeAll(async () => {
  redis = await testRedis()
  admin = await connectTestClient(redis.url)
  client = await connectTestClient(redis.url)
})

afterAll(async () => {
  await Promise.all(opened.map((store) => store.close()))
  await client?.close()
  await cleanUpAndClose(admin, `${RUN_PREFIX}*`)
  await redis?.stop()
})

async function expectCode(call: () => Promise<unknown>, code: StrataErrorCode): Promise<StrataError> {
  const error = await call().then(
    () => undefined,
    (caught: unknown) => caught,
  )
  if (!StrataError.isInstance(error, code)) throw new Error(`expected ${code}, got ${String(error)}`)
  return error
}

/** Every key under the store's prefix with its type and content, to prove nothing changed. */
const snapshot = async (prefix: string) => {
  const keys = (await keysMatching(admin, `${prefix}:*`)).filter((key) => !key.endsWith(':threads'))
  return Promise.all(keys.map(async (key) => [key, await admin.type(key), await admin.dump(key)]))
}

describe.each(APPEND_PATHS)('appends on the %s', (_path, itemsOf) => {
  it('stores, re-sends and refuses exactly as the contract says, leaving no gate key', async () => {
    const prefix = newPrefix()
    const store = open({ prefix })
    const first = itemsOf(3)
    const stored = await store.append('t', first, { expectedSeq: 0 })
    expect(stored).toStrictEqual(withSeqs(first))
    // A re-send, with the stale expectedSeq and with another one, returns what was stored.
    expect(await store.append('t', first, { expectedSeq: 0 })).toStrictEqual(stored)
    const second = itemsOf(2)
    const later = await store.append('t', second, { expectedSeq: 3 })
    expect(later).toStrictEqual(withSeqs(second, 3))
    expect(await store.append('t', first, { expectedSeq: 5 })).toStrictEqual(stored)
    await store.archive('t', { seqs: [2] })
    expect(await store.append('t', first, { expectedSeq: 5 })).toStrictEqual(stored)

    const before = await snapshot(prefix)
    await expectCode(() => store.append('t', itemsOf(1), { expectedSeq: 4 }), 'STRATA_SEQ_CONFLICT')
    await expectCode(
      () => store.append('t', [{ ...first[0]!, ts: 1 }], { expectedSeq: 5 }),
      'STRATA_DUPLICATE_ITEM_ID',
    )
    await expectCode(
      () => store.append('t', [...itemsOf(1), first[1]!], { expectedSeq: 5 }),
      'STRATA_DUPLICATE_ITEM_ID',
    )
    expect(await snapshot(prefix)).toEqual(before)
    expect((await keysMatching(admin, `${prefix}:*`)).filter((key) => key.includes(':gate:'))).toEqual([])
    expect(await store.read('t')).toStrictEqual([stored[0], stored[2], ...later])
    expect(await store.readArchive('t')).toStrictEqual([stored[1]])
    expect(await store.head('t')).toEqual({ lastSeq: 5, activeCount: 4, archivedCount: 1 })
  })

  it('writes nothing to a foreign value under the log or the id index', async () => {
    const cases: [string, (prefix: string) => Promise<unknown>][] = [
      ['a list without our header', (prefix) => admin.rPush(`${prefix}:{t}:log`, ['not', 'ours'])],
      ['a string at the log', (prefix) => admin.set(`${prefix}:{t}:log`, 'not ours')],
      ['a string at the id index', (prefix) => admin.set(`${prefix}:{t}:ids`, 'not ours')],
      ['a seq counter that is not a number', (prefix) => admin.hSet(`${prefix}:{t}:ids`, '', 'x')],
    ]
    for (const [name, plant] of cases) {
      const prefix = newPrefix()
      const store = open({ prefix })
      await plant(prefix)
      const before = await snapshot(prefix)
      const error = await expectCode(
        () => store.append('t', itemsOf(2), { expectedSeq: 0 }),
        'STRATA_CORRUPT_LOG',
      )
      expect(String(error.details.key), name).toMatch(/:(log|ids)$/)
      expect(await snapshot(prefix), name).toEqual(before)
    }
  })

  it('refuses a foreign value planted between two appends of one store: no check is cached', async () => {
    const replace = (key: string, write: () => Promise<unknown>) => async () => {
      await admin.del(key)
      await write()
    }
    const cases: [string, string, (prefix: string) => () => Promise<unknown>][] = [
      // As long as our log (a header and two items): only the header tells it apart.
      [
        'a list as long as ours without our header',
        'log',
        (prefix) =>
          replace(`${prefix}:{t}:log`, () => admin.rPush(`${prefix}:{t}:log`, ['not', 'ours', '!'])),
      ],
      [
        'a string at the log',
        'log',
        (prefix) => replace(`${prefix}:{t}:log`, () => admin.set(`${prefix}:{t}:log`, 'not ours')),
      ],
      [
        'a string at the id index',
        'ids',
        (prefix) => replace(`${prefix}:{t}:ids`, () => admin.set(`${prefix}:{t}:ids`, 'not ours')),
      ],
      [
        'a seq counter that is not a number',
        'ids',
        (prefix) => () => admin.hSet(`${prefix}:{t}:ids`, '', 'x'),
      ],
    ]
    for (const [name, key, plant] of cases) {
      const prefix = newPrefix()
      const store = open({ prefix })
      await store.append('t', itemsOf(1), { expectedSeq: 0 })
      await store.append('t', itemsOf(1), { expectedSeq: 1 })
      await plant(prefix)()
      const before = await snapshot(prefix)
      const error = await expectCode(
        () => store.append('t', itemsOf(1), { expectedSeq: 2 }),
        'STRATA_CORRUPT_LOG',
      )
      expect(error.details.key, name).toBe(`${prefix}:{t}:${key}`)
      expect(await snapshot(prefix), name).toEqual(before)
    }
  })

  it('refuses a thread whose log and seq counter disagree, writing nothing', async () => {
    const prefix = newPrefix()
    const store = open({ prefix })
    await store.append('t', itemsOf(2), { expectedSeq: 0 })
    await store.append('u', itemsOf(2), { expectedSeq: 0 })
    await admin.del(`${prefix}:{t}:log`)
    await admin.del(`${prefix}:{u}:ids`)
    const before = await snapshot(prefix)
    const lost = await expectCode(
      () => store.append('t', itemsOf(1), { expectedSeq: 2 }),
      'STRATA_CORRUPT_LOG',
    )
    expect(lost.details.key).toBe(`${prefix}:{t}:log`)
    const orphan = await expectCode(
      () => store.append('u', itemsOf(1), { expectedSeq: 0 }),
      'STRATA_CORRUPT_LOG',
    )
    expect(orphan.details.key).toBe(`${prefix}:{u}:ids`)
    expect(await snapshot(prefix)).toEqual(before)
  })

  it('loads its script again when the server forgot it, and writes once', async () => {
    const store = open()
    await store.append('t', itemsOf(1), { expectedSeq: 0 })
    if (redis.owned) await admin.scriptFlush()
    const batch = itemsOf(2)
    expect(await store.append('t', batch, { expectedSeq: 1 })).toStrictEqual(withSeqs(batch, 1))
    expect((await store.read('t')).map((item) => item.seq)).toEqual([1, 2, 3])
  })

  it('sets and refreshes the ttl on every key, the log included', async () => {
    const prefix = newPrefix()
    const store = open({ prefix, ttlSeconds: 300 })
    await store.append('t', itemsOf(2), { expectedSeq: 0 })
    await store.archive('t', { seqs: [1] })
    await admin.expire(`${prefix}:{t}:log`, 20)
    await store.append('t', itemsOf(2), { expectedSeq: 2 })
    for (const name of ['log', 'archived', 'ids']) {
      expect(await admin.ttl(`${prefix}:{t}:${name}`), name).toBeGreaterThan(290)
    }
  })
})

describe('a refused one-item append', () => {
  /** The thread's log and id index, as DUMP has them, and their contents. */
  const logAndIndex = async (prefix: string) => {
    const log = `${prefix}:{t}:log`
    const ids = `${prefix}:{t}:ids`
    return {
      dumps: [await admin.dump(log), await admin.dump(ids)],
      log: await admin.lRange(log, 0, -1),
      ids: await admin.hGetAll(ids),
    }
  }

  it('leaves the log and the id index exactly as they were after a conflict, behind or ahead', async () => {
    const prefix = newPrefix()
    const store = open({ prefix })
    for (let seq = 0; seq < 3; seq++) await store.append('t', makeItems(1), { expectedSeq: seq })
    const before = await logAndIndex(prefix)
    for (const expectedSeq of [2, 1, 4, 9]) {
      const error = await expectCode(
        () => store.append('t', makeItems(1), { expectedSeq }),
        'STRATA_SEQ_CONFLICT',
      )
      expect(error.details).toMatchObject({ expectedSeq, actualSeq: 3 })
      expect(await logAndIndex(prefix), `expectedSeq ${expectedSeq}`).toEqual(before)
    }
    expect(await store.head('t')).toEqual({ lastSeq: 3, activeCount: 3, archivedCount: 0 })
  })

  it('writes nothing for a stored id: a re-send returns the stored item, another item is a duplicate', async () => {
    const prefix = newPrefix()
    const store = open({ prefix })
    const [stored] = await store.append('t', makeItems(1), { expectedSeq: 0 })
    const { seq: _seq, ...sent } = stored!
    await store.append('t', makeItems(1), { expectedSeq: 1 })
    const before = await logAndIndex(prefix)
    for (const expectedSeq of [0, 1, 2]) {
      expect(await store.append('t', [sent], { expectedSeq })).toStrictEqual([stored])
      expect(await logAndIndex(prefix)).toEqual(before)
      await expectCode(
        () => store.append('t', [{ ...sent, ts: sent.ts + 1 }], { expectedSeq }),
        'STRATA_DUPLICATE_ITEM_ID',
      )
      expect(await logAndIndex(prefix)).toEqual(before)
    }
  })
})

describe('reads after archiving anywhere', () => {
  it('archives from the middle, then reads every range as the in-memory store does', async () => {
    const operation = fc.oneof(
      fc.record({
        kind: fc.constant('append' as const),
        count: fc.integer({ min: 1, max: 12 }),
        large: fc.boolean(),
      }),
      fc.record({
        kind: fc.constant('archive' as const),
        seqs: fc.array(fc.integer({ min: -1, max: 60 }), { maxLength: 8 }),
      }),
    )
    const bound = fc.option(fc.integer({ min: -2, max: 64 }), { nil: undefined })
    const read = fc.record({ fromSeq: bound, toSeq: bound, limit: fc.option(fc.nat(12), { nil: undefined }) })
    await fc.assert(
      fc.asyncProperty(
        fc.array(operation, { minLength: 1, maxLength: 10 }),
        fc.array(read, { maxLength: 6 }),
        async (operations, reads) => {
          const store: StrataStore = open()
          const model = inMemoryStore()
          for (const step of operations) {
            if (step.kind === 'append') {
              const items = step.large ? largeItems(makeItems(step.count)) : makeItems(step.count)
              const { lastSeq } = await model.head('t')
              const expected = await model.append('t', items, { expectedSeq: lastSeq })
              expect(await store.append('t', items, { expectedSeq: lastSeq })).toStrictEqual(expected)
            } else {
              const expected = await model.archive('t', { seqs: step.seqs })
              expect(await store.archive('t', { seqs: step.seqs })).toBe(expected)
            }
          }
          expect(await store.head('t')).toEqual(await model.head('t'))
          for (const options of [{}, ...reads]) {
            expect(await store.read('t', options)).toStrictEqual(await model.read('t', options))
            expect(await store.readArchive('t', options)).toStrictEqual(await model.readArchive('t', options))
          }
        },
      ),
      { numRuns: 40 },
    )
  })

  it('reads the active items on both sides of a long archived stretch', async () => {
    const store = open()
    const items = makeItems(2_000)
    await store.append('t', items, { expectedSeq: 0 })
    const archived = Array.from({ length: 1_990 }, (_, index) => index + 1).filter((seq) => seq !== 700)
    expect(await store.archive('t', { seqs: archived })).toBe(1_989)
    const active = await store.read('t')
    expect(active.map((item) => item.seq)).toEqual([
      700, 1_991, 1_992, 1_993, 1_994, 1_995, 1_996, 1_997, 1_998, 1_999, 2_000,
    ])
    expect((await store.read('t', { fromSeq: 701, limit: 3 })).map((item) => item.seq)).toEqual([
      1_991, 1_992, 1_993,
    ])
    expect((await store.readArchive('t', { fromSeq: 698, toSeq: 702 })).map((item) => item.seq)).toEqual([
      698, 699, 701, 702,
    ])
    expect(await store.head('t')).toEqual({ lastSeq: 2_000, activeCount: 11, archivedCount: 1_989 })
  })

  it('reads runs that cover whole bytes of the archived bitmap, up to a limit and bounds', async () => {
    const store = open()
    const model = inMemoryStore()
    const items = makeItems(70)
    await store.append('t', items, { expectedSeq: 0 })
    await model.append('t', items, { expectedSeq: 0 })
    // Seqs 8 to 31 fill bytes 1 to 3 of the bitmap; 45 leaves one byte mixed.
    const seqs = [...Array.from({ length: 24 }, (_, index) => index + 8), 45]
    expect(await store.archive('t', { seqs })).toBe(await model.archive('t', { seqs }))
    const ranges = [{}, { limit: 9 }, { limit: 8 }, { limit: 16 }, { fromSeq: 3, limit: 30 }]
    for (const options of [...ranges, { fromSeq: 32, limit: 8 }, { fromSeq: 9, toSeq: 40 }, { toSeq: 63 }]) {
      expect(await store.read('t', options)).toStrictEqual(await model.read('t', options))
      expect(await store.readArchive('t', options)).toStrictEqual(await model.readArchive('t', options))
    }
  })
})
