import type { RedisClientType } from 'redis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { redisStore } from './redis-store'
import { cleanUpAndClose, connectTestClient, keysMatching } from './testing/redis-admin'
import { type TestRedis, testRedis } from './testing/redis-server'

let redis: TestRedis
let admin: RedisClientType
const prefix = `strata-move-${process.pid}-${Math.random().toString(36).slice(2, 8)}`

beforeAll(async () => {
  redis = await testRedis()
  admin = await connectTestClient(redis.url)
})

afterAll(async () => {
  await cleanUpAndClose(admin, `${prefix}*`)
  await redis?.stop()
})

describe('redisStore: moving a thread between resources (two slots)', () => {
  it('a move cut short after the binding changed is finished by the next call, and converges', async () => {
    const store = redisStore({ client: admin, prefix })
    await store.touchResourceThread('user-a', 'chat-1', 1_000)
    await store.setThreadResource('chat-1', 'user-a', { expected: undefined })
    // What a process that died right after the binding's compare-and-set leaves behind.
    await admin.hSet(`${prefix}:{chat-1}:resource`, { resource: 'user-b', from: 'user-a' })
    expect(await store.getThreadResource('chat-1')).toBe('user-b')
    expect((await store.listResourceThreads('user-a')).threads).toEqual([
      { threadId: 'chat-1', lastAppendAt: 1_000 },
    ])

    // The dead process's move, retried as it was, is a conflict that changes nothing…
    const retried = await store.setThreadResource('chat-1', 'user-b', { expected: 'user-a' }).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(retried).toMatchObject({ code: 'STRATA_SEQ_CONFLICT', details: { actualResource: 'user-b' } })
    // …and repeated with the binding read afresh it finishes the move.
    for (let repeat = 0; repeat < 2; repeat++) {
      await store.setThreadResource('chat-1', 'user-b', { expected: 'user-b' })
      expect((await store.listResourceThreads('user-a')).threads).toEqual([])
      expect((await store.listResourceThreads('user-b')).threads).toEqual([
        { threadId: 'chat-1', lastAppendAt: 1_000 },
      ])
      expect(await admin.hGetAll(`${prefix}:{chat-1}:resource`)).toEqual({ resource: 'user-b' })
    }
  })

  it('deleteThread removes the entries of both resources of a move cut short', async () => {
    const store = redisStore({ client: admin, prefix })
    await store.touchResourceThread('user-c', 'chat-2', 1_000)
    await store.touchResourceThread('user-d', 'chat-2', 2_000)
    await admin.hSet(`${prefix}:{chat-2}:resource`, { resource: 'user-d', from: 'user-c' })
    await store.deleteThread('chat-2')
    expect(await store.listResourceThreads('user-c')).toEqual({ threads: [] })
    expect(await store.listResourceThreads('user-d')).toEqual({ threads: [] })
    expect(await keysMatching(admin, `${prefix}:{chat-2}:*`)).toEqual([])
  })

  it('resource keys never enter the thread registry: listThreads lists threads only', async () => {
    const store = redisStore({ client: admin, prefix: `${prefix}-registry` })
    await store.setWorkingMemory('user-e', 'notes', { expectedVersion: 0 })
    await store.putDocument('user-e', ['memories'], 'k', { a: 1 })
    await store.setThreadResource('chat-3', 'user-e', { expected: undefined })
    await store.putVectors('chat-3', [{ id: 'item:1', model: 'm', vector: new Float32Array([1]) }])
    expect(await store.listThreads()).toEqual([])
    expect(await keysMatching(admin, `${prefix}-registry:threads`)).toEqual([])
    await store.append('chat-3', [], { expectedSeq: 0 })
    expect(await store.listThreads()).toEqual([])
  })
})
