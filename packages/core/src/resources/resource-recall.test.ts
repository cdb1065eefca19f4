import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { StrataError } from '../errors'
import type { Item } from '../items'
import { createMemory, type Memory } from '../memory'
import { inMemoryStore } from '../stores'
import type { Summarizer } from '../summarizers'

/** A summarizer whose facts are the user messages it summarizes that start with `Note: `. */
const notes: Summarizer = {
  name: 'notes',
  async summarize(items: readonly Item[]) {
    const facts = items.flatMap((item) =>
      item.type === 'message' && item.role === 'user'
        ? item.content.flatMap((part) =>
            part.type === 'text' && part.text.startsWith('Note: ') ? [{ text: part.text.slice(6) }] : [],
          )
        : [],
    )
    return { summary: `${items.length} items`, facts }
  },
}

function resourceMemory() {
  let now = 1_000_000
  const clock = () => (now += 10)
  const store = inMemoryStore({ clock })
  return createMemory({
    store,
    clock,
    summarizer: notes,
    compaction: { budget: { maxOutputTokens: 1_000, rawTailTurns: 1 } },
  })
}

/** Opens `threadId` for `resourceId`, appends the turns (a user line and an answer each), compacts when asked. */
async function conversation(
  memory: Memory,
  threadId: string,
  resourceId: string,
  turns: readonly string[],
  { compact = false }: { compact?: boolean } = {},
) {
  const thread = await memory.thread(threadId, { resource: resourceId })
  for (const turn of turns) {
    await thread.append({ role: 'user', content: turn })
    await thread.append({ role: 'assistant', content: 'Noted.' })
  }
  if (compact) {
    // The raw tail keeps the newest turns: two more push the ones above into the compaction.
    for (const filler of ['filler one', 'filler two']) {
      await thread.append({ role: 'user', content: filler })
      await thread.append({ role: 'assistant', content: 'Noted.' })
    }
    await thread.compact({ force: true })
  }
  return thread
}

/** Three threads of user-1 (one compacted into its archive, one with stored content) and one of user-2. */
async function threeThreads() {
  const memory = resourceMemory()
  const a = await conversation(
    memory,
    'chat-a',
    'user-1',
    ['Note: The user is Ana.', 'Plan the kayak trip to Norway in June', 'What is the weather?'],
    { compact: true },
  )
  const b = await conversation(
    memory,
    'chat-b',
    'user-1',
    ['Note: the user is  ana', 'Note: Ana is vegetarian.', 'ok'],
    {
      compact: true,
    },
  )
  await b.content.put({ content: 'Recipe: lentil soup with cumin and lemon', tags: ['recipe'] })
  const c = await conversation(memory, 'chat-c', 'user-1', ['Note: Ana works at Acme.', 'thanks'], {
    compact: true,
  })
  await conversation(
    memory,
    'other-a',
    'user-2',
    ['Note: Bob likes kayak trips to Norway', 'Bob cooks lentil soup', 'x'],
    {
      compact: true,
    },
  )
  await memory.settled()
  return { memory, a, b, c }
}

describe("a resource's facts", () => {
  it('merges the facts of its 3 threads, the same fact once with every source, never another resource’s', async () => {
    const { memory, a, b } = await threeThreads()
    const facts = await memory.resource('user-1').facts()
    expect(facts.map((fact) => fact.text)).toEqual([
      'The user is Ana.',
      'Ana is vegetarian.',
      'Ana works at Acme.',
    ])
    const ana = facts[0]!
    expect(ana.sources.map((source) => source.threadId)).toEqual(['chat-a', 'chat-b'])
    // Each source names a fact item of its thread with that text.
    for (const [thread, source] of [
      [a, ana.sources[0]!],
      [b, ana.sources[1]!],
    ] as const) {
      const item = (await thread.items()).find((candidate) => candidate.seq === source.seq)
      expect(item).toMatchObject({ type: 'fact' })
      expect((item as { text: string }).text.toLowerCase().replace(/\s+/g, ' ')).toContain('the user is ana')
    }
    expect((await memory.resource('user-2').facts()).map((fact) => fact.text)).toEqual([
      'Bob likes kayak trips to Norway',
    ])
    expect(await memory.resource('nobody').facts()).toEqual([])
  })
})

