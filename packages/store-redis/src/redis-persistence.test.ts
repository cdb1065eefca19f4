import { createMemory } from '@strata-memory/core'
import { afterEach, describe, expect, it } from 'vitest'
import { redisStore } from './redis-store'
import { connectTestClient } from './testing/redis-admin'
import { type RedisServer, startRedisServer } from './testing/redis-server'

/*
 * Issue 31: status must not claim `persistent` for a Redis whose persistence is off. The store asks
 * the server (CONFIG GET appendonly, save) on its first call.
 */

const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function server(args: string[] = []): Promise<RedisServer> {
  const started = await startRedisServer({ args })
  cleanups.push(() => started.stop())
  return started
}

function open(url: string, options: { persistent?: boolean } = {}) {
  const store = redisStore({ url, prefix: 'persistence', ...options })
  cleanups.push(() => store.close())
  return store
}

describe('redisStore flags.persistent', () => {
  it('is false for a server without persistence, and thread status says so', async () => {
    const { url } = await server()
    const store = open(url)
    expect(store.flags.persistent).toBe(false)
    const memory = createMemory({ store })
    const thread = await memory.thread('t')
    await thread.append({ role: 'user', content: 'hello' })
    expect((await thread.status()).store).toEqual({ name: 'redis', persistent: false, shared: true })
    expect(await store.persistence()).toEqual({ state: 'off', appendonly: 'no', save: '' })
  }, 30_000)

  it('is true for a server with an append-only file, or with RDB snapshots', async () => {
    const aof = open((await server(['--appendonly', 'yes'])).url)
    expect(await aof.persistence()).toMatchObject({ state: 'on', appendonly: 'yes' })
    expect(aof.flags.persistent).toBe(true)

    const rdb = open((await server(['--save', '900 1'])).url)
    await rdb.head('t')
    expect(rdb.flags.persistent).toBe(true)
    expect(await rdb.persistence()).toEqual({ state: 'on', appendonly: 'no', save: '900 1' })
  }, 30_000)

  it('says unknown (and claims nothing) when CONFIG is refused; the persistent option declares it', async () => {
    const redis = await server()
    const admin = await connectTestClient(redis.url)
    await admin.sendCommand(['ACL', 'SETUSER', 'app', 'on', '>secret', '~*', '&*', '+@all', '-config'])
    await admin.close()
    const url = `redis://app:secret@127.0.0.1:${redis.port}`

    const asked = open(url)
    await asked.append(
      't',
      [{ id: 'a', ts: 1, level: 'global', turnId: 'turn_0001', type: 'message', role: 'user', content: [] }],
      {
        expectedSeq: 0,
      },
    )
    const found = await asked.persistence()
    expect(found.state).toBe('unknown')
    expect(found.reason).toMatch(/NOPERM/)
    expect(asked.flags.persistent).toBe(false)

    const declared = open(url, { persistent: true })
    expect(declared.flags.persistent).toBe(true)
    expect((await declared.head('t')).lastSeq).toBe(1)
    expect(await declared.persistence()).toEqual({ state: 'declared' })
  }, 30_000)
})
