import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { createMemory, type Thread } from '../memory'
import { inMemoryStore } from '../stores'
import { countingStore } from '../testing'
import { QUERY_INDEX } from './memory-query'
import type { MemoryQueryInput } from './memory-tool-types'
import { memoryTools } from './memory-tools'

afterEach(() => {
  QUERY_INDEX.own = true
})

const WORDS = ['bread', 'cache', 'index', 'shape', 'preview', 'quokka', 'layout', 'export']
/** Identifiers and some of their parts: a query naming an identifier whole weighs its parts down. */
const IDENTIFIERS = ['PO-7001', '7001', 'shape_12']
const word = fc.constantFrom(...WORDS, ...IDENTIFIERS)
const words = fc.array(word, { minLength: 1, maxLength: 3 }).map((list) => list.join(' '))

type Op =
  | { kind: 'user' | 'answer'; text: string }
  | { kind: 'tool'; query: string; output: string; large: boolean }
  | { kind: 'call'; query: string }
  | { kind: 'result'; output: string }
  | { kind: 'note'; text: string; tag: string }
  | { kind: 'enter' | 'exit' | 'rewind' | 'other' }
  | { kind: 'query'; input: MemoryQueryInput }

/** Mostly words alone, sometimes with one filter, sometimes a filter alone (newest first). */
const filter: fc.Arbitrary<Partial<MemoryQueryInput>> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({}) },
  { weight: 1, arbitrary: fc.record({ type: fc.constantFrom('message', 'text', 'summary', 'transition') }) },
  { weight: 1, arbitrary: fc.record({ level: fc.constantFrom('global', 'project', 'task') }) },
  { weight: 1, arbitrary: fc.record({ tags: fc.constantFrom('red', 'blue').map((tag) => [tag]) }) },
  { weight: 1, arbitrary: fc.record({ fromTs: fc.integer({ min: 1_000, max: 1_200 }) }) },
)
const queryInput: fc.Arbitrary<MemoryQueryInput> = fc
  .tuple(fc.option(words, { freq: 4 }), filter, fc.option(fc.integer({ min: 1, max: 12 })))
  .map(([text, filters, limit]) => ({
    ...(text === null ? {} : { text }),
    ...filters,
    ...(limit === null ? {} : { limit }),
  }))

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constantFrom('user', 'answer'), text: words }) as fc.Arbitrary<Op>,
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('tool'),
      query: word,
      output: words,
      large: fc.boolean(),
    }) as fc.Arbitrary<Op>,
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('call'), query: word }) as fc.Arbitrary<Op> },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('result'), output: words }) as fc.Arbitrary<Op> },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('note'),
      text: words,
      tag: fc.constantFrom('red', 'blue'),
    }) as fc.Arbitrary<Op>,
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom<Op>(
      { kind: 'enter' },
      { kind: 'exit' },
      { kind: 'rewind' },
      { kind: 'other' },
    ),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('query'), input: queryInput }) as fc.Arbitrary<Op> },
)

/** Runs `op` on the thread; refusals (a rewind into a scope, an exit with none open) change nothing. */
async function apply(
  thread: Thread,
  other: () => Promise<Thread>,
  step: Op,
  index: number,
  pending: string[],
) {
  const call = (id: string, query: string) => ({
    role: 'assistant' as const,
    content: [{ type: 'tool-call' as const, toolCallId: id, toolName: 'lookup', input: { query } }],
  })
  const result = (id: string, output: string) => ({
    role: 'tool' as const,
    content: [{ type: 'tool-result' as const, toolCallId: id, toolName: 'lookup', output }],
  })
  switch (step.kind) {
    case 'user':
      await thread.append({ role: 'user', content: step.text })
      return
    case 'answer':
      await thread.append({ role: 'assistant', content: step.text })
      return
    case 'tool': {
      const output = step.large ? `${step.output} `.repeat(40) : step.output
      await thread.append([call(`c${index}`, step.query), result(`c${index}`, output)])
      return
    }
    case 'call':
      pending.push(`c${index}`)
      await thread.append(call(`c${index}`, step.query))
      return
    case 'result': {
      const id = pending.shift()
      if (id !== undefined) await thread.append(result(id, step.output))
      return
    }
    case 'note':
      await memoryTools(thread).memory_store.execute({ content: step.text, tags: [step.tag] })
      return
    case 'enter':
      await thread.enter('task', { title: `task ${index}` }).catch(() => undefined)
      return
    case 'exit':
      await thread.exit({ outcome: 'complete', summary: `task ${index} done` }).catch(() => undefined)
      return
    case 'rewind': {
      const items = await thread.items()
      const users = items.filter((item) => item.type === 'message' && item.role === 'user')
      const point = users.at(-2)
      if (point !== undefined) await thread.rewind({ afterSeq: point.seq }).catch(() => undefined)
      return
    }
    case 'other': {
      // Another writer (a second process) appends: the thread's index must see it. Its own budget may
      // start a compaction in the background: awaited, so that both searches of a query read the same
      // store (a compaction ending between them wrote a summary only the second one saw).
      const writer = await other()
      await writer.append({ role: 'user', content: `from elsewhere ${WORDS[index % WORDS.length]}` })
      await writer.settled()
      return
    }
    case 'query':
      return
  }
}

