import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Item, JsonObject } from '../items'
import type { StrataStore, StrataStoreBase } from '../stores'
import { STORE_SPECIFICATION_VERSION } from '../stores/store'
import { hasContentMethods } from '../stores/store-check'
import { makeContentRecord, makeItems, withSeqs } from './fixtures'
import { checkSkipLevelScope } from './skip-level-scope'
import { describeAppendConformance } from './store-conformance-append'
import { describeArchiveConformance } from './store-conformance-archive'
import { describeAuditConformance } from './store-conformance-audit'
import { describeContentConformance } from './store-conformance-content'
import {
  describeValue,
  expectStrataError,
  INVALID_THREAD_IDS,
  scribble,
  seqsOf,
} from './store-conformance-helpers'
import { describeLeaseConformance } from './store-conformance-lease'
import type { StoreConformanceOptions } from './store-conformance-options'
import { describeResourceConformance } from './store-conformance-resource'
import { describeSlotConformance } from './store-conformance-slots'

/** Every thread the suite creates starts with this, so that runs sharing one database never collide. */
const THREAD_PREFIX = 'strata-conformance-'

/**
 * The conformance suite every store passes: one vitest `describe` that exercises the store through
 * the public {@link StrataStore} interface only. Each test gets a fresh store from `factory`, works on
 * threads with unique ids (so a shared database is fine), deletes them afterwards and closes the store.
 *
 * @example
 * // store-file/src/file-store.test.ts
 * describeStoreConformance('fileStore', () => fileStore({ dir: temporaryDirectory() }))
 */
