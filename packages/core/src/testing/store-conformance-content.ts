import { describe, expect, it } from 'vitest'
import type { Item } from '../items'
import type { ContentQuery, ContentRecord, StrataStore } from '../stores'
import { FIXTURE_BASE_TS, makeContentRecord } from './fixtures'
import { scribble } from './store-conformance-helpers'

/** What the content cases need from the suite: the store of the running test, and fresh thread ids. */
export interface ConformanceSuite {
  /** The store the current test runs on (a fresh one per test). */
  store: () => StrataStore
  /** A fresh, valid, unique thread id that is deleted after the test. */
  newThreadId: () => string
  /** A thread holding `count` items appended in one call; returns them as stored. */
  threadWithItems: (count: number) => Promise<{ threadId: string; items: Item[] }>
  /** Whether the store implements the optional content methods; the cases are skipped when not. */
  content: boolean
  /**
   * A second store over the same data as the test's store, as another process would open it (closed
   * after the test); the cases across two stores are skipped without it.
   */
  twin?: () => Promise<StrataStore>
}

/** The conformance cases of the optional content methods (`putContent`, `getContent`, `queryContent`). */
export function describeContentConformance(suite: ConformanceSuite): void {
  describe.skipIf(!suite.content)('content', () => {
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
      const threadId = suite.newThreadId()
      const record = fullRecord()
      await suite.store().putContent(threadId, record)
      expect(await suite.store().getContent(threadId, record.id)).toStrictEqual(fullRecord())
      const { source: _omitted, ...minimal } = makeContentRecord({ id: 'mem_minimal' })
      await suite.store().putContent(threadId, minimal)
      expect(await suite.store().getContent(threadId, 'mem_minimal')).toStrictEqual(minimal)
    })

    it('returns undefined for an unknown id or thread', async () => {
      const threadId = suite.newThreadId()
      expect(await suite.store().getContent(threadId, 'mem_missing')).toBeUndefined()
      await suite.store().putContent(threadId, makeContentRecord({ id: 'mem_present' }))
      expect(await suite.store().getContent(threadId, 'mem_missing')).toBeUndefined()
      expect(await suite.store().getContent(suite.newThreadId(), 'mem_present')).toBeUndefined()
    })

    it('replaces a record with the same id', async () => {
      const threadId = suite.newThreadId()
      await suite
        .store()
        .putContent(threadId, makeContentRecord({ id: 'mem_1', data: 'first', tags: ['old'] }))
      const replacement = makeContentRecord({
        id: 'mem_1',
        data: 'second',
        tags: ['new'],
        type: 'web-page',
      })
      await suite.store().putContent(threadId, replacement)
      expect(await suite.store().getContent(threadId, 'mem_1')).toStrictEqual(replacement)
      expect(await suite.store().queryContent(threadId)).toStrictEqual([replacement])
      // Queries filter on the record as it is now, never on the one it replaced.
      expect(await suite.store().queryContent(threadId, { tags: ['old'] })).toEqual([])
      expect(await suite.store().queryContent(threadId, { type: 'text' })).toEqual([])
      expect(await suite.store().queryContent(threadId, { tags: ['new'], type: 'web-page' })).toStrictEqual([
        replacement,
      ])
      const later = makeContentRecord({ id: 'mem_1', ts: FIXTURE_BASE_TS + 50, tags: ['later'] })
      await suite.store().putContent(threadId, later)
      expect(await suite.store().queryContent(threadId, { fromTs: FIXTURE_BASE_TS + 50 })).toStrictEqual([
        later,
      ])
      expect(await suite.store().queryContent(threadId, { toTs: FIXTURE_BASE_TS + 49 })).toEqual([])
    })

    it.skipIf(!suite.twin)(
      'queries show what another store on the same data wrote, replaced or deleted',
      async () => {
        const threadId = suite.newThreadId()
        const store = suite.store()
        const other = await suite.twin!()
        await store.putContent(threadId, makeContentRecord({ id: 'mem_own', ts: FIXTURE_BASE_TS + 1 }))
        expect(await store.queryContent(threadId, { fromTs: FIXTURE_BASE_TS + 2 })).toEqual([])
        const written = makeContentRecord({ id: 'mem_other', ts: FIXTURE_BASE_TS + 2, tags: ['a'] })
        await other.putContent(threadId, written)
        expect(await store.queryContent(threadId, { fromTs: FIXTURE_BASE_TS + 2 })).toStrictEqual([written])
        const replaced = makeContentRecord({ id: 'mem_other', ts: FIXTURE_BASE_TS + 3, tags: ['b'] })
        await other.putContent(threadId, replaced)
        expect(await store.queryContent(threadId, { tags: ['a'] })).toEqual([])
        expect(await store.queryContent(threadId, { tags: ['b'] })).toStrictEqual([replaced])
        expect((await store.queryContent(threadId)).map((record) => record.id)).toEqual([
          'mem_other',
          'mem_own',
        ])
        await other.deleteThread(threadId)
        expect(await store.queryContent(threadId)).toEqual([])
        const again = makeContentRecord({ id: 'mem_again', ts: FIXTURE_BASE_TS + 4 })
        await other.putContent(threadId, again)
        expect(await store.queryContent(threadId)).toStrictEqual([again])
      },
    )

    it('stores and returns copies', async () => {
      const threadId = suite.newThreadId()
      const record = fullRecord()
      await suite.store().putContent(threadId, record)
      scribble(record)
      const got = await suite.store().getContent(threadId, 'mem_full')
      expect(got).toStrictEqual(fullRecord())
      scribble(got)
      scribble(await suite.store().queryContent(threadId))
      expect(await suite.store().getContent(threadId, 'mem_full')).toStrictEqual(fullRecord())
    })

    it('queries newest first, by ts then by id descending', async () => {
      const threadId = suite.newThreadId()
      for (const [id, ts] of [
        ['mem_b', 2],
        ['mem_a', 5],
        ['mem_c', 5],
        ['mem_d', 1],
        ['mem_e', 5],
      ] as const) {
        await suite.store().putContent(threadId, makeContentRecord({ id, ts: FIXTURE_BASE_TS + ts }))
      }
      const ids = (await suite.store().queryContent(threadId)).map((record) => record.id)
      expect(ids).toEqual(['mem_e', 'mem_c', 'mem_a', 'mem_b', 'mem_d'])
      expect((await suite.store().queryContent(threadId, {})).map((record) => record.id)).toEqual(ids)
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
        (await suite.store().queryContent(threadId, filters)).map((found) => found.id)
      const seeded = async (): Promise<string> => {
        const threadId = suite.newThreadId()
        for (const each of records()) await suite.store().putContent(threadId, each)
        return threadId
      }

      it('returns every record without filters, and matching records verbatim', async () => {
        const threadId = await seeded()
        expect(await query(threadId, {})).toEqual(['mem_5', 'mem_4', 'mem_3', 'mem_2', 'mem_1'])
        expect(await suite.store().queryContent(threadId, { source: 'query_db' })).toStrictEqual([
          records()[2],
        ])
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
        const other = suite.newThreadId()
        expect(await suite.store().queryContent(other)).toEqual([])
        await suite.store().putContent(other, makeContentRecord({ id: 'mem_1', data: 'other thread' }))
        expect(await query(threadId, {})).toHaveLength(5)
        expect((await suite.store().getContent(threadId, 'mem_1'))?.data).toBe('Breaking NEWS: Strata ships')
        expect((await suite.store().getContent(other, 'mem_1'))?.data).toBe('other thread')
      })
    })
  })
}
