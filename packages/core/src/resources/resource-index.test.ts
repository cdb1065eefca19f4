import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { citationPart, referenceOf } from '../content/content-reference'
import { distinctFacts } from '../content/memory-query'
import { type KeyedEntry, MemoryRanking } from '../content/memory-ranking'
import { compareEntriesNewestFirst, contentEntry, type MemoryEntry } from '../content/memory-search'
import { searchQuery } from '../content/search-terms'
import { isEchoRecord, searchedEntry, ToolCalls } from '../content/searched-entries'
import type { Item, UnsequencedItem } from '../items'
import { createMemory } from '../memory'
import { type ContentRecord, inMemoryStore, type StrataStore } from '../stores'
import { FIXTURE_BASE_TS } from '../testing/fixtures'

/*
 * The resource index must rank exactly as ranking every entry of the threads afresh from the store
 * would: the reference below reads each thread whole at every query and ranks with the one-thread
 * ranking (BM25F over all entries, facts once, calls answered by their results), as `resource.query`
 * did before it had an index. Between queries the threads are appended to, archived, given content,
 * and deleted and written again, straight through the store as another process would.
 */

const RESOURCE = 'user-1'
const WORDS = [
  'invoice',
  'lyon',
  'budget',
  'kitchen',
  'flight',
  'tuesday',
  'vegan',
  'piano',
  'tax',
  'paris',
  'PO-7001',
  '7001',
]

interface Origin {
  threadId: string
  seq: number
  kind: string
  memoryId?: string
}

/** The reference: every entry of the threads read afresh, ranked by the one-thread ranking. */
async function referenceQuery(store: StrataStore, threadIds: readonly string[], text: string, limit: number) {
  const found: KeyedEntry[] = []
  const origins = new Map<MemoryEntry, Origin>()
  for (const threadId of threadIds) {
    const [items, archived, records] = await Promise.all([
      store.read(threadId),
      store.readArchive(threadId),
      store.queryContent(threadId),
    ])
    const calls = new ToolCalls()
    calls.add(archived)
    calls.add(items)
    const all = [...archived, ...items].sort((left, right) => left.seq - right.seq)
    const citing = new Map<string, number>()
    for (const item of all)
      if (item.type === 'message')
        for (const part of item.content) {
          const id = referenceOf(part)?.id
          if (id !== undefined && !citing.has(id)) citing.set(id, item.seq)
        }
    for (const record of records) {
      if (isEchoRecord(record.source)) continue
      const entry = contentEntry(record)
      let seq = 0
      for (const item of all) if (item.ts <= record.ts) seq = item.seq
      found.push({ key: undefined, entry })
      origins.set(entry, {
        threadId,
        seq: citing.get(record.id) ?? seq,
        kind: 'content',
        memoryId: record.id,
      })
    }
    const take = (item: Item, where: 'out-of-view' | 'archive') => {
      const entry = searchedEntry(item, where, calls)
      if (entry === undefined) return
      found.push({ key: undefined, entry })
      origins.set(entry, { threadId, seq: item.seq, kind: item.type === 'fact' ? 'fact' : 'item' })
    }
    for (const item of items) take(item, 'out-of-view')
    for (const item of archived) take(item, 'archive')
  }
  const entries = distinctFacts(found)
  const query = searchQuery(text)
  const ranked =
    query.terms.length === 0
      ? entries
          .map(({ entry }) => entry)
          .sort(compareEntriesNewestFirst)
          .map((entry) => ({ entry, score: 0 }))
      : new MemoryRanking().rank(entries, query, compareEntriesNewestFirst).ranked
  return ranked.slice(0, limit).map(({ entry, score }) => {
    const { threadId, seq, kind, memoryId } = origins.get(entry)!
    return { threadId, seq, kind, ...(memoryId === undefined ? {} : { memoryId }), score }
  })
}

/** One change to a thread, made through the store as another process would. */
type Step =
  | { kind: 'say'; thread: number; words: number[]; role: 'user' | 'assistant' }
  | { kind: 'call'; thread: number; words: number[]; answerLater: boolean }
  | { kind: 'fact'; thread: number; words: number[] }
  | { kind: 'content'; thread: number; words: number[]; cited: boolean }
  | { kind: 'archive'; thread: number; share: number }
  | { kind: 'recreate'; thread: number }
  | { kind: 'query'; words: number[]; limit: number }

