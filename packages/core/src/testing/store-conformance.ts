import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { StrataError, type StrataErrorCode } from '../errors'
import type { Item, JsonObject, UnsequencedItem } from '../items'
import type { ContentQuery, ContentRecord, StrataStore, StrataStoreBase } from '../stores'
import { STORE_SPECIFICATION_VERSION } from '../stores/store'
import { hasContentMethods } from '../stores/store-check'
import {
  FIXTURE_BASE_TS,
  makeContentRecord,
  makeEveryItemType,
  makeItems,
  makeMessageItem,
  withSeqs,
} from './fixtures'
import { checkSkipLevelScope } from './skip-level-scope'

/** Options of {@link describeStoreConformance}. */
export interface StoreConformanceOptions {
  /**
   * Runs after each test, before the store is closed: remove a temporary directory, flush a test
   * database. The suite already deletes every thread it created.
   */
  cleanup?: (store: StrataStore) => Promise<void>
  /**
   * Whether the store implements the optional content capability (`putContent`, `getContent`,
   * `queryContent`). With `false` the content cases are skipped and the suite checks that the store
   * has none of the content methods, so core refuses it unless the content channel is off.
   * @default true
   */
  content?: boolean
}

/** Every thread the suite creates starts with this, so that runs sharing one database never collide. */
const THREAD_PREFIX = 'strata-conformance-'