describe('memory_query through the thread index', () => {
  it('answers every query as a search of the whole history does', async () => {
    let runs = 0
    const where = new Map<string, number>()
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 10, maxLength: 50 }), fc.boolean(), async (ops, budget) => {
        const store = inMemoryStore()
        let now = 1_000
        // Under a small budget compactions archive old turns and write summaries and facts: the index
        // moves their entries to the archive instead of reading the history again.
        const options = {
          store,
          clock: () => (now += 3),
          content: { offloadAboveBytes: 120 },
          ...(budget ? { compaction: { budget: { inputTokens: 700 } } } : {}),
        }
        const thread = await createMemory(options).thread('t')
        const other = async () => createMemory(options).thread('t')
        const tools = memoryTools(thread)
        const pending: string[] = []
        for (const [index, step] of ops.entries()) {
          await apply(thread, other, step, index, pending)
          // A note is looked for right after it is stored (no append between: the head does not show it).
          if (step.kind !== 'query' && step.kind !== 'note') continue
          const input = step.kind === 'note' ? { text: step.text } : step.input
          await thread.settled()
          runs++
          QUERY_INDEX.own = true
          const indexed = await tools.memory_query.execute(input)
          QUERY_INDEX.own = false
          const whole = await tools.memory_query.execute(input)
          QUERY_INDEX.own = true
          expect(indexed).toEqual(whole)
          if ('results' in indexed)
            for (const hit of indexed.results) where.set(hit.where, (where.get(hit.where) ?? 0) + 1)
        }
      }),
      { numRuns: 80 },
    )
    expect(runs).toBeGreaterThan(100)
    // Hits from every place a memory lives.
    for (const place of ['view', 'out-of-view', 'archive', 'content', 'summary'])
      expect(where.get(place), place).toBeGreaterThan(5)
  }, 120_000)

  it('reads what changed since the last query, not the history again', async () => {
    const counted = countingStore(inMemoryStore())
    const memory = createMemory({ store: counted.store, content: { offloadAboveBytes: 120 } })
    const thread = await memory.thread('long')
    for (let turn = 0; turn < 200; turn++) {
      await thread.append({ role: 'user', content: `turn ${turn}: ${WORDS[turn % WORDS.length]}` })
      await thread.append({ role: 'assistant', content: `done ${turn}` })
    }
    // Half of it archived, as a compaction or a rewind leaves it.
    await thread.rewind({ afterSeq: 200 })
    for (let turn = 0; turn < 100; turn++) await thread.append({ role: 'user', content: `again ${turn}` })
    const tools = memoryTools(thread)
    const first = await tools.memory_query.execute({ text: 'bread' })
    expect('results' in first && first.results.length).toBeGreaterThan(0)
    const afterFirst = { ...counted.reads }
    expect(afterFirst.archivedItems).toBeGreaterThanOrEqual(200)
    for (let query = 0; query < 5; query++) {
      await thread.append({ role: 'user', content: `quokka ${query}` })
      const found = await tools.memory_query.execute({ text: 'quokka' })
      expect('results' in found && found.results.map((hit) => hit.snippet)).toContain(`quokka ${query}`)
    }
    // Five queries, five appends: each reads the newest item synced (to check it is still there) and
    // the items from it on, and no archive: 3 items a query, against 600 for the whole history.
    expect(counted.reads.archivedItems - afterFirst.archivedItems).toBe(0)
    expect(counted.reads.activeItems - afterFirst.activeItems).toBeLessThanOrEqual(15)
  })

  it("is dropped past the memory's bound on indexed entries, and built again at the next query", async () => {
    const counted = countingStore(inMemoryStore())
    const memory = createMemory({ store: counted.store, resources: { index: { maxEntries: 150 } } })
    const threads = await Promise.all(['a', 'b'].map((id) => memory.thread(id)))
    for (const [at, thread] of threads.entries())
      for (let turn = 0; turn < 50; turn++)
        await thread.append({
          role: 'user',
          content: `thread ${at} turn ${turn}: ${WORDS[turn % WORDS.length]}`,
        })
    const [a, b] = threads.map((thread) => memoryTools(thread!))
    const query = async (tools: typeof a) => {
      const found = await tools!.memory_query.execute({ text: 'quokka', limit: 3 })
      return 'results' in found ? found.results.map((hit) => hit.snippet) : found
    }
    const first = await query(a)
    expect(first).toEqual([
      'thread 0 turn 45: quokka',
      'thread 0 turn 37: quokka',
      'thread 0 turn 29: quokka',
    ])
    const warm = counted.reads.activeItems
    expect(await query(a)).toEqual(first)
    // Warm: the newest item, checked again.
    expect(counted.reads.activeItems - warm).toBeLessThanOrEqual(1)
    // b's 50 entries and a's 50 fit the bound of 150; a third thread's do not: a's index, the least
    // recently used, is dropped.
    await query(b)
    const c = await memory.thread('c')
    for (let turn = 0; turn < 60; turn++) await c.append({ role: 'user', content: `c ${turn}` })
    await query(memoryTools(c))
    const before = counted.reads.activeItems
    expect(await query(a)).toEqual(first)
    // Built again: a's whole log read.
    expect(counted.reads.activeItems - before).toBeGreaterThanOrEqual(50)
  })

  it('moves what a compaction archived to the archive, reading the short active log and no archive', async () => {
    const counted = countingStore(inMemoryStore())
    let now = 1_000
    const memory = createMemory({
      store: counted.store,
      clock: () => (now += 3),
      compaction: { budget: { inputTokens: 2_000 } },
    })
    const thread = await memory.thread('budget')
    const tools = memoryTools(thread)
    const say = async (turn: number) => {
      await thread.append({
        role: 'user',
        content: `turn ${turn}: ${WORDS[turn % WORDS.length]} ${'detail '.repeat(20)}`,
      })
      await thread.append({ role: 'assistant', content: `done ${turn}` })
      await thread.settled()
    }
    for (let turn = 0; turn < 60; turn++) await say(turn)
    const search = async () => {
      QUERY_INDEX.own = false
      const whole = await tools.memory_query.execute({ text: 'quokka', limit: 20 })
      QUERY_INDEX.own = true
      const indexed = await tools.memory_query.execute({ text: 'quokka', limit: 20 })
      expect(indexed).toEqual(whole)
      return indexed
    }
    await search()
    const archivedBefore = (await counted.store.head('budget')).archivedCount
    for (let turn = 60; turn < 90; turn++) await say(turn)
    const head = await counted.store.head('budget')
    // Compactions archived turns since the last query, and the newest items stayed active.
    expect(head.archivedCount).toBeGreaterThan(archivedBefore)
    const reads = { ...counted.reads }
    QUERY_INDEX.own = true
    const found = await tools.memory_query.execute({ text: 'quokka', limit: 20 })
    // The active log (short under the budget), the archive above the last query and the newest item
    // synced (archived since): not the history.
    expect(counted.reads.archivedItems - reads.archivedItems).toBeLessThanOrEqual(
      head.archivedCount - archivedBefore + 1,
    )
    expect(counted.reads.activeItems - reads.activeItems).toBeLessThanOrEqual(head.activeCount + 1)
    expect('results' in found && found.results.some((hit) => hit.where === 'archive')).toBe(true)
    await search()
  })
})
