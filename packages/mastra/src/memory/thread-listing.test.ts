import { createMemory, inMemoryStore } from '@strata-memory/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { strataAgent } from '../testing/agent-harness'
import type { MastraThreadRecord } from '../threads/thread-record'
import { filterThreads, sameJson } from './thread-listing'

const record = (threadId: string, metadata: MastraThreadRecord['metadata']): MastraThreadRecord => ({
  threadId,
  resourceId: 'ana',
  createdAt: '2026-11-01T00:00:00.000Z',
  updatedAt: '2026-11-01T00:00:00.000Z',
  ...(metadata === undefined ? {} : { metadata }),
})

/** The same JSON value with every object's keys in reverse order. */
const reversedKeys = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(reversedKeys)
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([key, entry]) => [key, reversedKeys(entry)]),
  )
}

describe('thread listing filters', () => {
  it('a nested metadata filter matches whatever the key order', () => {
    const records = [
      record('a', { project: { name: 'garden', owner: { id: 7, team: 'x' } }, tags: ['a', 'b'] }),
      record('b', { project: { name: 'garden', owner: { id: 8, team: 'x' } } }),
    ]
    const found = filterThreads(records, {
      filter: { metadata: { project: { owner: { team: 'x', id: 7 }, name: 'garden' } } },
    })
    expect(found.map((entry) => entry.threadId)).toEqual(['a'])
    expect(filterThreads(records, { filter: { metadata: { tags: ['b', 'a'] } } })).toEqual([])
  })

  it('sameJson: equal under any key order, and only then', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        expect(sameJson(a, reversedKeys(a))).toBe(true)
        expect(sameJson(a, b)).toBe(JSON.stringify(canonical(a)) === JSON.stringify(canonical(b)))
      }),
    )
  })
})

/** Sorted keys, -0 as 0 (JSON has one zero). */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical)
  if (typeof value !== 'object' || value === null) return Object.is(value, -0) ? 0 : value
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
  )
}

describe('listThreads by resource (Studio’s thread list)', () => {
  it('pages as Mastra pages: a page below 0 or a negative size is STRATA_INVALID_OPTIONS; perPage 0 is an empty page', async () => {
    const { strata } = strataAgent(createMemory(), [])
    const now = new Date()
    for (const id of ['a', 'b', 'c']) {
      await strata.saveThread({ thread: { id, resourceId: 'ana', createdAt: now, updatedAt: now } })
    }
    const list = (page: unknown, perPage: unknown) =>
      strata.listThreads({ filter: { resourceId: 'ana' }, page, perPage } as never)
    for (const [page, perPage] of [
      [-1, 10],
      [0.5, 10],
      [0, -1],
      [0, 1.5],
      ['1', 10],
    ]) {
      await expect(list(page, perPage), JSON.stringify([page, perPage])).rejects.toMatchObject({
        code: 'STRATA_INVALID_OPTIONS',
      })
    }
    await expect(list(-1, 10)).rejects.toThrow('page must be a whole number of at least 0 (got -1).')
    expect(await list(0, 0)).toMatchObject({ threads: [], total: 3, perPage: 0 })
    expect(await list(1, 2)).toMatchObject({ total: 3, page: 1, hasMore: false })
    expect((await list(1, 2)).threads).toHaveLength(1)
    expect(await list(0, false)).toMatchObject({ total: 3, hasMore: false })
  })

  it("reads only the resource's own threads, a thread saved but never run included", async () => {
    const store = inMemoryStore()
    const statesRead: string[] = []
    const counted = new Proxy(store, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver)
        if (key !== 'getState' || typeof value !== 'function') return value
        return (threadId: string) => {
          statesRead.push(threadId)
          return value.call(target, threadId)
        }
      },
    })
    const memory = createMemory({ store: counted })
    const { agent, strata } = strataAgent(memory, [{ text: 'Hello, Ana.' }])
    const now = new Date()
    for (let index = 0; index < 30; index++) {
      await strata.saveThread({
        thread: { id: `bob/${index}`, resourceId: 'bob', createdAt: now, updatedAt: now },
      })
    }
    await strata.saveThread({
      thread: { id: 'ana/saved', resourceId: 'ana', title: 'Saved only', createdAt: now, updatedAt: now },
    })
    await agent.generate('Hi', { memory: { thread: 'ana/chat', resource: 'ana' } })
    statesRead.length = 0
    const { threads, total } = await strata.listThreads({ filter: { resourceId: 'ana' }, perPage: 10 })
    expect(threads.map((thread) => thread.id).sort()).toEqual(['ana/chat', 'ana/saved'])
    expect(total).toBe(2)
    expect(new Set(statesRead)).toEqual(new Set(['_.ana_2Fchat', '_.ana_2Fsaved']))
    // Without a resource, every thread is listed.
    expect((await strata.listThreads({ perPage: false })).total).toBe(32)
  })
})
