import { afterEach, describe, expect, it } from 'vitest'
import type { ResourceThreadEntry, StoreResourceMethods, StrataStore } from '../stores'
import { RESOURCE_METHODS } from '../stores/store-check'
import type { ConformanceSuite } from './store-conformance-content'
import { expectStrataError } from './store-conformance-helpers'
import type { ResourceCases } from './store-conformance-resource-cases'
import { CLOCK_SLACK_MS, describeResourceDataConformance } from './store-conformance-resource-data'

/** What the resource cases need beside the shared suite parts. */
export interface ResourceConformanceSuite extends ConformanceSuite {
  /**
   * Whether the store implements the resource capability. Undefined: the cases run when the store
   * declares `flags.resources`, and are skipped when it does not.
   */
  resources: boolean | undefined
  /** The prefix of every id the suite creates, unique per run (so a shared database is fine). */
  idPrefix: string
}

/** Every entry of a resource's index, following cursors page by page. */
export async function listAllResourceThreads(
  store: StoreResourceMethods,
  resourceId: string,
  limit?: number,
): Promise<{ threads: ResourceThreadEntry[]; pages: ResourceThreadEntry[][] }> {
  const pages: ResourceThreadEntry[][] = []
  let cursor: string | undefined
  do {
    const options = limit === undefined ? {} : { limit }
    const page = await store.listResourceThreads(
      resourceId,
      cursor === undefined ? options : { ...options, cursor },
    )
    pages.push(page.threads)
    cursor = page.cursor
    if (pages.length > 10_000) throw new Error('listResourceThreads: the cursors never end')
  } while (cursor !== undefined)
  return { threads: pages.flat(), pages }
}

/** The index order: newest `lastAppendAt` first, ties by thread id ascending. */
export function indexOrder(entries: readonly ResourceThreadEntry[]): ResourceThreadEntry[] {
  return [...entries].sort((left, right) =>
    left.lastAppendAt !== right.lastAppendAt
      ? right.lastAppendAt - left.lastAppendAt
      : left.threadId < right.threadId
        ? -1
        : left.threadId > right.threadId
          ? 1
          : 0,
  )
}

/** A small seeded generator (mulberry32): the suite's random cases are the same on every run. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let value = state
    value = Math.imul(value ^ (value >>> 15), value | 1)
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61)
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296
  }
}

/**
 * The conformance cases of the resource capability (contract `v2`, `flags.resources`): bindings with
 * compare-and-set, the thread index and its paging, working memory versions, documents, vectors, and
 * what `deleteThread` and `deleteResource` remove.
 */
