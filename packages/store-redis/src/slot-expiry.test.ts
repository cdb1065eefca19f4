import { makeContentRecord, makeItems } from '@strata-memory/core/testing'
import { describe, expect, it } from 'vitest'
import { redisStore } from './redis-store'
import { redisTestRun } from './testing/suite-redis'

/*
 * Issue 32: core keeps its log digest in the slot `log-digest`, and opens a thread from it without
 * replaying the log. With `ttlSeconds`, the slots hash must live exactly as long as the log: every write
 * that refreshes the thread's keys refreshes it too. (It used to get the ttl from slot writes only, so a
 * thread written to for longer than the ttl after its last slot write lost its digest, and the next open
 * replayed the whole log.)
 */

const run = redisTestRun('slot-expiry')
const { newPrefix } = run

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('redisStore: the slots hash and the ttl', () => {
  it('keeps a slot as long as appends keep the log, and lets both expire together', async () => {
    const prefix = newPrefix()
    const store = redisStore({ url: run.url, prefix, ttlSeconds: 2 })
    try {
      const log = `${prefix}:{t}:log`
      const slots = `${prefix}:{t}:slots`
      await store.append('t', makeItems(2), { expectedSeq: 0 })
      await store.setSlot('t', 'log-digest', { lastSeq: 2 })
      // Appends only, 0.6 s apart, for twice the ttl after the slot was written: the slot stays.
      const started = Date.now()
      let seq = 2
      while (Date.now() - started < 4_000) {
        await sleep(600)
        await store.append('t', makeItems(1), { expectedSeq: seq })
        seq++
        expect(
          await store.getSlot('t', 'log-digest'),
          `${Date.now() - started} ms after the slot write`,
        ).toEqual({
          lastSeq: 2,
        })
        // Refreshed by the same script: the two expire within the same millisecond or so.
        expect(Math.abs((await run.admin.pTTL(log)) - (await run.admin.pTTL(slots)))).toBeLessThan(50)
      }
      // No more writes: the log and the slot go together.
      await sleep(2_300)
      expect(await run.admin.exists([log, slots])).toBe(0)
      expect(await store.getSlot('t', 'log-digest')).toBeUndefined()
    } finally {
      await store.close()
    }
  }, 30_000)

  it('refreshes the slots hash on every write that refreshes the thread, on both append paths', async () => {
    const prefix = newPrefix()
    const store = redisStore({ url: run.url, prefix, ttlSeconds: 300 })
    try {
      const slots = `${prefix}:{t}:slots`
      await store.append('t', makeItems(4), { expectedSeq: 0 })
      await store.setSlot('t', 'log-digest', { lastSeq: 4 })
      // A one-item append goes through the script, 20 items of 1 KB through the transaction's gate.
      const large = makeItems(20).map((item) => ({ ...item, meta: { pad: 'x'.repeat(1_000) } }))
      const writes: [string, () => Promise<unknown>][] = [
        ['append (script)', () => store.append('t', makeItems(1), { expectedSeq: 4 })],
        ['append (gate)', () => store.append('t', large, { expectedSeq: 5 })],
        ['archive', () => store.archive('t', { seqs: [2] })],
        ['putContent', () => store.putContent('t', makeContentRecord({ id: 'mem_2' }))],
        ['setState', () => store.setState('t', { level: 'project' })],
        ['setSlot (another slot)', () => store.setSlot('t', 'other', { a: 1 })],
      ]
      for (const [name, write] of writes) {
        await run.admin.expire(slots, 20)
        await write()
        expect(await run.admin.ttl(slots), name).toBeGreaterThan(290)
      }
      expect(await store.getSlot('t', 'log-digest')).toEqual({ lastSeq: 4 })
    } finally {
      await store.close()
    }
  })

  it('leaves the slots hash without a ttl when the store has none', async () => {
    const prefix = newPrefix()
    const store = redisStore({ url: run.url, prefix })
    try {
      await store.append('t', makeItems(1), { expectedSeq: 0 })
      await store.setSlot('t', 'log-digest', { lastSeq: 1 })
      await store.append('t', makeItems(1), { expectedSeq: 1 })
      expect(await run.admin.ttl(`${prefix}:{t}:slots`)).toBe(-1)
    } finally {
      await store.close()
    }
  })
})
