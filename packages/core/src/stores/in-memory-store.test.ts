import { beforeAll, describe, expect, it } from 'vitest'
import { StrataError, type StrataErrorCode } from '../errors'
import type { JsonObject, UnsequencedItem } from '../items'
import { describeStoreConformance, makeContentRecord, makeItems, makeMessageItem } from '../testing'
import { inMemoryStore } from './in-memory-store'
import type { ContentRecord } from './store'

// Its threads live in process memory that only its own methods change: no torn tail, lost item or
// half-done archive can happen, so the audit's damage cases are skipped (no auditDamage).
describeStoreConformance('inMemoryStore', () => inMemoryStore(), { audit: true, slots: true })

// A store may leave out the optional content capability; the suite then checks it has none of it.
describeStoreConformance(
  'a store without the content methods',
  () => {
    const { putContent: _put, getContent: _get, queryContent: _query, ...withoutContent } = inMemoryStore()
    return withoutContent
  },
  { content: false },
)

// A v1 store (no lease capability) keeps working; the suite checks it declares none.
describeStoreConformance(
  'a store without the lease capability',
  () => {
    const {
      acquireLease: _a,
      renewLease: _r,
      releaseLease: _l,
      readLease: _d,
      flags,
      ...rest
    } = inMemoryStore()
    return { ...rest, flags: { persistent: flags.persistent, shared: flags.shared } }
  },
  { leases: false },
)

async function expectCode(call: () => Promise<unknown>, code: StrataErrorCode): Promise<void> {
  const error = await call().then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(StrataError.isInstance(error, code), `expected ${code}, got ${String(error)}`).toBe(true)
}

describe('inMemoryStore', () => {
  it('is named memory and neither persistent nor shared', () => {
    const store = inMemoryStore()
    expect(store.name).toBe('memory')
    expect(store.flags).toEqual({
      persistent: false,
      shared: false,
      leases: true,
      resources: true,
      audit: true,
      slots: true,
    })
  })

  it('keeps each instance apart', async () => {
    const first = inMemoryStore()
    const second = inMemoryStore()
    await first.append('thread-1', makeItems(2), { expectedSeq: 0 })
    expect(await second.head('thread-1')).toEqual({ lastSeq: 0, activeCount: 0, archivedCount: 0 })
    expect(await second.listThreads()).toEqual([])
  })

  it('rejects values that cannot be stored as JSON, as a persistent store would, and writes nothing', async () => {
    const store = inMemoryStore()
    const unstorable: UnsequencedItem[] = [
      makeMessageItem({ meta: { at: new Date() as unknown as string } }),
      makeMessageItem({ meta: { list: [1, undefined as unknown as number] } }),
      makeMessageItem({ ts: Number.NaN }),
    ]
    for (const item of unstorable) {
      await expectCode(
        () => store.append('thread-1', [makeMessageItem(), item], { expectedSeq: 0 }),
        'STRATA_NOT_SERIALIZABLE',
      )
    }
    await expectCode(
      () => store.setState('thread-1', { handler: (() => 1) as unknown as string }),
      'STRATA_NOT_SERIALIZABLE',
    )
    await expectCode(
      () => store.putContent('thread-1', makeContentRecord({ meta: { big: 1n as unknown as number } })),
      'STRATA_NOT_SERIALIZABLE',
    )
    expect(await store.listThreads()).toEqual([])
  })

  it('rejects malformed options with STRATA_INVALID_OPTIONS and writes nothing', async () => {
    const store = inMemoryStore()
    const items = makeItems(1)
    for (const expectedSeq of [undefined, -1, 1.5, '0', Number.NaN]) {
      await expectCode(
        () => store.append('thread-1', items, { expectedSeq } as unknown as { expectedSeq: number }),
        'STRATA_INVALID_OPTIONS',
      )
    }
    await expectCode(
      () => store.append('thread-1', items[0] as unknown as UnsequencedItem[], { expectedSeq: 0 }),
      'STRATA_INVALID_OPTIONS',
    )
    await expectCode(
      () => store.append('thread-1', ['text'] as unknown as UnsequencedItem[], { expectedSeq: 0 }),
      'STRATA_INVALID_OPTIONS',
    )
    await expectCode(() => store.read('thread-1', { limit: -1 }), 'STRATA_INVALID_OPTIONS')
    await expectCode(() => store.read('thread-1', { limit: 1.5 }), 'STRATA_INVALID_OPTIONS')
    await expectCode(() => store.readArchive('thread-1', { fromSeq: Number.NaN }), 'STRATA_INVALID_OPTIONS')
    await expectCode(() => store.queryContent('thread-1', { limit: -2 }), 'STRATA_INVALID_OPTIONS')
    await expectCode(
      () => store.archive('thread-1', { seqs: 1 } as unknown as { seqs: number[] }),
      'STRATA_INVALID_OPTIONS',
    )
    await expectCode(
      () => store.archive('thread-1', { seqs: [1], expectedSeq: -1 }),
      'STRATA_INVALID_OPTIONS',
    )
    await expectCode(() => store.setState('thread-1', [] as unknown as JsonObject), 'STRATA_INVALID_OPTIONS')
    await expectCode(
      () => store.setState('thread-1', null as unknown as JsonObject),
      'STRATA_INVALID_OPTIONS',
    )
    expect(await store.listThreads()).toEqual([])
  })

  it('rejects a content record without a usable id, type, data, ts or tags', async () => {
    const store = inMemoryStore()
    const broken: Partial<Record<keyof ContentRecord, unknown>>[] = [
      { id: '' },
      { id: 42 },
      { type: undefined },
      { data: { html: '<p>' } },
      { ts: '2024-01-01' },
      { tags: 'web' },
      { tags: [1] },
    ]
    for (const fields of broken) {
      const record = { ...makeContentRecord(), ...fields } as ContentRecord
      await expectCode(() => store.putContent('thread-1', record), 'STRATA_INVALID_OPTIONS')
    }
    await expectCode(
      () => store.putContent('thread-1', null as unknown as ContentRecord),
      'STRATA_INVALID_OPTIONS',
    )
    expect(await store.listThreads()).toEqual([])
  })

  describe('with 150 000 items', () => {
    const count = 150_000
    const store = inMemoryStore()
    beforeAll(async () => {
      // One call: the store must not spread the batch into function arguments.
      await store.append('big', makeItems(count), { expectedSeq: 0 })
      const archived = Array.from({ length: count / 20 }, (_, index) => (index + 1) * 10)
      await store.archive('big', { seqs: archived })
    })

    it('reads ranges across archive holes correctly', async () => {
      const seqs = async (promise: Promise<{ seq: number }[]>) => (await promise).map((item) => item.seq)
      expect(await store.head('big')).toEqual({
        lastSeq: count,
        activeCount: count - 7_500,
        archivedCount: 7_500,
      })
      expect(await seqs(store.read('big', { fromSeq: 149_995 }))).toEqual([
        149_995, 149_996, 149_997, 149_998, 149_999, 150_000,
      ])
      expect(await seqs(store.read('big', { fromSeq: 38, limit: 4 }))).toEqual([38, 39, 41, 42])
      expect(await seqs(store.read('big', { fromSeq: 70_000, toSeq: 70_002 }))).toEqual([70_001, 70_002])
      expect(await seqs(store.readArchive('big', { fromSeq: 74_981, limit: 3 }))).toEqual([74_990, 75_000])
      expect(await seqs(store.readArchive('big', { fromSeq: 75_001 }))).toEqual([])
    })
  })
})
