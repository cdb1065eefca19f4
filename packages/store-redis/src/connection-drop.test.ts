import { connect, createServer, type Server, type Socket } from 'node:net'
import type { Item } from '@strata-memory/core'
import { createClient, type RedisClientType } from 'redis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RedisStoreClient, redisStore } from './redis-store'
import { APPEND_PATHS } from './testing/item-sizes'
import { cleanUpAndClose, connectTestClient } from './testing/redis-admin'
import { freePort, type TestRedis, testRedis } from './testing/redis-server'

let redis: TestRedis
let admin: RedisClientType
const RUN = `strata-drop-${process.pid}-${Math.random().toString(36).slice(2, 8)}`

/** Reconnects quickly and gives up after a second, so that a lost server fails the test instead of hanging it. */
const reconnectStrategy = (retries: number) => (retries > 50 ? new Error('Redis did not come back') : 20)

beforeAll(async () => {
  redis = await testRedis()
  admin = await connectTestClient(redis.url)
})

afterAll(async () => {
  await cleanUpAndClose(admin, `${RUN}*`)
  await redis?.stop()
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Checks a thread holds `acknowledged` exactly: each item once, seqs 1..n without a gap. */
function expectExactly(stored: Item[], acknowledged: Item[]): void {
  expect(stored.map((item) => item.seq)).toEqual(stored.map((_item, index) => index + 1))
  expect(new Set(stored.map((item) => item.id)).size).toBe(stored.length)
  expect(stored).toStrictEqual([...acknowledged].sort((left, right) => left.seq - right.seq))
}

/** Replies of the server (errors it sent back), as opposed to a connection lost under a command. */
const SERVER_REPLIES = new Set(['ErrorReply', 'MultiErrorReply', 'SimpleError', 'BlobError'])

/**
 * The client as the store sees it, counting the commands and transactions that failed because the
 * connection dropped under them: proof that the kills cut appends off in flight, so that the store's
 * re-sends (not only the client's queue) are what kept every item exactly once.
 */
function countingCutOffs(client: RedisClientType): { store: RedisStoreClient; readonly cutOffs: number } {
  let cutOffs = 0
  const count = (error: unknown): never => {
    if (!SERVER_REPLIES.has((error as Error | null)?.constructor?.name ?? '')) cutOffs++
    throw error
  }
  const store: RedisStoreClient = {
    sendCommand: (args: string[]) => client.sendCommand(args).catch(count),
    multi: () => {
      const multi = client.multi()
      const exec = multi.exec.bind(multi)
      multi.exec = ((...args: Parameters<typeof exec>) => exec(...args).catch(count)) as typeof exec
      return multi
    },
    get isOpen() {
      return client.isOpen
    },
    connect: () => client.connect(),
    close: () => client.close(),
  } as unknown as RedisStoreClient
  return {
    store,
    get cutOffs() {
      return cutOffs
    },
  }
}

describe.each(APPEND_PATHS)('a dropped connection, appends on the %s', (path, makeItems) => {
  const prefix = `${RUN}-${path.startsWith('script') ? 'script' : 'transaction'}`
  it('loses and doubles nothing when CLIENT KILL cuts the store off during many appends', async () => {
    const name = `${prefix}-client`
    const client: RedisClientType = createClient({ url: redis.url, name, socket: { reconnectStrategy } })
    client.on('error', () => undefined)
    let reconnects = 0
    client.on('reconnecting', () => {
      reconnects++
    })
    await client.connect()
    const counting = countingCutOffs(client)
    const store = redisStore({ client: counting.store, prefix })
    const writers = ['a', 'b', 'c', 'd']
    const acknowledged = new Map<string, Item[]>(writers.map((writer) => [writer, []]))
    let running = true

    const write = async (writer: string) => {
      let lastSeq = 0
      for (let round = 0; round < 150; round++) {
        const stored = await store.append(`kill-${writer}`, makeItems(4), { expectedSeq: lastSeq })
        acknowledged.get(writer)!.push(...stored)
        lastSeq = stored.at(-1)!.seq
      }
    }
    /** Kills the store's connection (found by its name, so a shared server's other clients are spared). */
    const kill = async () => {
      let kills = 0
      while (running) {
        await sleep(15)
        const ids = (await admin.clientList()).filter((entry) => entry.name === name).map((entry) => entry.id)
        for (const id of ids) {
          await admin.sendCommand(['CLIENT', 'KILL', 'ID', String(id)])
          kills++
        }
      }
      return kills
    }

    const killing = kill()
    await Promise.all(writers.map(write)).finally(() => {
      running = false
    })
    const kills = await killing
    expect(kills).toBeGreaterThan(0)
    expect(reconnects).toBeGreaterThan(0)
    expect(counting.cutOffs).toBeGreaterThan(0)

    for (const writer of writers) {
      const threadId = `kill-${writer}`
      expectExactly(await store.read(threadId), acknowledged.get(writer)!)
      expect(acknowledged.get(writer)).toHaveLength(600)
      // And the store carries on after the kills.
      const [next] = await store.append(threadId, makeItems(1), { expectedSeq: 600 })
      expect(next?.seq).toBe(601)
    }
    await client.close()
    // 600 appends under kills: a busy machine takes longer than vitest's default 5 s.
  }, 30_000)

  it('re-sends an append whose reply was lost after Redis applied it, and returns the stored items', async () => {
    const proxy = await replyDroppingProxy(
      Number(new URL(redis.url).port || 6379),
      new URL(redis.url).hostname,
    )
    const client: RedisClientType = createClient({ url: proxy.url, socket: { reconnectStrategy } })
    client.on('error', () => undefined)
    await client.connect()
    try {
      const store = redisStore({ client, prefix })
      const threadId = 'lost-reply'
      const first = await store.append(threadId, makeItems(3), { expectedSeq: 0 })

      // The next reply never reaches the client; while it is held back, look at what Redis holds.
      let appliedBeforeTheCut = -1
      proxy.dropNextReply(async () => {
        appliedBeforeTheCut = (await admin.lLen(`${prefix}:{${threadId}}:log`)) - 1
      })
      const batch = makeItems(3)
      const second = await store.append(threadId, batch, { expectedSeq: 3 })

      expect(appliedBeforeTheCut).toBe(6)
      expect(proxy.cuts).toBe(1)
      expect(second.map((item) => item.seq)).toEqual([4, 5, 6])
      expect(second.map((item) => item.id)).toEqual(batch.map((item) => item.id))
      expectExactly(await store.read(threadId), [...first, ...second])
      expect(await store.head(threadId)).toEqual({ lastSeq: 6, activeCount: 6, archivedCount: 0 })
      expect((await store.append(threadId, makeItems(1), { expectedSeq: 6 }))[0]?.seq).toBe(7)
    } finally {
      await client.close()
      await proxy.close()
    }
  })
})

/**
 * A TCP proxy in front of Redis that, when told to, swallows the next reply and then cuts both
 * connections: the command ran on the server, but its reply is lost, as when a connection drops at
 * the worst moment.
 */
async function replyDroppingProxy(port: number, host: string) {
  const sockets = new Set<Socket>()
  let armed: (() => Promise<void>) | undefined
  let cuts = 0
  const server: Server = createServer((downstream) => {
    const upstream = connect(port, host)
    sockets.add(downstream).add(upstream)
    let cut = false
    downstream.on('data', (chunk) => {
      if (!cut) upstream.write(chunk)
    })
    upstream.on('data', (chunk) => {
      if (cut) return
      if (armed === undefined) {
        downstream.write(chunk)
        return
      }
      const inspect = armed
      armed = undefined
      cut = true
      cuts++
      // Give Redis time to run everything sent with the swallowed command, then let the caller look.
      void sleep(50)
        .then(inspect)
        .finally(() => {
          downstream.destroy()
          upstream.destroy()
        })
    })
    for (const socket of [downstream, upstream]) {
      socket.on('error', () => undefined)
      socket.on('close', () => {
        sockets.delete(socket)
        downstream.destroy()
        upstream.destroy()
      })
    }
  })
  const listenPort = await freePort()
  await new Promise<void>((resolve) => server.listen(listenPort, '127.0.0.1', resolve))
  return {
    url: `redis://127.0.0.1:${listenPort}`,
    get cuts() {
      return cuts
    },
    dropNextReply(inspect: () => Promise<void>) {
      armed = inspect
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}