const INVALID_THREAD_IDS: readonly unknown[] = [
  '../x',
  'a/b',
  'a\\b',
  '{x}',
  '',
  'x'.repeat(129),
  '.hidden',
  '..',
  'a b',
  'a:b',
  'tab\t',
  'line\n',
  'ünïcode',
  undefined,
  42,
]

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
  { cleanup, content = true }: StoreConformanceOptions = {},
): void {
  describe(`StrataStore conformance: ${name}`, () => {
    const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`
    let counter = 0
    let store: StrataStore
    let created: string[] = []

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

    const seqsOf = (items: readonly Item[]): number[] => items.map((item) => item.seq)

    beforeEach(async () => {
      created = []
      // Content cases run only when the store declares the capability; see `content` above.
      store = (await factory()) as StrataStore
    })

    afterEach(async () => {
      try {
        // Best effort: a broken deleteThread fails its own tests, not every test.
        await Promise.allSettled(created.map((threadId) => store.deleteThread(threadId)))
        await cleanup?.(store)
      } finally {
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

    describe('append', () => {
      it('assigns seqs 1..n on a new thread and continues from the last seq', async () => {
        const threadId = newThreadId()
        const first = makeItems(3)
        expect(await store.append(threadId, first, { expectedSeq: 0 })).toStrictEqual(withSeqs(first))
        const second = makeItems(2, { firstTurn: 3 })
        expect(await store.append(threadId, second, { expectedSeq: 3 })).toStrictEqual(withSeqs(second, 3))
        expect(seqsOf(await store.read(threadId))).toEqual([1, 2, 3, 4, 5])
        expect(await store.head(threadId)).toEqual({ lastSeq: 5, activeCount: 5, archivedCount: 0 })
      })

      it('assigns its own seq even when an input item carries one', async () => {
        const threadId = newThreadId()
        const item = { ...makeMessageItem(), seq: 99 } as UnsequencedItem
        const [stored] = await store.append(threadId, [item], { expectedSeq: 0 })
        expect(stored?.seq).toBe(1)
        expect(seqsOf(await store.read(threadId))).toEqual([1])
      })

      it('returns [] and changes nothing when given no items', async () => {
        const { threadId } = await threadWithItems(2)
        expect(await store.append(threadId, [], { expectedSeq: 2 })).toEqual([])
        expect(await store.head(threadId)).toEqual({ lastSeq: 2, activeCount: 2, archivedCount: 0 })
      })

      it('returns copies: mutating the returned items changes nothing stored', async () => {
        const threadId = newThreadId()
        const input = makeEveryItemType()
        const stored = await store.append(threadId, input, { expectedSeq: 0 })
        scribble(stored)
        expect(await store.read(threadId)).toStrictEqual(withSeqs(input))
        const read = await store.read(threadId)
        scribble(read)
        expect(await store.read(threadId)).toStrictEqual(withSeqs(input))
      })

      it('stores copies: mutating the input after append changes nothing stored', async () => {
        const threadId = newThreadId()
        const input = makeEveryItemType()
        const expected = withSeqs(deepCopy(input))
        await store.append(threadId, input, { expectedSeq: 0 })
        scribble(input)
        expect(await store.read(threadId)).toStrictEqual(expected)
      })

      it('rejects a stale or future expectedSeq with STRATA_SEQ_CONFLICT and writes nothing', async () => {
        const { threadId, items } = await threadWithItems(3)
        for (const expectedSeq of [0, 2, 4]) {
          const error = await expectStrataError(
            () => store.append(threadId, makeItems(2), { expectedSeq }),
            'STRATA_SEQ_CONFLICT',
          )
          expect(error.details).toMatchObject({ threadId, expectedSeq, actualSeq: 3 })
          expect(error.message).toMatch(/retry/i)
        }
        expect(await store.read(threadId)).toStrictEqual(items)
        expect(await store.head(threadId)).toEqual({ lastSeq: 3, activeCount: 3, archivedCount: 0 })
      })

      it('rejects an expectedSeq other than 0 on a new thread and creates nothing', async () => {
        const threadId = newThreadId()
        const error = await expectStrataError(
          () => store.append(threadId, makeItems(1), { expectedSeq: 1 }),
          'STRATA_SEQ_CONFLICT',
        )
        expect(error.details).toMatchObject({ threadId, expectedSeq: 1, actualSeq: 0 })
        expect(await store.head(threadId)).toEqual({ lastSeq: 0, activeCount: 0, archivedCount: 0 })
        expect(await store.read(threadId)).toEqual([])
        expect(await store.listThreads()).not.toContain(threadId)
      })

      it('lets exactly one of two concurrent appends with the same expectedSeq win', async () => {
        const threadId = newThreadId()
        const left = makeItems(2)
        const right = makeItems(3)
        const results = await Promise.allSettled([
          store.append(threadId, left, { expectedSeq: 0 }),
          store.append(threadId, right, { expectedSeq: 0 }),
        ])
        const winners = results.filter((result) => result.status === 'fulfilled')
        const losers = results.filter((result) => result.status === 'rejected')
        expect(winners).toHaveLength(1)
        expect(losers).toHaveLength(1)
        expect(StrataError.isInstance(losers[0]?.reason, 'STRATA_SEQ_CONFLICT')).toBe(true)
        const winner = results[0]?.status === 'fulfilled' ? left : right
        expect(winners[0]?.value).toStrictEqual(withSeqs(winner))
        expect(await store.read(threadId)).toStrictEqual(withSeqs(winner))
        expect(await store.head(threadId)).toEqual({
          lastSeq: winner.length,
          activeCount: winner.length,
          archivedCount: 0,
        })
      })

      it('lets exactly one of many concurrent appends to an existing thread win', async () => {
        const { threadId, items } = await threadWithItems(2)
        const batches = Array.from({ length: 8 }, () => makeItems(2))
        const results = await Promise.allSettled(
          batches.map((batch) => store.append(threadId, batch, { expectedSeq: 2 })),
        )
        const winnerIndex = results.findIndex((result) => result.status === 'fulfilled')
        expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1)
        for (const result of results) {
          if (result.status === 'rejected') {
            expect(StrataError.isInstance(result.reason, 'STRATA_SEQ_CONFLICT')).toBe(true)
          }
        }
        expect(await store.read(threadId)).toStrictEqual([...items, ...withSeqs(batches[winnerIndex]!, 2)])
      })

      it('loses and duplicates nothing when concurrent writers retry after conflicts', async () => {
        const threadId = newThreadId()
        const writers = ['a', 'b', 'c', 'd', 'e']
        const perWriter = 3
        const write = async (writer: string): Promise<void> => {
          for (let index = 0; index < perWriter; index += 1) {
            const item = makeMessageItem({ text: `${writer} ${index}`, meta: { writer, index } })
            for (let attempt = 1; ; attempt += 1) {
              const { lastSeq } = await store.head(threadId)
              try {
                await store.append(threadId, [item], { expectedSeq: lastSeq })
                break
              } catch (error) {
                if (!StrataError.isInstance(error, 'STRATA_SEQ_CONFLICT') || attempt >= 100) throw error
              }
            }
          }
        }
        await Promise.all(writers.map(write))
        const stored = await store.read(threadId)
        expect(seqsOf(stored)).toEqual(
          Array.from({ length: writers.length * perWriter }, (_, index) => index + 1),
        )
        expect(new Set(stored.map((item) => item.id)).size).toBe(stored.length)
        for (const writer of writers) {
          const mine = stored.filter((item) => item.meta?.writer === writer).map((item) => item.meta?.index)
          expect(mine).toEqual([0, 1, 2])
        }
      })

      it('keeps seqs per thread', async () => {
        const first = await threadWithItems(3)
        const second = await threadWithItems(2)
        expect(seqsOf(first.items)).toEqual([1, 2, 3])
        expect(seqsOf(second.items)).toEqual([1, 2])
        expect(await store.read(first.threadId)).toStrictEqual(first.items)
        expect(await store.read(second.threadId)).toStrictEqual(second.items)
      })
    })

    describe('round trip', () => {
      it('keeps every item type and message part verbatim', async () => {
        const threadId = newThreadId()
        const input = makeEveryItemType()
        const expected = withSeqs(input)
        expect(await store.append(threadId, input, { expectedSeq: 0 })).toStrictEqual(expected)
        expect(await store.read(threadId)).toStrictEqual(expected)
        expect(JSON.stringify(await store.read(threadId))).toBe(JSON.stringify(expected))
      })

      it('keeps large items verbatim', async () => {
        const threadId = newThreadId()
        const rows = Array.from({ length: 2_000 }, (_, index) => ({
          id: index,
          name: `row ${index} ✓`,
          ok: index % 2 === 0,
        }))
        const input = [
          makeMessageItem({ text: `${'Lorem ipsum dolor sit amet — 日本語 '.repeat(8_000)}end` }),
          makeMessageItem({
            role: 'tool',
            content: [{ type: 'tool-result', toolCallId: 'call_big', toolName: 'query', output: { rows } }],
          }),
        ]
        await store.append(threadId, input, { expectedSeq: 0 })
        expect(await store.read(threadId)).toStrictEqual(withSeqs(input))
      })
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

    describe('archive', () => {
      it('moves items to the archive, item for item, and deletes nothing', async () => {
        const threadId = newThreadId()
        const input = makeEveryItemType()
        const expected = withSeqs(input)
        await store.append(threadId, input, { expectedSeq: 0 })
        expect(await store.archive(threadId, { seqs: [1, 2, 3] })).toBe(3)
        expect(await store.read(threadId)).toStrictEqual(expected.slice(3))
        expect(await store.readArchive(threadId)).toStrictEqual(expected.slice(0, 3))
        expect(await store.head(threadId)).toEqual({
          lastSeq: expected.length,
          activeCount: expected.length - 3,
          archivedCount: 3,
        })
      })

      it('never lowers lastSeq: the next append continues the seq', async () => {
        const { threadId } = await threadWithItems(5)
        expect(await store.archive(threadId, { seqs: [4, 5] })).toBe(2)
        expect(await store.head(threadId)).toEqual({ lastSeq: 5, activeCount: 3, archivedCount: 2 })
        await expectStrataError(
          () => store.append(threadId, makeItems(1), { expectedSeq: 3 }),
          'STRATA_SEQ_CONFLICT',
        )
        const [next] = await store.append(threadId, makeItems(1), { expectedSeq: 5 })
        expect(next?.seq).toBe(6)
        expect(seqsOf(await store.read(threadId))).toEqual([1, 2, 3, 6])
      })

      it('can archive every item and keep appending', async () => {
        const { threadId, items } = await threadWithItems(4)
        expect(await store.archive(threadId, { seqs: [1, 2, 3, 4] })).toBe(4)
        expect(await store.read(threadId)).toEqual([])
        expect(await store.readArchive(threadId)).toStrictEqual(items)
        expect(await store.head(threadId)).toEqual({ lastSeq: 4, activeCount: 0, archivedCount: 4 })
        const added = makeItems(2)
        expect(await store.append(threadId, added, { expectedSeq: 4 })).toStrictEqual(withSeqs(added, 4))
        expect(await store.head(threadId)).toEqual({ lastSeq: 6, activeCount: 2, archivedCount: 4 })
      })

      it('ignores unknown, already archived and repeated seqs', async () => {
        const { threadId, items } = await threadWithItems(5)
        expect(await store.archive(threadId, { seqs: [2, 2, 99, 0, -1, 2.5] })).toBe(1)
        expect(await store.archive(threadId, { seqs: [2, 3] })).toBe(1)
        expect(await store.archive(threadId, { seqs: [2, 3, 6] })).toBe(0)
        expect(await store.archive(threadId, { seqs: [] })).toBe(0)
        expect(await store.readArchive(threadId)).toStrictEqual(items.slice(1, 3))
        expect(await store.head(threadId)).toEqual({ lastSeq: 5, activeCount: 3, archivedCount: 2 })
      })

      it('keeps the archive in seq order across batches in any order', async () => {
        const { threadId, items } = await threadWithItems(8)
        expect(await store.archive(threadId, { seqs: [6, 2] })).toBe(2)
        expect(await store.archive(threadId, { seqs: [8, 1, 4] })).toBe(3)
        expect(await store.readArchive(threadId)).toStrictEqual([1, 2, 4, 6, 8].map((seq) => items[seq - 1]))
        expect(await store.read(threadId)).toStrictEqual([3, 5, 7].map((seq) => items[seq - 1]))
      })

      it('moves nothing when expectedSeq is stale, and archives when it matches', async () => {
        const { threadId, items } = await threadWithItems(4)
        const error = await expectStrataError(
          () => store.archive(threadId, { seqs: [1, 2], expectedSeq: 3 }),
          'STRATA_SEQ_CONFLICT',
        )
        expect(error.details).toMatchObject({ threadId, expectedSeq: 3, actualSeq: 4 })
        expect(await store.read(threadId)).toStrictEqual(items)
        expect(await store.readArchive(threadId)).toEqual([])
        expect(await store.head(threadId)).toEqual({ lastSeq: 4, activeCount: 4, archivedCount: 0 })
        expect(await store.archive(threadId, { seqs: [1, 2], expectedSeq: 4 })).toBe(2)
        expect(await store.readArchive(threadId)).toStrictEqual(items.slice(0, 2))
      })

      it('returns 0 for an unknown thread and creates nothing', async () => {
        const threadId = newThreadId()
        expect(await store.archive(threadId, { seqs: [1, 2] })).toBe(0)
        expect(await store.head(threadId)).toEqual({ lastSeq: 0, activeCount: 0, archivedCount: 0 })
        expect(await store.listThreads()).not.toContain(threadId)
      })

      it('returns copies: mutating archived items read back changes nothing stored', async () => {
        const { threadId, items } = await threadWithItems(3)
        await store.archive(threadId, { seqs: [1, 2, 3] })
        scribble(await store.readArchive(threadId))
        expect(await store.readArchive(threadId)).toStrictEqual(items)
      })
    })

    describe('readArchive', () => {
      it('returns [] when nothing is archived', async () => {
        expect(await store.readArchive(newThreadId())).toEqual([])
        const { threadId } = await threadWithItems(3)
        expect(await store.readArchive(threadId)).toEqual([])
      })

      it('reads inclusive seq ranges with a limit, oldest first', async () => {
        const { threadId, items } = await threadWithItems(10)
        await store.archive(threadId, { seqs: [1, 3, 5, 7, 9] })
        expect(await store.readArchive(threadId, { fromSeq: 2, toSeq: 7 })).toStrictEqual([
          items[2],
          items[4],
          items[6],
        ])
        expect(seqsOf(await store.readArchive(threadId, { limit: 2 }))).toEqual([1, 3])
        expect(seqsOf(await store.readArchive(threadId, { fromSeq: 4, limit: 1 }))).toEqual([5])
        expect(seqsOf(await store.readArchive(threadId, { toSeq: 5 }))).toEqual([1, 3, 5])
        expect(seqsOf(await store.readArchive(threadId, { fromSeq: 9, toSeq: 9 }))).toEqual([9])
        expect(await store.readArchive(threadId, { fromSeq: 10 })).toEqual([])
        expect(await store.readArchive(threadId, { toSeq: 0 })).toEqual([])
        expect(await store.readArchive(threadId, { fromSeq: 8, toSeq: 2 })).toEqual([])
        expect(await store.readArchive(threadId, { limit: 0 })).toEqual([])
      })
    })

    describe.skipIf(!content)('content', () => {
      const fullRecord = (): ContentRecord => {
        const data = JSON.stringify({
          title: 'Zoë’s page 📄',
          rows: [1, 2, 3],
          nested: { ok: true, none: null },
        })
        return {
          id: 'mem_full',
          type: 'json',
          source: 'web_fetch',
          tags: ['web', 'ünicode'],
          ts: FIXTURE_BASE_TS + 1,
          size: new TextEncoder().encode(data).length,
          level: 'task',
          mediaType: 'application/json',
          data,
          meta: {
            url: 'https://example.com/a?b=c&d=e',
            headers: { 'content-type': 'application/json' },
            list: [],
          },
        }
      }

      it('stores a record and returns it verbatim', async () => {
        const threadId = newThreadId()
        const record = fullRecord()
        await store.putContent(threadId, record)
        expect(await store.getContent(threadId, record.id)).toStrictEqual(fullRecord())
        const { source: _omitted, ...minimal } = makeContentRecord({ id: 'mem_minimal' })
        await store.putContent(threadId, minimal)
        expect(await store.getContent(threadId, 'mem_minimal')).toStrictEqual(minimal)
      })

      it('returns undefined for an unknown id or thread', async () => {
        const threadId = newThreadId()
        expect(await store.getContent(threadId, 'mem_missing')).toBeUndefined()
        await store.putContent(threadId, makeContentRecord({ id: 'mem_present' }))
        expect(await store.getContent(threadId, 'mem_missing')).toBeUndefined()
        expect(await store.getContent(newThreadId(), 'mem_present')).toBeUndefined()
      })

      it('replaces a record with the same id', async () => {
        const threadId = newThreadId()
        await store.putContent(threadId, makeContentRecord({ id: 'mem_1', data: 'first', tags: ['old'] }))
        const replacement = makeContentRecord({
          id: 'mem_1',
          data: 'second',
          tags: ['new'],
          type: 'web-page',
        })
        await store.putContent(threadId, replacement)
        expect(await store.getContent(threadId, 'mem_1')).toStrictEqual(replacement)
        expect(await store.queryContent(threadId)).toStrictEqual([replacement])
      })

      it('stores and returns copies', async () => {
        const threadId = newThreadId()
        const record = fullRecord()
        await store.putContent(threadId, record)
        scribble(record)
        const got = await store.getContent(threadId, 'mem_full')
        expect(got).toStrictEqual(fullRecord())
        scribble(got)
        scribble(await store.queryContent(threadId))
        expect(await store.getContent(threadId, 'mem_full')).toStrictEqual(fullRecord())
      })

      it('queries newest first, by ts then by id descending', async () => {
        const threadId = newThreadId()
        for (const [id, ts] of [
          ['mem_b', 2],
          ['mem_a', 5],
          ['mem_c', 5],
          ['mem_d', 1],
          ['mem_e', 5],
        ] as const) {
          await store.putContent(threadId, makeContentRecord({ id, ts: FIXTURE_BASE_TS + ts }))
        }
        const ids = (await store.queryContent(threadId)).map((record) => record.id)
        expect(ids).toEqual(['mem_e', 'mem_c', 'mem_a', 'mem_b', 'mem_d'])
        expect((await store.queryContent(threadId, {})).map((record) => record.id)).toEqual(ids)
      })

      describe('queryContent filters', () => {
        const records = (): ContentRecord[] =>
          [
            {
              id: 'mem_1',
              type: 'web-page',
              source: 'fetch',
              level: 'task',
              tags: ['web', 'news'],
              ts: 1,
              data: 'Breaking NEWS: Strata ships',
            },
            {
              id: 'mem_2',
              type: 'web-page',
              source: 'fetch',
              level: 'project',
              tags: ['web'],
              ts: 2,
              data: 'Weather report',
            },
            {
              id: 'mem_3',
              type: 'json',
              source: 'query_db',
              level: 'task',
              tags: ['db', 'news'],
              ts: 3,
              data: '{"rows":[{"headline":"News of the day"}]}',
            },
            {
              id: 'mem_4',
              type: 'text',
              source: 'user',
              level: 'global',
              tags: [],
              ts: 4,
              data: 'A note about nothing',
            },
            {
              id: 'mem_5',
              type: 'web-page',
              source: 'fetch',
              level: 'task',
              tags: ['web', 'news', 'archived'],
              ts: 5,
              data: 'Old news, ARCHIVED',
            },
          ].map(({ ts, ...fields }) => makeContentRecord({ ...fields, ts: FIXTURE_BASE_TS + ts }))
        const query = async (threadId: string, filters: ContentQuery) =>
          (await store.queryContent(threadId, filters)).map((found) => found.id)
        const seeded = async (): Promise<string> => {
          const threadId = newThreadId()
          for (const each of records()) await store.putContent(threadId, each)
          return threadId
        }

        it('returns every record without filters, and matching records verbatim', async () => {
          const threadId = await seeded()
          expect(await query(threadId, {})).toEqual(['mem_5', 'mem_4', 'mem_3', 'mem_2', 'mem_1'])
          expect(await store.queryContent(threadId, { source: 'query_db' })).toStrictEqual([records()[2]])
        })

        it('filters by type, source and level', async () => {
          const threadId = await seeded()
          expect(await query(threadId, { type: 'web-page' })).toEqual(['mem_5', 'mem_2', 'mem_1'])
          expect(await query(threadId, { type: 'image' })).toEqual([])
          expect(await query(threadId, { source: 'fetch' })).toEqual(['mem_5', 'mem_2', 'mem_1'])
          expect(await query(threadId, { source: 'query_db' })).toEqual(['mem_3'])
          expect(await query(threadId, { level: 'task' })).toEqual(['mem_5', 'mem_3', 'mem_1'])
          expect(await query(threadId, { level: 'global' })).toEqual(['mem_4'])
        })

        it('filters by tags: every listed tag must be present', async () => {
          const threadId = await seeded()
          expect(await query(threadId, { tags: ['news'] })).toEqual(['mem_5', 'mem_3', 'mem_1'])
          expect(await query(threadId, { tags: ['web', 'news'] })).toEqual(['mem_5', 'mem_1'])
          expect(await query(threadId, { tags: ['news', 'web', 'archived'] })).toEqual(['mem_5'])
          expect(await query(threadId, { tags: ['web', 'missing'] })).toEqual([])
          expect(await query(threadId, { tags: [] })).toEqual(['mem_5', 'mem_4', 'mem_3', 'mem_2', 'mem_1'])
        })

        it('filters by an inclusive ts range', async () => {
          const threadId = await seeded()
          const at = (offset: number) => FIXTURE_BASE_TS + offset
          expect(await query(threadId, { fromTs: at(2), toTs: at(4) })).toEqual(['mem_4', 'mem_3', 'mem_2'])
          expect(await query(threadId, { fromTs: at(4) })).toEqual(['mem_5', 'mem_4'])
          expect(await query(threadId, { toTs: at(1) })).toEqual(['mem_1'])
          expect(await query(threadId, { fromTs: at(3), toTs: at(3) })).toEqual(['mem_3'])
          expect(await query(threadId, { fromTs: at(6) })).toEqual([])
          expect(await query(threadId, { fromTs: at(4), toTs: at(2) })).toEqual([])
        })

        it('matches text as a case-insensitive substring of data', async () => {
          const threadId = await seeded()
          expect(await query(threadId, { text: 'news' })).toEqual(['mem_5', 'mem_3', 'mem_1'])
          expect(await query(threadId, { text: 'NEWS' })).toEqual(['mem_5', 'mem_3', 'mem_1'])
          expect(await query(threadId, { text: 'strata SHIPS' })).toEqual(['mem_1'])
          expect(await query(threadId, { text: '"headline":"news' })).toEqual(['mem_3'])
          expect(await query(threadId, { text: 'archived' })).toEqual(['mem_5'])
          expect(await query(threadId, { text: 'absent' })).toEqual([])
        })

        it('applies every given filter together', async () => {
          const threadId = await seeded()
          expect(await query(threadId, { type: 'web-page', tags: ['news'] })).toEqual(['mem_5', 'mem_1'])
          expect(await query(threadId, { level: 'task', text: 'news', toTs: FIXTURE_BASE_TS + 3 })).toEqual([
            'mem_3',
            'mem_1',
          ])
          expect(
            await query(threadId, {
              type: 'web-page',
              source: 'fetch',
              level: 'task',
              tags: ['news'],
              text: 'archived',
              fromTs: FIXTURE_BASE_TS + 1,
              toTs: FIXTURE_BASE_TS + 5,
            }),
          ).toEqual(['mem_5'])
          expect(await query(threadId, { type: 'json', source: 'fetch' })).toEqual([])
        })

        it('applies limit after sorting newest first', async () => {
          const threadId = await seeded()
          expect(await query(threadId, { limit: 2 })).toEqual(['mem_5', 'mem_4'])
          expect(await query(threadId, { type: 'web-page', limit: 1 })).toEqual(['mem_5'])
          expect(await query(threadId, { tags: ['news'], limit: 10 })).toEqual(['mem_5', 'mem_3', 'mem_1'])
          expect(await query(threadId, { limit: 0 })).toEqual([])
        })

        it('keeps content per thread', async () => {
          const threadId = await seeded()
          const other = newThreadId()
          expect(await store.queryContent(other)).toEqual([])
          await store.putContent(other, makeContentRecord({ id: 'mem_1', data: 'other thread' }))
          expect(await query(threadId, {})).toHaveLength(5)
          expect((await store.getContent(threadId, 'mem_1'))?.data).toBe('Breaking NEWS: Strata ships')
          expect((await store.getContent(other, 'mem_1'))?.data).toBe('other thread')
        })
      })
    })

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

/** Calls `call` and returns its Strata error, failing unless it rejects with exactly `code`. */
async function expectStrataError(
  call: () => Promise<unknown>,
  code: StrataErrorCode,
  label = 'the call',
): Promise<StrataError> {
  let pending: Promise<unknown>
  try {
    pending = call()
  } catch (error) {
    throw new Error(
      `${label} threw synchronously (${String(error)}); store methods must return a rejected promise.`,
    )
  }
  let error: unknown
  try {
    await pending
  } catch (caught) {
    error = caught
  }
  if (error === undefined) throw new Error(`${label} succeeded; expected a StrataError with code ${code}.`)
  if (!StrataError.isInstance(error, code)) {
    throw new Error(`${label} failed with ${String(error)}; expected a StrataError with code ${code}.`, {
      cause: error,
    })
  }
  return error
}

function describeValue(value: unknown): string {
  return `thread id ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`
}

/** A deep copy, taken before a test mutates the original. */
function deepCopy<T>(items: T): T {
  return JSON.parse(JSON.stringify(items)) as T
}

/** Mutates every object and array reachable from `value`, to prove a store kept its own copy. */
function scribble(value: unknown): void {
  if (Array.isArray(value)) {
    for (const element of value) scribble(element)
    value.push('scribbled')
  } else if (typeof value === 'object' && value !== null) {
    const object = value as Record<string, unknown>
    for (const [key, element] of Object.entries(object)) {
      scribble(element)
      if (typeof element === 'string') object[key] = `${element} scribbled`
      if (typeof element === 'number') object[key] = element + 1
    }
    object.scribbled = true
  }
}