describe('resource.query', () => {
  it('ranks items (archived too), content and facts across its threads, with thread, seq and snippet', async () => {
    const { memory, a } = await threeThreads()
    const user = memory.resource('user-1')
    const kayak = await user.query('kayak Norway')
    expect(kayak[0]).toMatchObject({ threadId: 'chat-a', kind: 'item' })
    expect(kayak[0]!.snippet).toContain('kayak trip to Norway')
    // The message was archived by the compaction: found there, by its seq.
    const archived = await memory.store.readArchive('chat-a')
    expect(archived.find((item) => item.seq === kayak[0]!.seq)).toMatchObject({ role: 'user' })
    expect((await a.items()).some((item) => item.seq === kayak[0]!.seq)).toBe(false)

    const soup = await user.query('lentil cumin')
    expect(soup[0]).toMatchObject({ threadId: 'chat-b', kind: 'content' })
    expect(soup[0]!.memoryId).toMatch(/^mem_/)
    expect(soup[0]!.snippet).toContain('lentil soup with cumin')

    const diet = await user.query('vegetarian')
    expect(diet.find((hit) => hit.kind === 'fact')).toMatchObject({
      threadId: 'chat-b',
      snippet: 'Ana is vegetarian.',
    })
    // Scores are best first.
    for (const hits of [kayak, soup, diet])
      for (let index = 1; index < hits.length; index++)
        expect(hits[index - 1]!.score).toBeGreaterThanOrEqual(hits[index]!.score)
  })

  it('keeps to the threads asked for, and to its own threads whatever they name', async () => {
    const { memory } = await threeThreads()
    const user = memory.resource('user-1')
    expect(await user.query('kayak Norway', { threads: ['chat-b', 'chat-c'] })).toEqual([])
    const named = await user.query('kayak lentil', { threads: ['chat-a', 'other-a'] })
    expect(named.length).toBeGreaterThan(0)
    expect(new Set(named.map((hit) => hit.threadId))).toEqual(new Set(['chat-a']))
    expect((await user.query('Ana', { limit: 2 })).length).toBe(2)
    for (const [text, options, message] of [
      [3, {}, /text must be a string/],
      ['x', { limit: 0 }, /limit must be an integer from 1 to 100/],
      ['x', { threads: ['../x'] }, /Invalid thread id/],
    ] as const) {
      await expect(user.query(text as never, options as never)).rejects.toThrowError(message)
    }
  })

  it('never returns a thread that is not bound to the resource (random resources, threads and words)', async () => {
    const words = ['kayak', 'norway', 'lentil', 'soup', 'ana', 'bob', 'acme', 'budget', 'tea']
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            thread: fc.integer({ min: 0, max: 7 }),
            resource: fc.integer({ min: 0, max: 2 }),
            text: fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 4 }),
          }),
          { minLength: 1, maxLength: 12 },
        ),
        fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 0, max: 2 }),
        async (writes, query, asked) => {
          const memory = createMemory({ store: inMemoryStore() })
          const owner = new Map<string, string>()
          for (const write of writes) {
            const threadId = `t${write.thread}`
            const resourceId = `r${write.resource}`
            // A thread keeps its first resource; a later write for another one moves it (adoptThread).
            if (owner.has(threadId) && owner.get(threadId) !== resourceId)
              await memory.resource(resourceId).adoptThread(threadId)
            owner.set(threadId, resourceId)
            const thread = await memory.thread(threadId, { resource: resourceId })
            await thread.append({ role: 'user', content: write.text.join(' ') })
          }
          const hits = await memory.resource(`r${asked}`).query(query.join(' '), { limit: 100 })
          for (const hit of hits) expect(owner.get(hit.threadId)).toBe(`r${asked}`)
          // And every thread of the resource holding a query word is found.
          const expected = [...owner].filter(([, resourceId]) => resourceId === `r${asked}`).map(([id]) => id)
          const holding = writes
            .filter(
              (write) =>
                expected.includes(`t${write.thread}`) && write.text.some((word) => query.includes(word)),
            )
            .map((write) => `t${write.thread}`)
          expect(new Set(hits.map((hit) => hit.threadId))).toEqual(new Set(holding))
        },
      ),
      { numRuns: 60 },
    )
  })

  it('an empty resource and a query without words answer nothing to rank', async () => {
    const { memory } = await threeThreads()
    expect(await memory.resource('nobody').query('kayak')).toEqual([])
    const newest = await memory.resource('user-1').query('   ', { limit: 3 })
    expect(newest.every((hit) => hit.score === 0)).toBe(true)
    expect(
      StrataError.isInstance(
        await memory
          .resource('x')
          .query(1 as never)
          .catch((error) => error),
      ),
    ).toBe(true)
  })
})
