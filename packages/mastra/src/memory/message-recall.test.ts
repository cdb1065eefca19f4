import { createMemory, inMemoryStore, type StrataStore } from '@strata-memory/core'
import { describe, expect, it } from 'vitest'
import { StrataMemory } from './strata-memory'

/** An in-memory store that counts the items its reads return. */
function countingStore() {
  const store = inMemoryStore()
  const counts = { items: 0, reads: 0 }
  const counting = new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver)
      if ((key === 'read' || key === 'readArchive') && typeof value === 'function') {
        return async (...args: unknown[]) => {
          const items = await value.apply(target, args)
          counts.reads += 1
          counts.items += items.length
          return items
        }
      }
      return typeof value === 'function' ? value.bind(target) : value
    },
  }) as StrataStore
  return { store: counting, counts }
}

const ITEMS = 10_000

async function longThread() {
  const { store, counts } = countingStore()
  const memory = createMemory({ store, compaction: { autoTransitions: false, waterfall: false } })
  const strata = new StrataMemory({ memory })
  await strata.saveThread({
    thread: { id: 'ana/long', resourceId: 'ana', createdAt: new Date(), updatedAt: new Date() },
  })
  const thread = await strata.thread('ana/long')
  await thread.append(
    Array.from({ length: ITEMS }, (_, index) => ({
      role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
      content: `message ${index + 1}`,
    })),
  )
  // The older half in the archive, as budget compaction leaves a long thread.
  await store.archive(thread.id, { seqs: Array.from({ length: ITEMS / 2 }, (_, index) => index + 1) })
  return { strata, counts }
}

const texts = (messages: { content: { parts: unknown[] } }[]) =>
  messages.map((message) => (message.content.parts[0] as { text: string }).text)

describe('recall a page at a time', () => {
  it(`over a ${ITEMS}-item thread reads the page's items, not the thread`, async () => {
    const { strata, counts } = await longThread()
    const reads = async (run: () => Promise<unknown>) => {
      counts.items = 0
      await run()
      return counts.items
    }

    let result = await strata.recall({
      threadId: 'ana/long',
      perPage: 40,
      orderBy: { field: 'createdAt', direction: 'DESC' },
    })
    expect(texts(result.messages).slice(0, 2)).toEqual([`message ${ITEMS}`, `message ${ITEMS - 1}`])
    expect(result.messages).toHaveLength(40)
    expect(result).toMatchObject({ total: ITEMS, page: 0, perPage: 40, hasMore: true })

    // Without orderBy, as Mastra's own memory: page 0 the newest messages, oldest first; later pages
    // go back in time.
    result = await strata.recall({ threadId: 'ana/long', perPage: 40 })
    expect(texts(result.messages)).toEqual(
      Array.from({ length: 40 }, (_, index) => `message ${ITEMS - 39 + index}`),
    )
    expect(result).toMatchObject({ total: ITEMS, page: 0, perPage: 40, hasMore: true })
    result = await strata.recall({ threadId: 'ana/long', perPage: 40, page: 249 })
    expect(texts(result.messages)[0]).toBe('message 1')
    expect(result.hasMore).toBe(false)

    const ascending = { field: 'createdAt', direction: 'ASC' } as const
    result = await strata.recall({ threadId: 'ana/long', perPage: 40, page: 100, orderBy: ascending })
    expect(texts(result.messages)).toEqual(
      Array.from({ length: 40 }, (_, index) => `message ${4001 + index}`),
    )

    result = await strata.recall({ threadId: 'ana/long', perPage: 40, page: 249, orderBy: ascending })
    expect(texts(result.messages).at(-1)).toBe(`message ${ITEMS}`)
    expect(result.hasMore).toBe(false)
    // A page across the archive's end: both halves.
    result = await strata.recall({ threadId: 'ana/long', perPage: 40, page: 124, orderBy: ascending })
    expect(texts(result.messages)).toEqual(
      Array.from({ length: 40 }, (_, index) => `message ${4961 + index}`),
    )

    for (const args of [
      { perPage: 40, orderBy: { direction: 'DESC' as const } },
      { perPage: 40 },
      { perPage: 40, page: 100 },
      { perPage: 40, page: 100, orderBy: ascending },
      { perPage: 40, page: 124, orderBy: ascending },
      { perPage: 40, page: 249, orderBy: ascending },
    ]) {
      // The page's items and the one after it (a page never ends between a call and its result).
      expect(await reads(() => strata.recall({ threadId: 'ana/long', ...args }))).toBeLessThanOrEqual(41)
    }
    // The whole thread, read whole: the baseline the pages are measured against.
    expect(await reads(() => strata.recall({ threadId: 'ana/long', perPage: false }))).toBe(ITEMS)
  })

  it("without perPage, pages by the call's or the memory's lastMessages, as Mastra's memory does", async () => {
    const { strata } = await longThread()
    const byCall = await strata.recall({ threadId: 'ana/long', threadConfig: { lastMessages: 2 } })
    expect(texts(byCall.messages)).toEqual([`message ${ITEMS - 1}`, `message ${ITEMS}`])
    expect(byCall).toMatchObject({ perPage: 2, hasMore: true })
    expect((await strata.recall({ threadId: 'ana/long' })).messages).toHaveLength(40)
    const capped = new StrataMemory({ memory: strata.strata, options: { lastMessages: 3 } })
    expect(texts((await capped.recall({ threadId: 'ana/long' })).messages)).toEqual(
      [ITEMS - 2, ITEMS - 1, ITEMS].map((n) => `message ${n}`),
    )
  })

  it('include adds the named message with its neighbours; another resource finds nothing', async () => {
    const { strata } = await longThread()
    const page = await strata.recall({ threadId: 'ana/long', perPage: 2 })
    const all = await strata.recall({ threadId: 'ana/long', perPage: false })
    const target = all.messages[6000]!
    const result = await strata.recall({
      threadId: 'ana/long',
      perPage: 2,
      include: [{ id: target.id, withPreviousMessages: 1, withNextMessages: 1 }],
    })
    // The page (the newest two) and the named message with its neighbours, ordered by createdAt
    // (one append gave them all the same time).
    expect(texts(result.messages).toSorted()).toEqual(
      [...texts(page.messages), 'message 6000', 'message 6001', 'message 6002'].toSorted(),
    )
    expect(texts(page.messages)).toEqual([`message ${ITEMS - 1}`, `message ${ITEMS}`])
    expect((await strata.recall({ threadId: 'ana/long', resourceId: 'bob', perPage: 10 })).messages).toEqual(
      [],
    )
  })
})

