import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { StrataError, type StrataErrorCode } from '@strata-memory/core'
import { makeItems } from '@strata-memory/core/testing'
import { afterEach, describe, expect, it } from 'vitest'
import { redisStore } from './redis-store'
import { type RedisServer, redisCli, startRedisServer } from './testing/redis-server'

/*
 * Issue 31: a Redis that lost its data must not look like an empty thread to a store that saw the
 * thread. The harness's server runs without persistence; `kill -9` and a restart on the same port is
 * the operator's accident.
 */

const cleanups: (() => Promise<unknown> | unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function server(options: { port?: number; args?: string[] } = {}): Promise<RedisServer> {
  const started = await startRedisServer(options)
  cleanups.push(() => started.stop())
  return started
}

/** kill -9, then the same port again (with `args`, e.g. the same folder): what it reloads is all it has. */
async function crashAndRestart(redis: RedisServer, args: string[] = []): Promise<RedisServer> {
  redis.signal('SIGKILL')
  await redis.exited()
  return server({ port: redis.port, args })
}

function open(url: string, prefix = 'lost') {
  const store = redisStore({ url, prefix, timeoutMs: 5_000 })
  cleanups.push(() => store.close())
  return store
}

async function expectCode<C extends StrataErrorCode>(call: () => Promise<unknown>, code: C) {
  const error = await call().then(
    () => undefined,
    (caught: unknown) => caught,
  )
  if (!StrataError.isInstance(error, code)) throw new Error(`expected ${code}, got ${String(error)}`)
  return error
}

/** Retries `call` while the store's client reconnects after the restart (its reconnect backoff). */
async function once<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call()
    } catch (error) {
      const reconnecting =
        StrataError.isInstance(error, 'STRATA_STORE_FAILED') && error.details.reason === 'timeout'
      if (!reconnecting || attempt >= 10) throw error
    }
  }
}