export function describeStoreConformance(
  name: string,
  factory: () => StrataStoreBase | Promise<StrataStoreBase>,
  {
    cleanup,
    twin,
    content = true,
    leases = true,
    resources,
    audit,
    slots,
    auditDamage = {},
  }: StoreConformanceOptions = {},
): void {
  describe(`StrataStore conformance: ${name}`, () => {
    const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`
    let counter = 0
    let store: StrataStore
    let created: string[] = []
    let twins: StrataStore[] = []

    /** A fresh, valid, unique thread id that is deleted after the test. */
    const newThreadId = (): string => {
      counter += 1
      const threadId = `${THREAD_PREFIX}${run}-${counter}`
      created.push(threadId)
      return threadId
    }

    /** A thread holding `count` items appended in one call; returns them as stored. */
    const threadWithItems = async (count: number): Promise<{ threadId: string; items: Item[] }> => {
      const threadId = newThreadId()
      const items = await store.append(threadId, makeItems(count), { expectedSeq: 0 })
      return { threadId, items }
    }

    beforeEach(async () => {
      created = []
      // Content cases run only when the store declares the capability; see `content` above.
      store = (await factory()) as StrataStore
    })

    afterEach(async () => {
      try {
        // Best effort: a broken deleteThread fails its own tests, not every test.
        await Promise.allSettled(created.map((threadId) => store.deleteThread(threadId)))
        await Promise.allSettled(twins.map((other) => other.close?.()))
        await cleanup?.(store)
      } finally {
        twins = []
        await store.close?.()
      }
    })

    it('declares the store contract version it implements', () => {
      expect(store.specificationVersion).toBe(STORE_SPECIFICATION_VERSION)
    })

    it(content ? 'has the content methods' : 'has none of the content methods', () => {
      expect(hasContentMethods(store)).toBe(content)
      if (!content) {
        for (const method of ['putContent', 'getContent', 'queryContent'] as const)
          expect(store[method], method).toBeUndefined()
      }
    })

    it('has a name and capability flags', () => {
      expect(typeof store.name).toBe('string')
      expect(store.name.length).toBeGreaterThan(0)
      expect(typeof store.flags.persistent).toBe('boolean')
      expect(typeof store.flags.shared).toBe('boolean')
    })

    describeAppendConformance({ store: () => store, newThreadId, threadWithItems, content })

    describeLeaseConformance({ store: () => store, newThreadId, threadWithItems, content, leases })

    describeResourceConformance({
      store: () => store,
      newThreadId,
      threadWithItems,
      content,
      resources,
      idPrefix: `${THREAD_PREFIX}${run}-`,
    })

    describeSlotConformance({ store: () => store, newThreadId, threadWithItems, content, slots })

    describeAuditConformance({
      store: () => store,
      newThreadId,
      threadWithItems,
      content,
      audit,
      damage: auditDamage,
    })

    describe('read', () => {
      it('returns [] for a thread without items', async () => {
        expect(await store.read(newThreadId())).toEqual([])
        expect(await store.read(newThreadId(), { fromSeq: 1, toSeq: 10, limit: 5 })).toEqual([])
      })

      it('reads inclusive seq ranges, oldest first', async () => {
        const { threadId, items } = await threadWithItems(10)
        expect(await store.read(threadId)).toStrictEqual(items)
        expect(await store.read(threadId, {})).toStrictEqual(items)
        expect(seqsOf(await store.read(threadId, { fromSeq: 4 }))).toEqual([4, 5, 6, 7, 8, 9, 10])
        expect(seqsOf(await store.read(threadId, { toSeq: 3 }))).toEqual([1, 2, 3])
        expect(await store.read(threadId, { fromSeq: 3, toSeq: 5 })).toStrictEqual(items.slice(2, 5))
        expect(seqsOf(await store.read(threadId, { fromSeq: 5, toSeq: 5 }))).toEqual([5])
        expect(await store.read(threadId, { fromSeq: 6, toSeq: 5 })).toEqual([])
      })

      it('honours limit', async () => {
        const { threadId } = await threadWithItems(10)
        expect(seqsOf(await store.read(threadId, { limit: 3 }))).toEqual([1, 2, 3])
        expect(seqsOf(await store.read(threadId, { fromSeq: 4, limit: 2 }))).toEqual([4, 5])
        expect(seqsOf(await store.read(threadId, { fromSeq: 9, limit: 5 }))).toEqual([9, 10])
        expect(seqsOf(await store.read(threadId, { fromSeq: 2, toSeq: 4, limit: 10 }))).toEqual([2, 3, 4])
        expect(seqsOf(await store.read(threadId, { toSeq: 8, limit: 2 }))).toEqual([1, 2])
        expect(await store.read(threadId, { limit: 0 })).toEqual([])
      })

      it('returns only what exists for ranges beyond the log', async () => {
        const { threadId } = await threadWithItems(5)
        expect(await store.read(threadId, { fromSeq: 6 })).toEqual([])
        expect(await store.read(threadId, { fromSeq: 100, toSeq: 200 })).toEqual([])
        expect(await store.read(threadId, { toSeq: 0 })).toEqual([])
        expect(seqsOf(await store.read(threadId, { fromSeq: -5, toSeq: 2 }))).toEqual([1, 2])
        expect(seqsOf(await store.read(threadId, { fromSeq: 4, toSeq: 1_000 }))).toEqual([4, 5])
      })

      it('skips archived seqs inside a range', async () => {
        const { threadId } = await threadWithItems(10)
        await store.archive(threadId, { seqs: [3, 4, 7] })
        expect(seqsOf(await store.read(threadId))).toEqual([1, 2, 5, 6, 8, 9, 10])
        expect(seqsOf(await store.read(threadId, { fromSeq: 3, toSeq: 8 }))).toEqual([5, 6, 8])
        expect(seqsOf(await store.read(threadId, { fromSeq: 3, limit: 2 }))).toEqual([5, 6])
        expect(seqsOf(await store.read(threadId, { fromSeq: 7, toSeq: 7 }))).toEqual([])
      })

      it('readActivePages (optional) gives what read gives, a page at a time, each item once', async ({
        skip,
      }) => {
        if (typeof store.readActivePages !== 'function') skip()
        /** The pages, and each `onCount` call with how many pages had been given before it. */
        const paged = async (threadId: string) => {
          const pages: (readonly Item[])[] = []
          const counts: { count: number; before: number }[] = []
          const onCount = (count: number) => counts.push({ count, before: pages.length })
          for await (const page of store.readActivePages!(threadId, { onCount })) pages.push(page)
          return { pages, counts }
        }
        expect((await paged(newThreadId())).pages).toEqual([])
        // Long enough for several pages of any store, archived stretches across them.
        const { threadId } = await threadWithItems(4_500)
        const archived = [...Array.from({ length: 900 }, (_, index) => 700 + index), 2_222, 4_499]
        await store.archive(threadId, { seqs: archived })
        const { pages, counts } = await paged(threadId)
        expect(pages.flat()).toStrictEqual(await store.read(threadId))
        expect(pages.every((page) => page.length > 0)).toBe(true)
        // `onCount` (optional): once at most, before the last page, about the active log's size (an
        // estimate may be off; an open only compares it with a threshold).
        expect(counts.length).toBeLessThanOrEqual(1)
        for (const { count, before } of counts) {
          expect(before).toBeLessThan(pages.length)
          expect(count).toBeGreaterThanOrEqual(pages.flat().length / 2)
          expect(count).toBeLessThanOrEqual(pages.flat().length * 2)
        }
      })
    })

    describe('head', () => {
      it('is all zeros for an unknown thread', async () => {
        expect(await store.head(newThreadId())).toEqual({ lastSeq: 0, activeCount: 0, archivedCount: 0 })
      })

      it('counts active and archived items', async () => {
        const { threadId } = await threadWithItems(4)
        expect(await store.head(threadId)).toEqual({ lastSeq: 4, activeCount: 4, archivedCount: 0 })
        await store.archive(threadId, { seqs: [1, 2, 3] })
        expect(await store.head(threadId)).toEqual({ lastSeq: 4, activeCount: 1, archivedCount: 3 })
      })
    })

    describeArchiveConformance({ store: () => store, newThreadId, threadWithItems, content })

    const openTwin =
      twin &&
      (async () => {
        const other = await twin(store)
        twins.push(other)
        return other
      })
    describeContentConformance({ store: () => store, newThreadId, threadWithItems, content, twin: openTwin })

    describe('state', () => {
      const state = (): JsonObject => ({
        level: 'task',
        mode: 'default',
        scopes: [{ level: 'task', title: 'Draw a house ✓', openedAtSeq: 3 }],
        cursors: { waterfall: { summarizedThroughSeq: 128, nextAt: 193 }, budget: null },
        usage: { inputTokens: 12_345, ratio: 0.61 },
        flags: [true, false],
      })

      it('is undefined until set, then round-trips exactly', async () => {
        const threadId = newThreadId()
        expect(await store.getState(threadId)).toBeUndefined()
        await store.setState(threadId, state())
        expect(await store.getState(threadId)).toStrictEqual(state())
      })

      it('replaces the whole state rather than merging', async () => {
        const threadId = newThreadId()
        await store.setState(threadId, state())
        await store.setState(threadId, { level: 'global' })
        expect(await store.getState(threadId)).toStrictEqual({ level: 'global' })
        await store.setState(threadId, {})
        expect(await store.getState(threadId)).toStrictEqual({})
      })

      it('stores and returns copies', async () => {
        const threadId = newThreadId()
        const input = state()
        await store.setState(threadId, input)
        scribble(input)
        const got = await store.getState(threadId)
        scribble(got)
        expect(await store.getState(threadId)).toStrictEqual(state())
      })

      it('keeps state per thread and apart from items', async () => {
        const { threadId } = await threadWithItems(2)
        const other = newThreadId()
        await store.setState(threadId, { level: 'task' })
        expect(await store.getState(other)).toBeUndefined()
        expect(await store.head(threadId)).toEqual({ lastSeq: 2, activeCount: 2, archivedCount: 0 })
      })
    })

    describe('scopes', () => {
      it('a scope entered two levels down (global → task) closes at global and reopens the same', async () => {
        await checkSkipLevelScope(store, newThreadId())
      })
    })

    describe('threads', () => {
      it('lists threads with items, archive only, content only or state only, sorted', async () => {
        const withItems = (await threadWithItems(1)).threadId
        const archiveOnly = (await threadWithItems(2)).threadId
        await store.archive(archiveOnly, { seqs: [1, 2] })
        const contentOnly = content ? newThreadId() : undefined
        if (contentOnly !== undefined) await store.putContent(contentOnly, makeContentRecord())
        const stateOnly = newThreadId()
        await store.setState(stateOnly, { level: 'global' })
        const listed = await store.listThreads()
        expect(listed).toEqual([...listed].sort())
        const mine = [withItems, archiveOnly, ...(contentOnly === undefined ? [] : [contentOnly]), stateOnly]
        expect(listed.filter((threadId) => mine.includes(threadId))).toEqual([...mine].sort())
      })

      it('does not list a thread that was only read', async () => {
        const threadId = newThreadId()
        await store.read(threadId)
        await store.readArchive(threadId)
        await store.head(threadId)
        await store.getState(threadId)
        if (content) {
          await store.getContent(threadId, 'mem_x')
          await store.queryContent(threadId)
        }
        expect(await store.listThreads()).not.toContain(threadId)
      })

      it('deleteThread removes items, archive, content and state', async () => {
        const { threadId } = await threadWithItems(4)
        await store.archive(threadId, { seqs: [1, 2] })
        if (content) await store.putContent(threadId, makeContentRecord({ id: 'mem_1' }))
        await store.setState(threadId, { level: 'task' })
        await store.deleteThread(threadId)
        expect(await store.head(threadId)).toEqual({ lastSeq: 0, activeCount: 0, archivedCount: 0 })
        expect(await store.read(threadId)).toEqual([])
        expect(await store.readArchive(threadId)).toEqual([])
        if (content) {
          expect(await store.getContent(threadId, 'mem_1')).toBeUndefined()
          expect(await store.queryContent(threadId)).toEqual([])
        }
        expect(await store.getState(threadId)).toBeUndefined()
        expect(await store.listThreads()).not.toContain(threadId)
      })

      it('starts a deleted thread again from seq 1', async () => {
        const { threadId } = await threadWithItems(3)
        await store.deleteThread(threadId)
        const input = makeItems(2)
        expect(await store.append(threadId, input, { expectedSeq: 0 })).toStrictEqual(withSeqs(input))
      })

      it('deleting an unknown thread is not an error', async () => {
        const threadId = newThreadId()
        await store.deleteThread(threadId)
        await store.deleteThread(threadId)
        expect(await store.listThreads()).not.toContain(threadId)
      })

      it('deleting one thread leaves the others alone', async () => {
        const kept = await threadWithItems(2)
        await store.setState(kept.threadId, { level: 'global' })
        const removed = await threadWithItems(2)
        await store.deleteThread(removed.threadId)
        expect(await store.read(kept.threadId)).toStrictEqual(kept.items)
        expect(await store.getState(kept.threadId)).toStrictEqual({ level: 'global' })
        expect(await store.listThreads()).toContain(kept.threadId)
      })
    })

    describe('thread ids', () => {
      const calls: Record<string, (threadId: string) => Promise<unknown>> = {
        append: (threadId) => store.append(threadId, makeItems(1), { expectedSeq: 0 }),
        read: (threadId) => store.read(threadId),
        head: (threadId) => store.head(threadId),
        archive: (threadId) => store.archive(threadId, { seqs: [1] }),
        readArchive: (threadId) => store.readArchive(threadId),
        ...(content
          ? {
              putContent: (threadId: string) => store.putContent(threadId, makeContentRecord()),
              getContent: (threadId: string) => store.getContent(threadId, 'mem_1'),
              queryContent: (threadId: string) => store.queryContent(threadId),
            }
          : {}),
        getState: (threadId) => store.getState(threadId),
        setState: (threadId) => store.setState(threadId, { level: 'global' }),
        deleteThread: (threadId) => store.deleteThread(threadId),
      }

      for (const [method, call] of Object.entries(calls)) {
        it(`${method} rejects invalid thread ids with STRATA_INVALID_THREAD_ID and writes nothing`, async () => {
          const before = await store.listThreads()
          for (const threadId of INVALID_THREAD_IDS) {
            await expectStrataError(
              () => call(threadId as string),
              'STRATA_INVALID_THREAD_ID',
              describeValue(threadId),
            )
          }
          const after = await store.listThreads()
          // Other runs sharing the database may add their own conformance threads meanwhile.
          const added = after.filter(
            (threadId) => !before.includes(threadId) && !threadId.startsWith(THREAD_PREFIX),
          )
          expect(added).toEqual([])
        })
      }

      it('accepts ids of up to 128 characters of A-Z a-z 0-9 _ . -', async () => {
        const base = newThreadId()
        const longest = `${base}-${'x'.repeat(127 - base.length)}`
        const mixed = `${base}_Mixed.Case-09`
        created.push(longest, mixed)
        expect(longest).toHaveLength(128)
        for (const threadId of [longest, mixed]) {
          const input = makeItems(1)
          expect(await store.append(threadId, input, { expectedSeq: 0 })).toStrictEqual(withSeqs(input))
          await store.setState(threadId, { ok: true })
          expect(await store.listThreads()).toContain(threadId)
        }
      })
    })
  })
}

export type { StoreConformanceOptions } from './store-conformance-options'
