import { StrataError, type StrataErrorCode, type StrataStore } from '@strata-memory/core'
import { describeStoreConformance, makeContentRecord, makeItems, withSeqs } from '@strata-memory/core/testing'
import type { RedisClientType } from 'redis'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { redisStore } from './redis-store'
import { hashSlot } from './testing/hash-slot'
import { cleanUpAndClose, connectTestClient, keysMatching } from './testing/redis-admin'
import { type TestRedis, testRedis } from './testing/redis-server'

let redis: TestRedis
let admin: RedisClientType
/** Every prefix used here starts with this, so that a shared REDIS_URL is left as it was found. */
const RUN_PREFIX = `strata-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`
let prefixCounter = 0
const newPrefix = () => `${RUN_PREFIX}-${++prefixCounter}`

const connectedClient = () => connectTestClient(redis.url)

/** Keys under `prefix`, sorted. */
const keysUnder = (prefix: string) => keysMatching(admin, `${prefix}:*`)

beforeAll(async () => {
  redis = await testRedis()
  admin = await connectedClient()
})

afterAll(async () => {
  await cleanUpAndClose(admin, `${RUN_PREFIX}*`)
  await redis?.stop()
})

const clients = new Map<StrataStore, RedisClientType>()
describeStoreConformance(
  'redisStore',
  async () => {
    const client = await connectedClient()
    const store = redisStore({ client, prefix: RUN_PREFIX })
    clients.set(store, client)
    return store
  },
  {
    audit: true,
    slots: true,
    // Another process's store on the same database and prefix, with its own connection.
    twin: () => redisStore({ url: redis.url, prefix: RUN_PREFIX }),
    // Every write is one atomic script: a Redis log is never torn or half archived, so only a lost
    // item (an element overwritten by another program) can be made here.
    auditDamage: {
      dropItem: async (_store, threadId, seq) => {
        await admin.lSet(`${RUN_PREFIX}:{${threadId}}:log`, seq, 'not an item')
      },
    },
    cleanup: async (store) => {
      await clients.get(store)?.close()
      clients.delete(store)
    },
  },
)

async function expectCode(call: () => Promise<unknown>, code: StrataErrorCode): Promise<StrataError> {
  const error = await call().then(
    () => undefined,
    (caught: unknown) => caught,
  )
  if (!StrataError.isInstance(error, code)) throw new Error(`expected ${code}, got ${String(error)}`)
  return error
}

