import { createMemory } from '@strata-memory/core'
import type { RedisClientType } from 'redis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { redisStore } from './redis-store'
import { cleanUpAndClose, connectTestClient } from './testing/redis-admin'
import { type TestRedis, testRedis } from './testing/redis-server'

let redis: TestRedis
let admin: RedisClientType
const prefix = `strata-index-${process.pid}-${Math.random().toString(36).slice(2, 8)}`

beforeAll(async () => {
  redis = await testRedis()
  admin = await connectTestClient(redis.url)
})

afterAll(async () => {
  await cleanUpAndClose(admin, `${prefix}*`)
  await redis?.stop()
})

/** Hits without snippets, for comparing two memories' answers. */
const plain = (hits: { snippet: string }[]) => hits.map(({ snippet: _snippet, ...hit }) => hit)

describe("a resource's search index over Redis, written by another process", () => {
  it('a warm index answers as a fresh memory does after another process appends, archives and rewrites', async () => {
    // Two stores on their own connections: two processes sharing one Redis.
    const here = createMemory({ store: redisStore({ url: redis.url, prefix }) })
    const there = createMemory({ store: redisStore({ url: redis.url, prefix }) })
    /** What a memory with no index yet answers. */
    const fresh = async (text: string, limit = 10) => {
      const memory = createMemory({ store: redisStore({ url: redis.url, prefix }) })
      try {
        return plain(await memory.resource('user-1').query(text, { limit }))
      } finally {
        await memory.close()
      }
    }
    try {
      const first = await here.thread('chat-1', { resource: 'user-1' })
      for (let turn = 0; turn < 5; turn++)
        await first.append([
          { role: 'user', content: `Turn ${turn}: the kitchen budget question` },
          { role: 'assistant', content: 'Noted the budget.' },
        ])
      await here.settled()
      const resource = here.resource('user-1')
      expect(await resource.query('kitchen budget')).toHaveLength(10)

      // The other process appends to the thread and starts another one.
      const elsewhere = await there.thread('chat-1')
      await elsewhere.append({ role: 'user', content: 'The kitchen budget is now 9,000 euros for the oven' })
      const second = await there.thread('chat-2', { resource: 'user-1' })
      await second.append({ role: 'user', content: 'I prefer a gas oven' })
      await there.settled()
      const oven = await resource.query('oven')
      expect(oven.map(({ threadId, seq }) => `${threadId}#${seq}`).sort()).toEqual(['chat-1#11', 'chat-2#1'])
      expect(plain(oven)).toEqual(await fresh('oven'))

      // It archives what the first process indexed, then deletes the second thread and writes it anew.
      const store = redisStore({ url: redis.url, prefix })
      await store.archive('chat-1', { seqs: [1, 2, 3, 4] })
      await store.deleteThread('chat-2')
      await store.setThreadResource('chat-2', 'user-1', { expected: undefined })
      await store.append(
        'chat-2',
        [
          {
            id: 'new-1',
            ts: Date.now(),
            level: 'global',
            turnId: 't1',
            type: 'message',
            role: 'user',
            content: [{ type: 'text', text: 'An electric oven after all' }],
          },
        ],
        { expectedSeq: 0 },
      )
      await store.close?.()
      const after = await resource.query('kitchen oven gas electric', { limit: 20 })
      expect(plain(after)).toEqual(await fresh('kitchen oven gas electric', 20))
      expect(after.some(({ snippet }) => snippet.includes('gas'))).toBe(false)
      expect(
        after
          .filter(({ threadId, seq }) => threadId === 'chat-1' && seq <= 4)
          .every((hit) => hit.kind === 'item'),
      ).toBe(true)
    } finally {
      await here.close()
      await there.close()
    }
  })
})