export function describeResourceConformance(suite: ResourceConformanceSuite): void {
  let counter = 0
  let createdResources: string[] = []
  const store = () => suite.store() as StrataStore & StoreResourceMethods
  const declared = () =>
    suite.store().flags.resources === true &&
    RESOURCE_METHODS.every((method) => typeof suite.store()[method] === 'function')
  const cases: ResourceCases = {
    store,
    newThreadId: suite.newThreadId,
    threadWithItems: suite.threadWithItems,
    newResourceId: () => {
      counter += 1
      const resourceId = `${suite.idPrefix}res-${counter}`
      createdResources.push(resourceId)
      return resourceId
    },
    requireResources: (context) => {
      if (suite.resources === false || (suite.resources === undefined && !declared())) {
        context.skip('the store declares no resource capability')
      }
    },
  }
  const { newThreadId, newResourceId, requireResources } = cases

  if (suite.resources !== undefined) {
    it(
      suite.resources
        ? 'declares the resource capability and has its methods'
        : 'declares no resource capability',
      () => {
        expect(declared()).toBe(suite.resources)
        if (!suite.resources) expect(suite.store().flags.resources ?? false).toBe(false)
      },
    )
  }

  describe('resources', () => {
    afterEach(async () => {
      const resources = createdResources
      createdResources = []
      if (suite.resources === false || (suite.resources === undefined && !declared())) return
      await Promise.allSettled(resources.map((resourceId) => store().deleteResource(resourceId)))
    })

    describe('binding', () => {
      it('binds an unbound thread (expected: undefined) and indexes it as of now', async (context) => {
        requireResources(context)
        const threadId = newThreadId()
        const resourceId = newResourceId()
        expect(await store().getThreadResource(threadId)).toBeUndefined()
        const before = Date.now()
        await store().setThreadResource(threadId, resourceId, { expected: undefined })
        expect(await store().getThreadResource(threadId)).toBe(resourceId)
        const { threads, cursor } = await store().listResourceThreads(resourceId)
        expect(cursor).toBeUndefined()
        expect(threads.map((entry) => entry.threadId)).toEqual([threadId])
        expect(threads[0]!.lastAppendAt).toBeGreaterThanOrEqual(before - CLOCK_SLACK_MS)
        expect(threads[0]!.lastAppendAt).toBeLessThanOrEqual(Date.now() + CLOCK_SLACK_MS)
      })

      it('refuses a stale expected binding with STRATA_SEQ_CONFLICT and changes nothing', async (context) => {
        requireResources(context)
        const threadId = newThreadId()
        const [first, second, third] = [newResourceId(), newResourceId(), newResourceId()]
        // Touched before it is bound: binding keeps the index entry a thread has.
        await store().touchResourceThread(first, threadId, 1_000)
        await store().setThreadResource(threadId, first, { expected: undefined })
        for (const expected of [undefined, second, third]) {
          const error = await expectStrataError(
            () => store().setThreadResource(threadId, third, { expected }),
            'STRATA_SEQ_CONFLICT',
            `expected ${String(expected)}`,
          )
          expect(error.details).toMatchObject({
            threadId,
            expectedResource: expected ?? null,
            actualResource: first,
          })
        }
        const unbound = newThreadId()
        const error = await expectStrataError(
          () => store().setThreadResource(unbound, second, { expected: first }),
          'STRATA_SEQ_CONFLICT',
        )
        expect(error.details).toMatchObject({
          threadId: unbound,
          expectedResource: first,
          actualResource: null,
        })
        expect(await store().getThreadResource(threadId)).toBe(first)
        expect(await store().getThreadResource(unbound)).toBeUndefined()
        expect((await store().listResourceThreads(first)).threads).toEqual([
          { threadId, lastAppendAt: 1_000 },
        ])
        expect((await store().listResourceThreads(second)).threads).toEqual([])
        expect((await store().listResourceThreads(third)).threads).toEqual([])
      })

      it('moving a thread moves its index entry, keeping its lastAppendAt', async (context) => {
        requireResources(context)
        const [threadId, other] = [newThreadId(), newThreadId()]
        const [from, to] = [newResourceId(), newResourceId()]
        await store().touchResourceThread(from, threadId, 2_000)
        await store().touchResourceThread(from, other, 1_000)
        await store().setThreadResource(threadId, from, { expected: undefined })
        await store().setThreadResource(other, from, { expected: undefined })
        await store().setThreadResource(threadId, to, { expected: from })
        expect(await store().getThreadResource(threadId)).toBe(to)
        expect((await store().listResourceThreads(from)).threads).toEqual([
          { threadId: other, lastAppendAt: 1_000 },
        ])
        expect((await store().listResourceThreads(to)).threads).toEqual([{ threadId, lastAppendAt: 2_000 }])
        // Back again, with the binding it now has.
        await store().setThreadResource(threadId, from, { expected: to })
        expect((await store().listResourceThreads(to)).threads).toEqual([])
        expect((await listAllResourceThreads(store(), from)).threads).toEqual([
          { threadId, lastAppendAt: 2_000 },
          { threadId: other, lastAppendAt: 1_000 },
        ])
      })

      it('binding a thread to the resource it has is a no-op that keeps one index entry', async (context) => {
        requireResources(context)
        const threadId = newThreadId()
        const resourceId = newResourceId()
        await store().touchResourceThread(resourceId, threadId, 3_000)
        await store().setThreadResource(threadId, resourceId, { expected: undefined })
        await store().setThreadResource(threadId, resourceId, { expected: resourceId })
        await store().setThreadResource(threadId, resourceId, { expected: resourceId })
        expect(await store().getThreadResource(threadId)).toBe(resourceId)
        expect((await store().listResourceThreads(resourceId)).threads).toEqual([
          { threadId, lastAppendAt: 3_000 },
        ])
      })

      it('of many writers binding one unbound thread at once, exactly one wins', async (context) => {
        requireResources(context)
        const threadId = newThreadId()
        const candidates = Array.from({ length: 8 }, () => newResourceId())
        const results = await Promise.allSettled(
          candidates.map((resourceId) =>
            store().setThreadResource(threadId, resourceId, { expected: undefined }),
          ),
        )
        const winners = candidates.filter((_, index) => results[index]!.status === 'fulfilled')
        expect(winners).toHaveLength(1)
        for (const result of results) {
          if (result.status === 'rejected')
            expect((result.reason as { code?: string }).code).toBe('STRATA_SEQ_CONFLICT')
        }
        expect(await store().getThreadResource(threadId)).toBe(winners[0])
        for (const resourceId of candidates) {
          const threads = (await store().listResourceThreads(resourceId)).threads.map(
            (entry) => entry.threadId,
          )
          expect(threads, resourceId).toEqual(resourceId === winners[0] ? [threadId] : [])
        }
      })

      it('a binding alone does not make a thread listed, nor give it data', async (context) => {
        requireResources(context)
        const threadId = newThreadId()
        await store().setThreadResource(threadId, newResourceId(), { expected: undefined })
        expect(await store().listThreads()).not.toContain(threadId)
        expect(await store().head(threadId)).toEqual({ lastSeq: 0, activeCount: 0, archivedCount: 0 })
      })

      it('refuses bad options with STRATA_INVALID_OPTIONS or STRATA_INVALID_THREAD_ID, binding nothing', async (context) => {
        requireResources(context)
        const threadId = newThreadId()
        const resourceId = newResourceId()
        await expectStrataError(
          () => store().setThreadResource(threadId, resourceId, undefined as never),
          'STRATA_INVALID_OPTIONS',
        )
        await expectStrataError(
          () => store().setThreadResource(threadId, resourceId, {} as never),
          'STRATA_INVALID_OPTIONS',
        )
        await expectStrataError(
          () => store().setThreadResource(threadId, resourceId, { expected: 'not/an id' }),
          'STRATA_INVALID_THREAD_ID',
        )
        expect(await store().getThreadResource(threadId)).toBeUndefined()
        expect((await store().listResourceThreads(resourceId)).threads).toEqual([])
      })
    })

    describe('thread index', () => {
      it('touch is an upsert where a later time wins', async (context) => {
        requireResources(context)
        const threadId = newThreadId()
        const resourceId = newResourceId()
        await store().touchResourceThread(resourceId, threadId, 500)
        await store().touchResourceThread(resourceId, threadId, 300)
        expect((await store().listResourceThreads(resourceId)).threads).toEqual([
          { threadId, lastAppendAt: 500 },
        ])
        await store().touchResourceThread(resourceId, threadId, 900)
        expect((await store().listResourceThreads(resourceId)).threads).toEqual([
          { threadId, lastAppendAt: 900 },
        ])
      })

      it('pages newest first by lastAppendAt, ties by thread id, each entry once', async (context) => {
        requireResources(context)
        const resourceId = newResourceId()
        const ids = Array.from({ length: 7 }, () => newThreadId())
        const times = [100, 300, 300, 200, 300, 100, 400]
        for (const [index, threadId] of ids.entries()) {
          await store().touchResourceThread(resourceId, threadId, times[index]!)
        }
        const expected = indexOrder(ids.map((threadId, index) => ({ threadId, lastAppendAt: times[index]! })))
        expect(expected[0]).toEqual({ threadId: ids[6], lastAppendAt: 400 })
        for (const limit of [1, 2, 3, 7, 50]) {
          const { threads, pages } = await listAllResourceThreads(store(), resourceId, limit)
          expect(threads, `limit ${limit}`).toEqual(expected)
          expect(pages.length).toBe(Math.max(1, Math.ceil(expected.length / limit)))
          for (const page of pages.slice(0, -1)) expect(page).toHaveLength(limit)
        }
      })

      it('paging any set of entries returns each exactly once, in order (seeded random cases)', async (context) => {
        requireResources(context)
        const random = seededRandom(25)
        for (let run = 0; run < 6; run++) {
          const resourceId = newResourceId()
          const size = Math.floor(random() * 24)
          const entries = Array.from({ length: size }, () => ({
            threadId: newThreadId(),
            // Few distinct times, so that ties are common.
            lastAppendAt: 1_000 + Math.floor(random() * 6),
          }))
          await Promise.all(
            entries.map((entry) =>
              store().touchResourceThread(resourceId, entry.threadId, entry.lastAppendAt),
            ),
          )
          const limit = 1 + Math.floor(random() * 6)
          const { threads } = await listAllResourceThreads(store(), resourceId, limit)
          expect(threads, `run ${run}: ${size} entries, limit ${limit}`).toEqual(indexOrder(entries))
        }
      })

      it('a cursor stays valid while entries are touched: no entry twice, every untouched one once', async (context) => {
        requireResources(context)
        const resourceId = newResourceId()
        const ids = Array.from({ length: 10 }, () => newThreadId())
        for (const [index, threadId] of ids.entries()) {
          await store().touchResourceThread(resourceId, threadId, 1_000 + index * 10)
        }
        const first = await store().listResourceThreads(resourceId, { limit: 3 })
        expect(first.threads.map((entry) => entry.threadId)).toEqual([ids[9], ids[8], ids[7]])
        // One already returned, one not yet returned and one new entry move to the front.
        const touched = [ids[8]!, ids[2]!]
        const added = newThreadId()
        for (const threadId of [...touched, added])
          await store().touchResourceThread(resourceId, threadId, 5_000)
        const seen = first.threads.map((entry) => entry.threadId)
        let cursor = first.cursor
        while (cursor !== undefined) {
          const page = await store().listResourceThreads(resourceId, { limit: 3, cursor })
          expect(indexOrder(page.threads)).toEqual(page.threads)
          seen.push(...page.threads.map((entry) => entry.threadId))
          cursor = page.cursor
        }
        expect(new Set(seen).size).toBe(seen.length)
        for (const threadId of ids.filter((id) => !touched.includes(id))) {
          expect(
            seen.filter((id) => id === threadId),
            threadId,
          ).toHaveLength(1)
        }
        // A fresh listing has them all, the touched ones first.
        const { threads } = await listAllResourceThreads(store(), resourceId, 4)
        expect(threads.slice(0, 3).map((entry) => entry.threadId)).toEqual([added, ids[2], ids[8]].sort())
        expect(threads).toHaveLength(11)
      })

      it('a page holds 50 entries when no limit is given, up to 1000 when asked', async (context) => {
        requireResources(context)
        const resourceId = newResourceId()
        const ids = Array.from({ length: 51 }, () => newThreadId())
        await Promise.all(
          ids.map((threadId, index) => store().touchResourceThread(resourceId, threadId, index)),
        )
        const page = await store().listResourceThreads(resourceId)
        expect(page.threads).toHaveLength(50)
        expect(typeof page.cursor).toBe('string')
        const rest = await store().listResourceThreads(resourceId, { cursor: page.cursor! })
        expect(rest).toEqual({ threads: [{ threadId: ids[0], lastAppendAt: 0 }] })
        const whole = await store().listResourceThreads(resourceId, { limit: 1000 })
        expect(whole.threads).toHaveLength(51)
        expect(whole.cursor).toBeUndefined()
      })

      it('refuses bad limits and cursors with STRATA_INVALID_OPTIONS', async (context) => {
        requireResources(context)
        const resourceId = newResourceId()
        await store().touchResourceThread(resourceId, newThreadId(), 1)
        for (const limit of [0, -1, 1.5, 1001, Number.NaN, '2']) {
          await expectStrataError(
            () => store().listResourceThreads(resourceId, { limit: limit as number }),
            'STRATA_INVALID_OPTIONS',
            `limit ${String(limit)}`,
          )
        }
        for (const cursor of ['garbage', '', 'r1.x.y', '{"a":1}', 42, null]) {
          await expectStrataError(
            () => store().listResourceThreads(resourceId, { cursor: cursor as string }),
            'STRATA_INVALID_OPTIONS',
            `cursor ${JSON.stringify(cursor)}`,
          )
        }
        for (const lastAppendAt of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '5']) {
          await expectStrataError(
            () => store().touchResourceThread(resourceId, newThreadId(), lastAppendAt as number),
            'STRATA_INVALID_OPTIONS',
            `lastAppendAt ${String(lastAppendAt)}`,
          )
        }
        expect((await store().listResourceThreads(resourceId)).threads).toHaveLength(1)
      })

      it('an unknown resource has an empty index, no working memory and no documents', async (context) => {
        requireResources(context)
        const resourceId = newResourceId()
        expect(await store().listResourceThreads(resourceId)).toEqual({ threads: [] })
        expect(await store().getWorkingMemory(resourceId)).toBeUndefined()
        expect(await store().listDocuments(resourceId)).toEqual([])
      })

      it('returns fresh entries: changing a page changes nothing stored', async (context) => {
        requireResources(context)
        const resourceId = newResourceId()
        const threadId = newThreadId()
        await store().touchResourceThread(resourceId, threadId, 7)
        const page = await store().listResourceThreads(resourceId)
        page.threads[0]!.lastAppendAt = 99
        page.threads.push({ threadId: 'x', lastAppendAt: 1 })
        expect(await store().listResourceThreads(resourceId)).toEqual({
          threads: [{ threadId, lastAppendAt: 7 }],
        })
      })
    })

    describeResourceDataConformance(cases)
  })
}