describe('recall pages and tool calls', () => {
  it('every page size, newest first or oldest first: a call and its result are on one page, whole, once', async () => {
    const memory = createMemory({ compaction: { autoTransitions: false, waterfall: false } })
    const strata = new StrataMemory({ memory })
    await strata.saveThread({
      thread: { id: 'ana/tools', resourceId: 'ana', createdAt: new Date(), updatedAt: new Date() },
    })
    const thread = await strata.thread('ana/tools')
    for (const city of ['Lisbon', 'Porto', 'Faro']) {
      await thread.append([
        { role: 'user', content: `Weather in ${city}?` },
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: `c-${city}`, toolName: 'weather', input: { city } }],
        },
        {
          role: 'tool',
          content: [
            { type: 'tool-result', toolCallId: `c-${city}`, toolName: 'weather', output: { sky: 'sunny' } },
          ],
        },
        { role: 'assistant', content: `Sunny in ${city}.` },
      ])
    }
    for (const orderBy of [undefined, { field: 'createdAt', direction: 'ASC' } as const]) {
      for (let perPage = 1; perPage <= 6; perPage++) {
        const invocations: { toolCallId: string; state: string; args: unknown }[] = []
        let texts = 0
        for (let page = 0; page < 20; page++) {
          const result = await strata.recall({
            threadId: 'ana/tools',
            perPage,
            page,
            ...(orderBy ? { orderBy } : {}),
          })
          for (const message of result.messages) {
            for (const part of message.content.parts) {
              if (part.type === 'tool-invocation') invocations.push(part.toolInvocation as never)
              if (part.type === 'text') texts++
            }
          }
          if (!result.hasMore) break
        }
        const where = `perPage ${perPage}, ${orderBy === undefined ? 'newest first' : 'oldest first'}`
        expect(invocations.map((invocation) => invocation.toolCallId).sort(), where).toEqual([
          'c-Faro',
          'c-Lisbon',
          'c-Porto',
        ])
        for (const invocation of invocations) {
          expect(invocation, where).toMatchObject({
            state: 'result',
            args: { city: invocation.toolCallId.slice(2) },
          })
        }
        expect(texts, where).toBe(6)
      }
    }
  })
})