const words = fc.array(fc.integer({ min: 0, max: WORDS.length - 1 }), { minLength: 0, maxLength: 4 })
const thread = fc.integer({ min: 0, max: 2 })
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('say' as const), thread, words, role: fc.constantFrom('user', 'assistant') }),
  fc.record({ kind: fc.constant('call' as const), thread, words, answerLater: fc.boolean() }),
  fc.record({ kind: fc.constant('fact' as const), thread, words }),
  fc.record({ kind: fc.constant('content' as const), thread, words, cited: fc.boolean() }),
  fc.record({
    kind: fc.constant('archive' as const),
    thread,
    share: fc.double({ min: 0, max: 1, noNaN: true }),
  }),
  fc.record({ kind: fc.constant('recreate' as const), thread }),
  fc.record({ kind: fc.constant('query' as const), words, limit: fc.integer({ min: 1, max: 12 }) }),
)

describe('the resource index', () => {
  it('ranks exactly as a fresh read of every thread would, whatever happened between queries', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), async (steps) => {
        let now = FIXTURE_BASE_TS
        const clock = () => (now += 7)
        const store = inMemoryStore({ clock })
        const memory = createMemory({ store, clock })
        const threadIds = ['chat-a', 'chat-b', 'chat-c']
        for (const threadId of threadIds) await memory.thread(threadId, { resource: RESOURCE })
        const resource = memory.resource(RESOURCE)
        let counter = 0
        const pendingCalls: { threadId: string; callId: string }[] = []
        const text = (picked: number[]) => picked.map((index) => WORDS[index]).join(' ') || 'nothing much'
        const append = async (threadId: string, items: UnsequencedItem[]) => {
          const { lastSeq } = await store.head(threadId)
          await store.append(threadId, items, { expectedSeq: lastSeq })
          await store.touchResourceThread(RESOURCE, threadId, clock())
        }
        const base = (role: 'user' | 'assistant') => ({
          id: `item-${++counter}`,
          ts: clock(),
          level: 'global',
          turnId: `turn_${counter}`,
          type: 'message' as const,
          role,
        })
        for (const change of steps) {
          if (change.kind === 'query') {
            const query = text(change.words)
            const hits = await resource.query(query, { limit: change.limit })
            const expected = await referenceQuery(store, threadIds, query, change.limit)
            expect(hits.map(({ snippet: _snippet, ...hit }) => hit)).toEqual(expected)
            continue
          }
          const threadId = threadIds[change.thread]!
          switch (change.kind) {
            case 'say':
              await append(threadId, [
                { ...base(change.role), content: [{ type: 'text', text: text(change.words) }] },
              ])
              break
            case 'call': {
              const callId = `call-${++counter}`
              const input = { query: text(change.words) }
              const call = {
                ...base('assistant'),
                content: [{ type: 'tool-call' as const, toolCallId: callId, toolName: 'search', input }],
              }
              if (change.answerLater) {
                await append(threadId, [call])
                pendingCalls.push({ threadId, callId })
              } else {
                const result = {
                  ...base('assistant'),
                  role: 'tool' as const,
                  content: [
                    {
                      type: 'tool-result' as const,
                      toolCallId: callId,
                      toolName: 'search',
                      output: `found ${text(change.words)}`,
                    },
                  ],
                }
                await append(threadId, [call, result as UnsequencedItem])
              }
              // An earlier call of this thread is answered now, if one waits.
              const waiting = pendingCalls.findIndex(
                (pending) => pending.threadId === threadId && pending.callId !== callId,
              )
              if (waiting >= 0) {
                const answered = pendingCalls.splice(waiting, 1)[0]!.callId
                await append(threadId, [
                  {
                    ...base('assistant'),
                    role: 'tool',
                    content: [
                      {
                        type: 'tool-result',
                        toolCallId: answered,
                        toolName: 'search',
                        output: 'late answer tax',
                      },
                    ],
                  } as UnsequencedItem,
                ])
              }
              break
            }
            case 'fact':
              await append(threadId, [
                {
                  id: `item-${++counter}`,
                  ts: clock(),
                  level: 'global',
                  turnId: 't',
                  type: 'fact',
                  text: `User likes ${text(change.words)}`,
                  tags: [],
                  confidence: 0.9,
                  salience: 0.5,
                },
              ])
              break
            case 'content': {
              const record: ContentRecord = {
                id: `mem_${++counter}`,
                type: 'text',
                source: change.cited ? 'fetch' : 'memory_store',
                tags: [],
                ts: clock(),
                size: 10,
                data: `Stored page about ${text(change.words)}`,
              }
              await store.putContent(threadId, record)
              const part = change.cited
                ? citationPart({ type: 'text', text: '' }, `[stored ${record.id}]`, {
                    id: record.id,
                    kind: 'text',
                  })
                : { type: 'text' as const, text: 'stored a note' }
              await append(threadId, [{ ...base('assistant'), content: [part] }])
              break
            }
            case 'archive': {
              const items = await store.read(threadId)
              const seqs = items.slice(0, Math.floor(items.length * change.share)).map((item) => item.seq)
              if (seqs.length > 0) await store.archive(threadId, { seqs })
              break
            }
            case 'recreate': {
              await store.deleteThread(threadId)
              for (let index = pendingCalls.length - 1; index >= 0; index--)
                if (pendingCalls[index]!.threadId === threadId) pendingCalls.splice(index, 1)
              await store.setThreadResource(threadId, RESOURCE, { expected: undefined })
              await append(threadId, [
                { ...base('user'), content: [{ type: 'text', text: 'fresh start piano' }] },
              ])
              break
            }
          }
        }
        const final = await resource.query('invoice budget piano tax', { limit: 20 })
        expect(final.map(({ snippet: _snippet, ...hit }) => hit)).toEqual(
          await referenceQuery(store, threadIds, 'invoice budget piano tax', 20),
        )
      }),
      { numRuns: 60 },
    )
  })
})

