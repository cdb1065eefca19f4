import { describe, expect, it } from 'vitest'
import type { StoreLeaseMethods, StrataStore } from '../stores'
import { hasLeaseMethods, LEASE_METHODS } from '../stores/store-check'
import { makeContentRecord, makeItems } from './fixtures'
import type { ConformanceSuite } from './store-conformance-content'
import { expectStrataError, seqsOf } from './store-conformance-helpers'

/** What the lease cases need beside the shared suite parts. */
export interface LeaseConformanceSuite extends ConformanceSuite {
  /** Whether the store declares the lease capability; the cases are skipped when not. */
  leases: boolean
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** A lease long enough never to lapse during a test. */
const LONG = 60_000

/**
 * The conformance cases of the lease (contract `v2`, `flags.leases`): one holder at a time, a lease
 * that lapses, and writes of anyone but the holder refused with `STRATA_THREAD_BUSY`, writing nothing.
 */
export function describeLeaseConformance(suite: LeaseConformanceSuite): void {
  const store = () => suite.store() as StrataStore & StoreLeaseMethods

  it(
    suite.leases ? 'declares the lease capability and has its methods' : 'declares no lease capability',
    () => {
      expect(hasLeaseMethods(suite.store())).toBe(suite.leases)
      if (suite.leases) {
        expect(suite.store().flags.leases).toBe(true)
        for (const method of LEASE_METHODS) expect(typeof suite.store()[method], method).toBe('function')
      }
    },
  )

  describe.skipIf(!suite.leases)('lease', () => {
    it('grants one owner at a time; another owner is STRATA_THREAD_BUSY with the expiry', async () => {
      const threadId = suite.newThreadId()
      const before = Date.now()
      const grant = await store().acquireLease(threadId, { owner: 'owner-a', ttlMs: LONG })
      expect(grant.expiresAt).toBeGreaterThanOrEqual(before + LONG - 1_000)
      expect(grant.expiresAt).toBeLessThanOrEqual(Date.now() + LONG + 1_000)
      const error = await expectStrataError(
        () => store().acquireLease(threadId, { owner: 'owner-b', ttlMs: LONG }),
        'STRATA_THREAD_BUSY',
      )
      expect(error.details.threadId).toBe(threadId)
      expect(Math.abs(Number(error.details.expiresAt) - grant.expiresAt)).toBeLessThan(1_000)
      // The owner token is a capability: never handed to another caller.
      expect(JSON.stringify(error.details)).not.toContain('owner-a')
      expect(error.message).not.toContain('owner-a')
    })

    it('of many owners racing for a free thread, exactly one gets the lease', async () => {
      const threadId = suite.newThreadId()
      const results = await Promise.allSettled(
        Array.from({ length: 12 }, (_, index) =>
          store().acquireLease(threadId, { owner: `racer-${index}`, ttlMs: LONG }),
        ),
      )
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1)
      for (const result of results) {
        if (result.status === 'rejected')
          expect((result.reason as { code?: string }).code).toBe('STRATA_THREAD_BUSY')
      }
    })

    it('the owner may acquire again (extending it) and renew; others may not renew', async () => {
      const threadId = suite.newThreadId()
      const first = await store().acquireLease(threadId, { owner: 'owner-a', ttlMs: 5_000 })
      const again = await store().acquireLease(threadId, { owner: 'owner-a', ttlMs: LONG })
      expect(again.expiresAt).toBeGreaterThan(first.expiresAt)
      const renewed = await store().renewLease(threadId, { owner: 'owner-a', ttlMs: LONG * 2 })
      expect(renewed?.expiresAt).toBeGreaterThan(again.expiresAt)
      expect(await store().renewLease(threadId, { owner: 'owner-b', ttlMs: LONG })).toBeUndefined()
      expect(await store().renewLease(suite.newThreadId(), { owner: 'owner-a', ttlMs: LONG })).toBeUndefined()
      const read = await store().readLease(threadId)
      expect(Math.abs((read?.expiresAt ?? 0) - renewed!.expiresAt)).toBeLessThan(1_000)
      expect(JSON.stringify(read)).not.toContain('owner-a')
    })

    it('a lease is no thread data: the thread is not listed and reads empty', async () => {
      const threadId = suite.newThreadId()
      await store().acquireLease(threadId, { owner: 'owner-a', ttlMs: LONG })
      expect(await store().listThreads()).not.toContain(threadId)
      expect(await store().head(threadId)).toEqual({ lastSeq: 0, activeCount: 0, archivedCount: 0 })
      expect(await store().read(threadId)).toEqual([])
      expect(await store().getState(threadId)).toBeUndefined()
    })

    it("refuses appends without the holder's lease, writing nothing; the holder's go through", async () => {
      const { threadId, items } = await suite.threadWithItems(2)
      await store().acquireLease(threadId, { owner: 'holder', ttlMs: LONG })
      for (const options of [{ expectedSeq: 2 }, { expectedSeq: 2, lease: 'intruder' }]) {
        const error = await expectStrataError(
          () => store().append(threadId, makeItems(1, { firstTurn: 2 }), options),
          'STRATA_THREAD_BUSY',
        )
        expect(error.details.threadId).toBe(threadId)
      }
      expect(await store().read(threadId)).toStrictEqual(items)
      expect(await store().head(threadId)).toEqual({ lastSeq: 2, activeCount: 2, archivedCount: 0 })
      const written = await store().append(threadId, makeItems(1, { firstTurn: 2 }), {
        expectedSeq: 2,
        lease: 'holder',
      })
      expect(seqsOf(written)).toEqual([3])
    })

    it("refuses archive and setState without the holder's lease, changing nothing", async () => {
      const { threadId, items } = await suite.threadWithItems(3)
      await store().setState(threadId, { mode: 'idle' })
      await store().acquireLease(threadId, { owner: 'holder', ttlMs: LONG })
      await expectStrataError(() => store().archive(threadId, { seqs: [1] }), 'STRATA_THREAD_BUSY')
      await expectStrataError(
        () => store().archive(threadId, { seqs: [1], expectedSeq: 3, lease: 'intruder' }),
        'STRATA_THREAD_BUSY',
      )
      await expectStrataError(() => store().setState(threadId, { mode: 'other' }), 'STRATA_THREAD_BUSY')
      await expectStrataError(
        () => store().setState(threadId, { mode: 'other' }, { lease: 'intruder' }),
        'STRATA_THREAD_BUSY',
      )
      expect(await store().read(threadId)).toStrictEqual(items)
      expect(await store().getState(threadId)).toEqual({ mode: 'idle' })
      expect(await store().archive(threadId, { seqs: [1], lease: 'holder' })).toBe(1)
      await store().setState(threadId, { mode: 'other' }, { lease: 'holder' })
      expect(await store().getState(threadId)).toEqual({ mode: 'other' })
    })

    it('never refuses reads or content records while a thread is leased', async () => {
      const { threadId, items } = await suite.threadWithItems(2)
      await store().acquireLease(threadId, { owner: 'holder', ttlMs: LONG })
      expect(await store().read(threadId)).toStrictEqual(items)
      expect(await store().readArchive(threadId)).toEqual([])
      expect((await store().head(threadId)).lastSeq).toBe(2)
      if (suite.content) {
        await store().putContent(threadId, makeContentRecord({ id: 'mem_leased' }))
        expect((await store().getContent(threadId, 'mem_leased'))?.id).toBe('mem_leased')
      }
    })

    it('releases only its own lease, once; then plain writes go through', async () => {
      const { threadId } = await suite.threadWithItems(1)
      await store().acquireLease(threadId, { owner: 'holder', ttlMs: LONG })
      expect(await store().releaseLease(threadId, { owner: 'intruder' })).toBe(false)
      await expectStrataError(
        () => store().append(threadId, makeItems(1, { firstTurn: 2 }), { expectedSeq: 1 }),
        'STRATA_THREAD_BUSY',
      )
      expect(await store().releaseLease(threadId, { owner: 'holder' })).toBe(true)
      expect(await store().releaseLease(threadId, { owner: 'holder' })).toBe(false)
      expect(await store().readLease(threadId)).toBeUndefined()
      expect(
        seqsOf(await store().append(threadId, makeItems(1, { firstTurn: 2 }), { expectedSeq: 1 })),
      ).toEqual([2])
      await store().acquireLease(threadId, { owner: 'next', ttlMs: LONG })
    })

    it('a lease that is not renewed lapses: another owner gets it, the first can no longer write', async () => {
      const { threadId } = await suite.threadWithItems(1)
      await store().acquireLease(threadId, { owner: 'stalled', ttlMs: 60 })
      await sleep(150)
      expect(await store().readLease(threadId)).toBeUndefined()
      expect(await store().renewLease(threadId, { owner: 'stalled', ttlMs: LONG })).toBeUndefined()
      await store().acquireLease(threadId, { owner: 'next', ttlMs: LONG })
      await expectStrataError(
        () => store().append(threadId, makeItems(1, { firstTurn: 2 }), { expectedSeq: 1, lease: 'stalled' }),
        'STRATA_THREAD_BUSY',
      )
      expect(await store().releaseLease(threadId, { owner: 'stalled' })).toBe(false)
      expect(await store().readLease(threadId)).toBeDefined()
    })

    it('a write carrying a lapsed lease that nobody took since goes through like a plain write', async () => {
      const { threadId } = await suite.threadWithItems(1)
      await store().acquireLease(threadId, { owner: 'slow', ttlMs: 60 })
      await sleep(150)
      const written = await store().append(threadId, makeItems(1, { firstTurn: 2 }), {
        expectedSeq: 1,
        lease: 'slow',
      })
      expect(seqsOf(written)).toEqual([2])
    })

    it('deleteThread removes the lease with the thread', async () => {
      const { threadId } = await suite.threadWithItems(1)
      await store().acquireLease(threadId, { owner: 'holder', ttlMs: LONG })
      await store().deleteThread(threadId)
      expect(await store().readLease(threadId)).toBeUndefined()
      await store().acquireLease(threadId, { owner: 'next', ttlMs: LONG })
    })

    it('validates its arguments', async () => {
      const threadId = suite.newThreadId()
      await expectStrataError(
        () => store().acquireLease('../x', { owner: 'a', ttlMs: LONG }),
        'STRATA_INVALID_THREAD_ID',
      )
      for (const options of [
        { owner: '', ttlMs: LONG },
        { owner: 'has space', ttlMs: LONG },
        { owner: 'a', ttlMs: 0 },
        { owner: 'a', ttlMs: 1.5 },
        { owner: 'a', ttlMs: 2 ** 31 },
      ]) {
        await expectStrataError(
          () => store().acquireLease(threadId, options),
          'STRATA_INVALID_OPTIONS',
          JSON.stringify(options),
        )
      }
      await expectStrataError(() => store().releaseLease(threadId, { owner: '' }), 'STRATA_INVALID_OPTIONS')
      await expectStrataError(
        () => store().append(threadId, makeItems(1), { expectedSeq: 0, lease: 'not a token' }),
        'STRATA_INVALID_OPTIONS',
      )
      expect(await store().head(threadId)).toEqual({ lastSeq: 0, activeCount: 0, archivedCount: 0 })
    })
  })
}
