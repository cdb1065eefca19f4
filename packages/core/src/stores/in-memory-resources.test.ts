import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { indexOrder, listAllResourceThreads } from '../testing/store-conformance-resource'
import { inMemoryStore } from './in-memory-store'

/** Touches of a few threads at a few times (ties common), in any order, repeats allowed. */
const touches = fc.array(
  fc.record({ thread: fc.integer({ min: 0, max: 30 }), at: fc.integer({ min: 0, max: 8 }) }),
  {
    maxLength: 80,
  },
)

describe('inMemoryStore: the resource thread index', () => {
  it('paging through any set of entries returns each exactly once, newest first, ties by id', async () => {
    await fc.assert(
      fc.asyncProperty(touches, fc.integer({ min: 1, max: 12 }), async (writes, limit) => {
        const store = inMemoryStore()
        const latest = new Map<string, number>()
        for (const { thread, at } of writes) {
          const threadId = `t-${thread}`
          await store.touchResourceThread('user-1', threadId, at)
          latest.set(threadId, Math.max(latest.get(threadId) ?? 0, at))
        }
        const expected = indexOrder(
          [...latest].map(([threadId, lastAppendAt]) => ({ threadId, lastAppendAt })),
        )
        const { threads, pages } = await listAllResourceThreads(store, 'user-1', limit)
        expect(threads).toEqual(expected)
        for (const page of pages.slice(0, -1)) expect(page).toHaveLength(limit)
      }),
    )
  })

  it('touches between pages never repeat an entry and never lose an untouched one', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 25 }),
        fc.array(fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 4 }), { maxLength: 10 }),
        fc.integer({ min: 1, max: 5 }),
        async (size, touchesPerPage, limit) => {
          const store = inMemoryStore()
          const ids = Array.from({ length: size }, (_, index) => `t-${String(index).padStart(2, '0')}`)
          for (const [index, threadId] of ids.entries())
            await store.touchResourceThread('user-1', threadId, index % 4)
          const touched = new Set<string>()
          const seen: string[] = []
          let cursor: string | undefined
          let pageNumber = 0
          do {
            const page = await store.listResourceThreads(
              'user-1',
              cursor === undefined ? { limit } : { limit, cursor },
            )
            seen.push(...page.threads.map((entry) => entry.threadId))
            cursor = page.cursor
            for (const thread of touchesPerPage[pageNumber] ?? []) {
              const threadId = `t-${String(thread).padStart(2, '0')}`
              touched.add(threadId)
              await store.touchResourceThread('user-1', threadId, 100 + pageNumber)
            }
            pageNumber += 1
          } while (cursor !== undefined)
          expect(new Set(seen).size).toBe(seen.length)
          for (const threadId of ids.filter((id) => !touched.has(id))) expect(seen).toContain(threadId)
        },
      ),
    )
  })
})