/** A store that counts the items each read method hands back. */
function countingStore() {
  const store = inMemoryStore()
  const read = { items: 0, archived: 0, content: 0, heads: 0 }
  const counted: StrataStore = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver)
      if (typeof value !== 'function') return value
      return async (...args: unknown[]) => {
        const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args)
        if (name === 'read') read.items += (result as unknown[]).length
        if (name === 'readArchive') read.archived += (result as unknown[]).length
        if (name === 'queryContent') read.content += (result as unknown[]).length
        if (name === 'head') read.heads++
        return result
      }
    },
  })
  return { store: counted, read }
}

describe('a warm resource index', () => {
  it('reads only heads when nothing changed, and only the new items after an append', async () => {
    const { store, read } = countingStore()
    const memory = createMemory({ store })
    const threads = await Promise.all(
      ['chat-a', 'chat-b'].map((threadId) => memory.thread(threadId, { resource: RESOURCE })),
    )
    for (const thread of threads)
      for (let turn = 0; turn < 50; turn++)
        await thread.append([
          { role: 'user', content: `Question ${turn} about the kitchen budget` },
          { role: 'assistant', content: `Answer ${turn}` },
        ])
    await memory.settled()
    const resource = memory.resource(RESOURCE)
    const cold = await resource.query('kitchen budget')
    expect(cold).toHaveLength(10)
    expect(read.items).toBeGreaterThanOrEqual(200)

    read.items = 0
    read.archived = 0
    read.content = 0
    const warm = await resource.query('kitchen budget')
    expect(warm).toEqual(cold)
    // One item per thread: the newest synced, read to check the thread was not written again.
    expect(read).toMatchObject({ items: 2, archived: 0, content: 0 })

    read.items = 0
    await threads[0]!.append({ role: 'user', content: 'The kitchen budget is now 9000 euros' })
    const after = await resource.query('kitchen budget 9000')
    expect(after[0]).toMatchObject({ threadId: 'chat-a', seq: 101 })
    // The newest synced item again (both threads) and the one appended.
    expect(read.items).toBe(4)
  })

  it('finds content this process stored without an append at the next query', async () => {
    const memory = createMemory({ store: inMemoryStore() })
    const thread = await memory.thread('chat-a', { resource: RESOURCE })
    await thread.append({ role: 'user', content: 'Hello there' })
    const resource = memory.resource(RESOURCE)
    expect(await resource.query('quarterly invoice')).toEqual([])
    const { id } = await thread.content.put({ content: 'The quarterly invoice totals 4,200 euros' })
    const hits = await resource.query('quarterly invoice')
    expect(hits).toMatchObject([{ threadId: 'chat-a', kind: 'content', memoryId: id }])
  })

  it('drops the least recently queried resource past the bound on indexed entries, and rebuilds it', async () => {
    const { store, read } = countingStore()
    const memory = createMemory({ store, resources: { index: { maxEntries: 30 } } })
    for (const resourceId of ['user-1', 'user-2']) {
      const thread = await memory.thread(`${resourceId}-chat`, { resource: resourceId })
      for (let turn = 0; turn < 10; turn++)
        await thread.append([
          { role: 'user', content: `Turn ${turn} of ${resourceId} about piano lessons` },
          { role: 'assistant', content: 'Noted' },
        ])
    }
    await memory.settled()
    const first = await memory.resource('user-1').query('piano')
    await memory.resource('user-2').query('piano')
    read.items = 0
    // user-1's 20 entries were dropped when user-2's were indexed (40 > 30): read again, same answer.
    expect(await memory.resource('user-1').query('piano')).toEqual(first)
    expect(read.items).toBe(20)
  })

  it('refuses a bound that is not a positive integer', () => {
    expect(() => createMemory({ resources: { index: { maxEntries: 0 } } })).toThrow(
      expect.objectContaining({ code: 'STRATA_INVALID_OPTIONS' }),
    )
  })
})