describe('redisStore', () => {
  let client: RedisClientType
  const opened: StrataStore[] = []
  const open = (options: Parameters<typeof redisStore>[0] = {}) => {
    const store = redisStore({ client, ...options })
    opened.push(store)
    return store
  }

  beforeAll(async () => {
    client = await connectedClient()
  })
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close?.()))
  })
  afterAll(async () => {
    await client?.close()
  })

  /** A thread with items, an archive, content and state. */
  const fullThread = async (store: StrataStore, threadId: string) => {
    await store.append(threadId, makeItems(4), { expectedSeq: 0 })
    await store.archive(threadId, { seqs: [1] })
    await store.putContent(threadId, makeContentRecord({ id: 'mem_1' }))
    await store.setState(threadId, { level: 'task' })
  }

  describe('key layout', () => {
    it('keeps a thread in one hash-tagged key family, all on one cluster slot', async () => {
      const prefix = newPrefix()
      const store = open({ prefix })
      await fullThread(store, 'user-42.chat-7')
      const family = ['archived', 'content', 'content-meta', 'ids', 'log', 'state'].map(
        (name) => `${prefix}:{user-42.chat-7}:${name}`,
      )
      expect(await keysUnder(prefix)).toEqual([...family, `${prefix}:threads`].sort())
      expect(new Set(family.map(hashSlot))).toEqual(new Set([hashSlot('user-42.chat-7')]))
      expect(await admin.type(`${prefix}:{user-42.chat-7}:log`)).toBe('list')
      expect(await admin.lLen(`${prefix}:{user-42.chat-7}:log`)).toBe(5)
      expect(await admin.hGet(`${prefix}:{user-42.chat-7}:ids`, '')).toBe('4')
      expect(await admin.getBit(`${prefix}:{user-42.chat-7}:archived`, 1)).toBe(1)
      expect(await admin.bitCount(`${prefix}:{user-42.chat-7}:archived`)).toBe(1)
      expect(await store.listThreads()).toEqual(['user-42.chat-7'])
    })

    it('stores items as readable JSON at their seq in one log list, after a header', async () => {
      const prefix = newPrefix()
      const store = open({ prefix })
      const items = await store.append('t', makeItems(2), { expectedSeq: 0 })
      const [header, ...members] = await admin.lRange(`${prefix}:{t}:log`, 0, -1)
      expect(header).toMatch(/^strata-log:1:[0-9a-f-]{36}$/)
      expect(members.map((member) => JSON.parse(member))).toStrictEqual(items)
      expect(await admin.hGetAll(`${prefix}:{t}:ids`)).toEqual({
        '': '2',
        [items[0]!.id]: '1',
        [items[1]!.id]: '2',
      })
      // A re-created thread gets a new header: reads can tell it from the one they started on.
      await store.deleteThread('t')
      await store.append('t', makeItems(1), { expectedSeq: 0 })
      expect(await admin.lIndex(`${prefix}:{t}:log`, 0)).not.toBe(header)
    })

    it('leaves no gate key behind, whatever the outcome of an append', async () => {
      const prefix = newPrefix()
      const store = open({ prefix, ttlSeconds: 600 })
      const [first] = makeItems(1)
      await store.append('t', [first!], { expectedSeq: 0 })
      await store.append('t', [first!], { expectedSeq: 0 })
      await expectCode(() => store.append('t', makeItems(1), { expectedSeq: 0 }), 'STRATA_SEQ_CONFLICT')
      await expectCode(
        () => store.append('t', [{ ...first!, ts: 1 }], { expectedSeq: 1 }),
        'STRATA_DUPLICATE_ITEM_ID',
      )
      await admin.set(`${prefix}:{u}:ids`, 'foreign')
      await expectCode(() => store.append('u', makeItems(1), { expectedSeq: 0 }), 'STRATA_CORRUPT_LOG')
      expect((await keysUnder(prefix)).filter((key) => key.includes(':gate:'))).toEqual([])
      expect(await admin.exists(`${prefix}:{u}:log`)).toBe(0)
    })
  })

  describe('options', () => {
    it('uses the prefix for every key, and prefixes keep stores apart', async () => {
      const first = newPrefix()
      const second = newPrefix()
      await open({ prefix: first }).append('shared-id', makeItems(2), { expectedSeq: 0 })
      const other = open({ prefix: second })
      expect(await other.head('shared-id')).toEqual({ lastSeq: 0, activeCount: 0, archivedCount: 0 })
      expect(await other.listThreads()).toEqual([])
      expect(await keysUnder(second)).toEqual([])
      expect((await keysUnder(first)).every((key) => key.startsWith(`${first}:`))).toBe(true)
    })

    it('rejects bad options with STRATA_INVALID_OPTIONS', () => {
      for (const options of [
        { prefix: '' },
        { prefix: 'a{b' },
        { prefix: 'a}b' },
        { prefix: 'a b' },
        { ttlSeconds: 0 },
        { ttlSeconds: 1.5 },
        { ttlSeconds: -1 },
        { timeoutMs: 0 },
        { timeoutMs: -5 },
        { timeoutMs: Number.NaN },
        { timeoutMs: '100' },
        { persistent: 'yes' },
        { url: 'redis://127.0.0.1:1' },
      ] as Record<string, unknown>[]) {
        let error: unknown
        try {
          redisStore({ client, ...options })
        } catch (caught) {
          error = caught
        }
        expect(StrataError.isInstance(error, 'STRATA_INVALID_OPTIONS'), JSON.stringify(options)).toBe(true)
      }
    })

    it('refuses a misspelt option rather than run without it (prefx would write under the default prefix)', () => {
      for (const [key, meant] of [
        ['prefx', 'prefix'],
        ['timeoutMS', 'timeoutMs'],
        ['expiresIn', undefined],
      ] as const) {
        let error: unknown
        try {
          redisStore({ client, [key]: 'x' } as never)
        } catch (caught) {
          error = caught
        }
        expect(StrataError.isInstance(error, 'STRATA_INVALID_OPTIONS'), key).toBe(true)
        expect((error as StrataError).details).toEqual(
          meant === undefined ? { option: key } : { option: key, suggestion: meant },
        )
        expect((error as Error).message).toContain(`redisStore(): unknown option '${key}'`)
      }
    })

    it('connects to url itself and closes only the client it created', async () => {
      const prefix = newPrefix()
      const own = redisStore({ url: redis.url, prefix })
      expect(own.name).toBe('redis')
      // Not claimed before the server was asked; the test server runs without persistence.
      expect(own.flags).toEqual({
        persistent: false,
        shared: true,
        leases: true,
        resources: true,
        audit: true,
        slots: true,
      })
      await own.append('t', makeItems(1), { expectedSeq: 0 })
      expect(own.flags.persistent).toBe(false)
      await own.close()
      await expectCode(() => own.head('t'), 'STRATA_STORE_FAILED')

      const borrowed = redisStore({ client, prefix })
      expect((await borrowed.head('t')).lastSeq).toBe(1)
      await borrowed.close()
      expect(client.isOpen).toBe(true)
      expect(await client.ping()).toBe('PONG')
    })
  })

  describe('ttl', () => {
    it('sets the ttl on every key of the thread and refreshes it on every write', async () => {
      const prefix = newPrefix()
      const store = open({ prefix, ttlSeconds: 300 })
      await fullThread(store, 't')
      const family = (await keysUnder(prefix)).filter((key) => key.includes('{t}'))
      // log, ids, archived, state, content and content-meta (the records' fields, written with them).
      expect(family).toHaveLength(6)
      const ttls = async () => Promise.all(family.map((key) => admin.ttl(key)))
      for (const ttl of await ttls()) expect(ttl).toBeGreaterThan(290)

      const writes: [string, () => Promise<unknown>][] = [
        ['append', () => store.append('t', makeItems(1), { expectedSeq: 4 })],
        ['archive', () => store.archive('t', { seqs: [2] })],
        ['putContent', () => store.putContent('t', makeContentRecord({ id: 'mem_2' }))],
        ['setState', () => store.setState('t', { level: 'project' })],
      ]
      for (const [name, write] of writes) {
        await Promise.all(family.map((key) => admin.expire(key, 20)))
        await write()
        for (const ttl of await ttls()) expect(ttl, name).toBeGreaterThan(290)
      }
    })

    it('gives the slots hash the ttl with the thread keys on a slot write, so it never outlives the log', async () => {
      const prefix = newPrefix()
      const store = open({ prefix, ttlSeconds: 300 })
      await fullThread(store, 't')
      const family = (await keysUnder(prefix)).filter((key) => key.includes('{t}'))
      await Promise.all(family.map((key) => admin.expire(key, 20)))
      await store.setSlot('t', 'log-digest', { a: 1 })
      const slots = `${prefix}:{t}:slots`
      expect(await admin.type(slots)).toBe('hash')
      expect(await admin.ttl(slots)).toBeGreaterThan(290)
      for (const key of family) expect(await admin.ttl(key), key).toBeGreaterThan(290)
      // Later writes extend the thread's keys only: the slots hash expires first, never after them.
      await store.setState('t', { level: 'project' })
      expect(await admin.ttl(`${prefix}:{t}:log`)).toBeGreaterThanOrEqual(await admin.ttl(slots))
    })

    it('sets no ttl by default', async () => {
      const prefix = newPrefix()
      await fullThread(open({ prefix }), 't')
      const family = (await keysUnder(prefix)).filter((key) => key.includes('{t}'))
      expect(await Promise.all(family.map((key) => admin.ttl(key)))).toEqual(family.map(() => -1))
    })
  })

  describe('foreign values under the prefix', () => {
    /** Every key of the prefix with its type and content, to prove nothing changed. */
    const snapshot = async (prefix: string) => {
      const keys = (await keysUnder(prefix)).filter((key) => !key.endsWith(':threads'))
      return Promise.all(keys.map(async (key) => [key, await admin.type(key), await admin.dump(key)]))
    }

    /** The keys each write uses; with a ttl every write uses all six (the ttl refresh touches them). */
    const USES: Record<string, string[]> = {
      append: ['log', 'ids'],
      archive: ['log', 'ids', 'archived'],
      putContent: ['content'],
      setState: ['state'],
    }

    for (const ttlSeconds of [undefined, 600]) {
      it(`refuses a write that uses a foreign key with STRATA_CORRUPT_LOG naming it, touching nothing (ttl ${ttlSeconds})`, async () => {
        for (const name of ['log', 'archived', 'ids', 'content', 'state']) {
          const prefix = newPrefix()
          const store = open({ prefix, ttlSeconds })
          await fullThread(store, 't')
          const key = `${prefix}:{t}:${name}`
          await admin.del(key)
          // A list is no type of ours but for the log, where a list without our header is foreign too.
          await admin.rPush(key, ['not', 'ours'])
          const writes: Record<string, () => Promise<unknown>> = {
            append: () => store.append('t', makeItems(1), { expectedSeq: 4 }),
            archive: () => store.archive('t', { seqs: [2, 3] }),
            putContent: () => store.putContent('t', makeContentRecord({ id: 'mem_9' })),
            setState: () => store.setState('t', { level: 'global' }),
          }
          for (const [method, write] of Object.entries(writes)) {
            if (ttlSeconds === undefined && !USES[method]!.includes(name)) continue
            const before = await snapshot(prefix)
            const error = await expectCode(write, 'STRATA_CORRUPT_LOG')
            expect(error.details.key, `${method} with a foreign ${name}`).toBe(key)
            expect(error.message).toContain(key)
            expect(await snapshot(prefix)).toEqual(before)
          }
        }
      })
    }

    it('refuses a slot write on a foreign slots key, and reads a foreign or unparseable slot as STRATA_CORRUPT_LOG', async () => {
      const prefix = newPrefix()
      const store = open({ prefix, ttlSeconds: 600 })
      await fullThread(store, 't')
      const key = `${prefix}:{t}:slots`
      await admin.rPush(key, ['not', 'ours'])
      const before = await snapshot(prefix)
      const error = await expectCode(() => store.setSlot('t', 'log-digest', { a: 1 }), 'STRATA_CORRUPT_LOG')
      expect(error.details.key).toBe(key)
      expect(await snapshot(prefix)).toEqual(before)
      await expectCode(() => store.getSlot('t', 'log-digest'), 'STRATA_CORRUPT_LOG')
      await admin.del(key)
      await admin.hSet(key, { 'log-digest': '{not json', other: '[1]' })
      for (const name of ['log-digest', 'other']) {
        const read = await expectCode(() => store.getSlot('t', name), 'STRATA_CORRUPT_LOG')
        expect(read.details.key).toBe(key)
      }
    })

    it('reports a wrong type or unparseable value on read as STRATA_CORRUPT_LOG naming the key', async () => {
      const prefix = newPrefix()
      const store = open({ prefix })
      await fullThread(store, 't')
      await fullThread(store, 'u')
      await admin.rPush(`${prefix}:{t}:log`, '{not json')
      await admin.set(`${prefix}:{t}:state`, '[1, 2]')
      await admin.hSet(`${prefix}:{t}:content`, 'mem_bad', 'garbage')
      await admin.del(`${prefix}:{u}:archived`)
      await admin.hSet(`${prefix}:{u}:archived`, 'not', 'a bitmap')
      const cases: [() => Promise<unknown>, string][] = [
        [() => store.read('t'), `${prefix}:{t}:log`],
        [() => store.getState('t'), `${prefix}:{t}:state`],
        [() => store.getContent('t', 'mem_bad'), `${prefix}:{t}:content`],
        [() => store.queryContent('t'), `${prefix}:{t}:content`],
        [() => store.readArchive('u'), `${prefix}:{u}:archived`],
        [() => store.head('u'), `${prefix}:{u}:archived`],
      ]
      for (const [call, key] of cases) {
        const error = await expectCode(call, 'STRATA_CORRUPT_LOG')
        expect(error.details.key).toBe(key)
      }
      // What is ours in the same thread is still readable.
      expect((await store.read('t', { toSeq: 4 })).map((item) => item.seq)).toEqual([2, 3, 4])
      expect(await store.getContent('t', 'mem_1')).toBeDefined()
    })
  })

  describe('thread ids', () => {
    it('rejects traversal and brace ids on every method and creates no key', async () => {
      const prefix = newPrefix()
      const store = open({ prefix })
      for (const threadId of ['../x', 'a/../../b', '{x}', 'a}b', 'a{b}c', '}{', 'x:y', '.']) {
        const calls = [
          () => store.append(threadId, makeItems(1), { expectedSeq: 0 }),
          () => store.read(threadId),
          () => store.head(threadId),
          () => store.archive(threadId, { seqs: [1] }),
          () => store.readArchive(threadId),
          () => store.putContent(threadId, makeContentRecord()),
          () => store.getContent(threadId, 'mem_1'),
          () => store.queryContent(threadId),
          () => store.getState(threadId),
          () => store.setState(threadId, { level: 'global' }),
          () => store.deleteThread(threadId),
        ]
        for (const call of calls) await expectCode(call, 'STRATA_INVALID_THREAD_ID')
      }
      expect(await keysUnder(prefix)).toEqual([])
    })
  })

  describe('idempotent appends', () => {
    it('returns the stored items when an append is sent again, writing nothing twice', async () => {
      const store = open({ prefix: newPrefix() })
      const batch = makeItems(3)
      const stored = await store.append('t', batch, { expectedSeq: 0 })
      // The same append again, as after a lost reply: same items, same (now stale) expectedSeq.
      expect(await store.append('t', batch, { expectedSeq: 0 })).toStrictEqual(stored)
      const later = await store.append('t', makeItems(2), { expectedSeq: 3 })
      expect(await store.append('t', batch, { expectedSeq: 0 })).toStrictEqual(stored)
      await store.archive('t', { seqs: [1, 2] })
      expect(await store.append('t', batch, { expectedSeq: 3 })).toStrictEqual(stored)
      expect(await store.head('t')).toEqual({ lastSeq: 5, activeCount: 3, archivedCount: 2 })
      expect([...(await store.readArchive('t')), ...(await store.read('t'))]).toStrictEqual([
        ...stored,
        ...later,
      ])
    })

    it('rejects ids already stored by another append, or twice in one append, writing nothing', async () => {
      const store = open({ prefix: newPrefix() })
      const [first, second] = makeItems(2)
      await store.append('t', [first!], { expectedSeq: 0 })
      const overlap = await expectCode(
        () => store.append('t', [first!, second!], { expectedSeq: 1 }),
        'STRATA_DUPLICATE_ITEM_ID',
      )
      expect(overlap.details.id).toBe(first!.id)
      await expectCode(
        () => store.append('t', [{ ...first!, ts: first!.ts + 1 }], { expectedSeq: 1 }),
        'STRATA_DUPLICATE_ITEM_ID',
      )
      await expectCode(
        () => store.append('t', [second!, second!], { expectedSeq: 1 }),
        'STRATA_DUPLICATE_ITEM_ID',
      )
      expect(await store.read('t')).toStrictEqual(withSeqs([first!]))
      expect(await store.head('t')).toEqual({ lastSeq: 1, activeCount: 1, archivedCount: 0 })
    })

    it('appends and re-sends batches larger than one script chunk', async () => {
      const store = open({ prefix: newPrefix() })
      const batch = makeItems(1_201)
      const stored = await store.append('t', batch, { expectedSeq: 0 })
      expect(stored).toStrictEqual(withSeqs(batch))
      expect(await store.append('t', batch, { expectedSeq: 0 })).toStrictEqual(stored)
      expect(await store.read('t')).toStrictEqual(stored)
      expect(await store.head('t')).toEqual({ lastSeq: 1_201, activeCount: 1_201, archivedCount: 0 })
    })

    it('starts over after deleteThread: the ids are gone with the thread', async () => {
      const store = open({ prefix: newPrefix() })
      const batch = makeItems(2)
      await store.append('t', makeItems(1), { expectedSeq: 0 })
      await store.append('t', batch, { expectedSeq: 1 })
      await store.deleteThread('t')
      expect(await store.append('t', batch, { expectedSeq: 0 })).toStrictEqual(withSeqs(batch))
    })
  })

  it('reloads its scripts when the server forgot them', async () => {
    const store = open({ prefix: newPrefix() })
    await store.append('t', makeItems(1), { expectedSeq: 0 })
    if (redis.owned) await admin.scriptFlush()
    expect((await store.append('t', makeItems(1), { expectedSeq: 1 }))[0]?.seq).toBe(2)
  })
})