describe('a Redis restarted without its data', () => {
  it('is STRATA_THREAD_LOST for head, read and appends of a thread the store saw, until deleteThread accepts it', async () => {
    const redis = await server()
    const reader = open(redis.url)
    const writer = open(redis.url)
    const creator = open(redis.url)
    await writer.append('t', makeItems(10), { expectedSeq: 0 })
    expect((await reader.head('t')).lastSeq).toBe(10)
    expect(await creator.read('t')).toHaveLength(10)

    await crashAndRestart(redis)

    // head and read of the store that saw it at seq 10.
    const lost = await once(() => expectCode(() => reader.head('t'), 'STRATA_THREAD_LOST'))
    expect(lost.details).toMatchObject({ threadId: 't', knownSeq: 10, storeSeq: 0, reason: 'log-missing' })
    expect(lost.message).toContain("Thread 't' lost history")
    expect(lost.message).toContain('deleteThread')
    await expectCode(() => reader.read('t'), 'STRATA_THREAD_LOST')
    // The open thread's next append, at seq 10, from the store that wrote it.
    const refused = await once(() =>
      expectCode(() => writer.append('t', makeItems(1), { expectedSeq: 10 }), 'STRATA_THREAD_LOST'),
    )
    expect(refused.details.knownSeq).toBe(10)
    // Nor is the thread started again at seq 1 by a store that saw it.
    await once(() =>
      expectCode(() => creator.append('t', makeItems(1), { expectedSeq: 0 }), 'STRATA_THREAD_LOST'),
    )
    expect(await open(redis.url).listThreads()).toEqual([])

    // Accepting the loss: the thread starts again.
    await reader.deleteThread('t')
    expect(await reader.head('t')).toEqual({ lastSeq: 0, activeCount: 0, archivedCount: 0 })
    expect((await reader.append('t', makeItems(1), { expectedSeq: 0 }))[0]?.seq).toBe(1)
  }, 60_000)

  it("is STRATA_THREAD_LOST for the thread's state and slots too, read first after the loss: nothing is written again", async () => {
    const redis = await server()
    const store = open(redis.url)
    const other = open(redis.url)
    await store.append('t', makeItems(3), { expectedSeq: 0 })
    await store.setState('t', { record: { createdAt: '2026-01-01' } })
    await store.setSlot('t', 'digest', { through: 3 })
    await other.append('u', makeItems(2), { expectedSeq: 0 })
    // A thread an app names by its own id (openAppThread, an adapter): 'olga/chat'.
    await other.append('_.olga_2Fchat', makeItems(1), { expectedSeq: 0 })

    const restarted = await crashAndRestart(redis)

    // The state is the first thing read (an app's record of the thread): the store looks at the log.
    const lost = await once(() => expectCode(() => store.getState('t'), 'STRATA_THREAD_LOST'))
    expect(lost.details).toMatchObject({ threadId: 't', knownSeq: 3, reason: 'log-missing' })
    // Every later read and write of the thread's state and slots is refused alike, before Redis.
    await expectCode(() => store.getState('t'), 'STRATA_THREAD_LOST')
    await expectCode(() => store.setState('t', { record: { createdAt: 'now' } }), 'STRATA_THREAD_LOST')
    await expectCode(() => store.getSlot('t', 'digest'), 'STRATA_THREAD_LOST')
    await expectCode(() => store.setSlot('t', 'digest', { through: 0 }), 'STRATA_THREAD_LOST')
    expect((await redisCli(restarted.port, ['KEYS', '*'])).trim()).toBe('')
    // A thread the store never saw has no state, as before; one it saw with no state left is a loss.
    expect(await store.getState('never-seen')).toBeUndefined()
    await once(() => expectCode(() => other.getState('u'), 'STRATA_THREAD_LOST'))
    // The way out is named by the id the app uses.
    const mapped = await expectCode(() => other.head('_.olga_2Fchat'), 'STRATA_THREAD_LOST')
    expect(mapped.message).toContain("Thread 'olga/chat' (stored as '_.olga_2Fchat') lost history")
    expect(mapped.message).toContain(
      "accept the loss with the adapter's delete and the app's id, 'olga/chat' (Mastra's deleteThread, LangChain's deleteAgentThread), or memory.deleteThread('_.olga_2Fchat') in core",
    )

    // Accepting the loss: the state is written again.
    await store.deleteThread('t')
    await store.setState('t', { record: { createdAt: 'now' } })
    expect(await store.getState('t')).toEqual({ record: { createdAt: 'now' } })
  }, 60_000)

  it('is STRATA_THREAD_LOST when the log came back shorter (an older RDB snapshot)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'strata-redis-rdb-'))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    const args = ['--dir', dir]
    const redis = await server({ args })
    const store = open(redis.url)
    await store.append('t', makeItems(5), { expectedSeq: 0 })
    await redisCli(redis.port, ['SAVE'])
    await store.append('t', makeItems(5), { expectedSeq: 5 })

    await crashAndRestart(redis, args)

    const lost = await once(() => expectCode(() => store.read('t'), 'STRATA_THREAD_LOST'))
    expect(lost.details).toMatchObject({ knownSeq: 10, storeSeq: 5, reason: 'log-shorter' })
  }, 60_000)

  it('tells a delete through another store from a loss: the thread is simply gone, then new', async () => {
    const redis = await server()
    const seeing = open(redis.url)
    const deleting = open(redis.url)
    await seeing.append('t', makeItems(3), { expectedSeq: 0 })
    await deleting.deleteThread('t')
    expect(await seeing.head('t')).toEqual({ lastSeq: 0, activeCount: 0, archivedCount: 0 })
    // Re-created by the other store, then seen anew.
    await deleting.append('t', makeItems(2), { expectedSeq: 0 })
    await seeing.deleteThread('t')
    await deleting.append('t', makeItems(1), { expectedSeq: 0 })
    expect(await seeing.read('t')).toHaveLength(1)
    expect((await seeing.append('t', makeItems(1), { expectedSeq: 1 }))[0]?.seq).toBe(2)
  }, 30_000)

  it('with ttlSeconds, a thread this store has not written for that long may have expired: no error', async () => {
    const redis = await server()
    const store = redisStore({ url: redis.url, prefix: 'ttl', ttlSeconds: 1 })
    cleanups.push(() => store.close())
    await store.append('t', makeItems(2), { expectedSeq: 0 })
    await new Promise((resolve) => setTimeout(resolve, 2_100))
    expect(await store.head('t')).toEqual({ lastSeq: 0, activeCount: 0, archivedCount: 0 })
  }, 30_000)
})
