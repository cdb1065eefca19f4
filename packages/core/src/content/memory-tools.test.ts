import { beforeEach, describe, expect, it } from 'vitest'
import { createMemory } from '../memory'
import { inMemoryStore, type StrataStore } from '../stores'
import { fetchMessages, makePage } from '../testing'
import type { MemoryQueryOutput, MemoryToolError, MemoryToolName } from './memory-tool-types'
import { memoryTools } from './memory-tools'

let store: StrataStore
let now: number
let ids: number

beforeEach(() => {
  store = inMemoryStore()
  now = 1_000
  ids = 0
})

const open = async (threadId = 'tools') => {
  const memory = createMemory({ store, clock: () => (now += 10), generateId: () => `id${++ids}` })
  const thread = await memory.thread(threadId)
  return { thread, tools: memoryTools(thread) }
}

const ok = <T>(result: T | MemoryToolError): T => {
  if (typeof result === 'object' && result !== null && 'error' in result)
    throw new Error(result.error.message)
  return result as T
}

describe('memory tools', () => {
  it('have names, descriptions and JSON schemas for adapters', async () => {
    const { tools } = await open()
    expect(Object.keys(tools)).toEqual(['memory_store', 'memory_retrieve', 'memory_query'])
    for (const [name, tool] of Object.entries(tools)) {
      expect(tool.name).toBe(name)
      expect(tool.description.length).toBeGreaterThan(40)
      expect(tool.inputSchema).toMatchObject({ type: 'object' })
    }
    expect(tools.memory_retrieve.inputSchema).toMatchObject({
      required: ['id'],
      properties: { transform: { enum: ['full', 'excerpt', 'summary', 'first_n', 'last_n', 'filtered'] } },
    })
    expect(tools.memory_store.inputSchema).toMatchObject({ required: ['content'] })
  })

  it('store, then retrieve with every transform', async () => {
    const { tools } = await open()
    const text = ok(await tools.memory_store.execute({ content: 'one\ntwo\nthree', tags: ['n'] }))
    expect(text).toEqual({ id: 'mem_id1', type: 'text', size: 13 })
    const json = ok(await tools.memory_store.execute({ content: '[{"a":1},{"a":2},{"b":3}]', type: 'json' }))
    const get = (input: object) => tools.memory_retrieve.execute(input)
    expect(ok(await get({ id: text.id }))).toEqual({
      id: text.id,
      where: 'content',
      type: 'text',
      transform: 'full',
      content: 'one\ntwo\nthree',
      size: 13,
      truncated: false,
    })
    expect(ok(await get({ id: text.id, transform: 'last_n', n: 2 })).content).toBe('two\nthree')
    expect(ok(await get({ id: text.id, transform: 'filtered', pattern: 'T' })).content).toBe('two\nthree')
    expect(ok(await get({ id: text.id, transform: 'excerpt', maxChars: 3 }))).toMatchObject({
      content: 'one',
      truncated: true,
    })
    expect(ok(await get({ id: json.id, transform: 'first_n', n: 1 })).content).toBe('[{"a":1}]')
    expect(ok(await get({ id: json.id, transform: 'filtered', pattern: '"b"' })).content).toBe('[{"b":3}]')
    expect(ok(await get({ id: json.id, transform: 'summary' })).content).toMatch(
      /^JSON, 25 characters: array\(3\) of \{ a: number \}/,
    )
  })

  it('query filters by type, source, tags, time and level, ranks by words, with a limit', async () => {
    const { thread, tools } = await open()
    const first = ok(
      await tools.memory_store.execute({ content: 'Invoice 17 total 300 EUR', tags: ['billing', 'q1'] }),
    )
    const second = ok(
      await tools.memory_store.execute({ content: 'invoice 18 TOTAL 450 eur', tags: ['billing'] }),
    )
    const note = ok(
      await tools.memory_store.execute({ content: '{"invoice": 19}', type: 'json', tags: ['q1'] }),
    )
    await thread.append({ role: 'user', content: 'Where is invoice 17?' })
    const query = async (input: object) =>
      ok<MemoryQueryOutput>(await tools.memory_query.execute(input)).results
    const idsOf = (results: { id: string }[]) => results.map((hit) => hit.id)

    // Both words beat one; equal scores go newest first.
    expect(idsOf(await query({ text: 'INVOICE total' })).slice(0, 2)).toEqual([second.id, first.id])
    const all = await query({ text: 'invoice' })
    expect(all).toHaveLength(4)
    expect(all.find((hit) => hit.where === 'view')).toMatchObject({
      type: 'message',
      source: 'user',
      level: 'global',
      snippet: 'Where is invoice 17?',
    })
    expect(await query({ text: 'invoice', limit: 2 })).toEqual(all.slice(0, 2))
    // Punctuation around a word is not part of it; an identifier matches its parts and its whole.
    expect(idsOf(await query({ text: '"Invoice 18", total?' }))[0]).toBe(second.id)
    expect(idsOf(await query({ text: 'invoice-18' }))[0]).toBe(second.id)
    expect(idsOf(await query({ tags: ['billing', 'q1'] }))).toEqual([first.id])
    expect(idsOf(await query({ type: 'json' }))).toEqual([note.id])
    expect(idsOf(await query({ source: 'memory_store', text: '17' }))).toEqual([first.id])
    const second_ = all.find((hit) => hit.id === second.id)!
    expect(idsOf(await query({ fromTs: second_.ts, toTs: second_.ts }))).toEqual([second.id])
    expect(await query({ level: 'task' })).toEqual([])
    await thread.enter('project', { title: 'Pay invoice 20' })
    const [inTask] = await thread.append({ role: 'user', content: 'Paying invoice 20 now' })
    expect(idsOf(await query({ level: 'project', text: 'paying' }))).toEqual([inTask!.id])
    await thread.exit()
    // Any word is enough: the words found rank what holds them, the others do not exclude it.
    expect(
      idsOf(await query({ text: 'invoice 17 nowhere' }))
        .slice(0, 2)
        .sort(),
    ).toEqual([first.id, all.find((hit) => hit.where === 'view')!.id].sort())
    expect(await query({ text: 'nowhere' })).toEqual([])
    // The project's opening item, its message, its transition and its summary joined the four.
    expect((await query({})).length).toBe(8)
    // The default limit is 10.
    for (let index = 0; index < 12; index++) await tools.memory_store.execute({ content: `filler ${index}` })
    expect(await query({ text: 'filler' })).toHaveLength(10)
    expect(await query({ text: 'filler', limit: 100 })).toHaveLength(12)
  })

  it('a snippet shows the first matching word in context', async () => {
    const { tools } = await open()
    await tools.memory_store.execute({
      content: `${'lorem '.repeat(100)}The vault code is 0042.${' ipsum'.repeat(100)}`,
    })
    const [hit] = ok(await tools.memory_query.execute({ text: 'vault' })).results
    expect(hit!.snippet).toMatch(/^….*The vault code is 0042\..*…$/)
    expect(hit!.snippet.length).toBeLessThanOrEqual(162)
  })

  it('return readable errors for bad ids and bad parameters, and never throw', async () => {
    const { tools } = await open()
    const stored = ok(await tools.memory_store.execute({ content: 'x' }))
    const cases: [MemoryToolName, unknown, string, RegExp][] = [
      [
        'memory_retrieve',
        { id: 'mem_nope' },
        'STRATA_MEMORY_NOT_FOUND',
        /no memory with id 'mem_nope'.*memory_query/,
      ],
      ['memory_retrieve', {}, 'STRATA_INVALID_OPTIONS', /id is required/],
      [
        'memory_query',
        { level: 'session' },
        'STRATA_INVALID_LEVEL',
        /level "session" is not a level of this memory; use one of "global", "project", "task"/,
      ],
      ['memory_retrieve', { id: 42 }, 'STRATA_INVALID_OPTIONS', /id must be a non-empty string/],
      [
        'memory_retrieve',
        { id: stored.id, transform: 'shrink' },
        'STRATA_INVALID_OPTIONS',
        /transform must be one of full, excerpt/,
      ],
      [
        'memory_retrieve',
        { id: stored.id, transform: 'first_n', n: 0 },
        'STRATA_INVALID_OPTIONS',
        /n must be a whole number from 1/,
      ],
      [
        'memory_retrieve',
        { id: stored.id, transform: 'first_n', n: 2.5 },
        'STRATA_INVALID_OPTIONS',
        /n must be a whole number/,
      ],
      [
        'memory_retrieve',
        { id: stored.id, transform: 'filtered' },
        'STRATA_INVALID_OPTIONS',
        /needs a pattern/,
      ],
      ['memory_retrieve', { id: stored.id, maxChars: -1 }, 'STRATA_INVALID_OPTIONS', /maxChars/],
      [
        'memory_retrieve',
        { id: stored.id, maxChars: 100 },
        'STRATA_INVALID_OPTIONS',
        /maxChars applies to transform "excerpt" or "summary", not "full"/,
      ],
      [
        'memory_retrieve',
        { id: stored.id, transform: 'excerpt', n: 3 },
        'STRATA_INVALID_OPTIONS',
        /n applies to transform "first_n" or "last_n", not "excerpt"/,
      ],
      [
        'memory_retrieve',
        { id: stored.id, transform: 'last_n', pattern: 'x' },
        'STRATA_INVALID_OPTIONS',
        /pattern applies to transform "filtered" or "excerpt"/,
      ],
      [
        'memory_retrieve',
        { id: stored.id, limit: 3 },
        'STRATA_INVALID_OPTIONS',
        /unknown parameter 'limit'; accepted: id, transform/,
      ],
      ['memory_retrieve', 'mem_id1', 'STRATA_INVALID_OPTIONS', /must be an object/],
      ['memory_retrieve', null, 'STRATA_INVALID_OPTIONS', /must be an object/],
      ['memory_store', { content: '' }, 'STRATA_INVALID_OPTIONS', /content must be a non-empty string/],
      ['memory_store', { content: '{', type: 'json' }, 'STRATA_INVALID_OPTIONS', /does not parse as JSON/],
      ['memory_store', { content: 'a', tags: 'x' }, 'STRATA_INVALID_OPTIONS', /tags must be an array/],
      ['memory_query', { limit: 0 }, 'STRATA_INVALID_OPTIONS', /limit must be a whole number from 1 to 100/],
      ['memory_query', { limit: 101 }, 'STRATA_INVALID_OPTIONS', /limit/],
      [
        'memory_query',
        { fromTs: 'yesterday' },
        'STRATA_INVALID_OPTIONS',
        /fromTs must be a time in epoch milliseconds/,
      ],
      ['memory_query', { fromTs: 5, toTs: 1 }, 'STRATA_INVALID_OPTIONS', /after toTs/],
      ['memory_query', { text: 3 }, 'STRATA_INVALID_OPTIONS', /text must be a string/],
      ['memory_query', { query: 'x' }, 'STRATA_INVALID_OPTIONS', /unknown parameter 'query'/],
      ['memory_query', [], 'STRATA_INVALID_OPTIONS', /must be an object/],
    ]
    for (const [name, input, code, message] of cases) {
      const result = await tools[name].execute(input)
      expect(result, JSON.stringify(input)).toMatchObject({ error: { code } })
      expect((result as MemoryToolError).error.message).toMatch(message)
    }
    // Nothing was written by the refused calls.
    expect(await store.queryContent('tools')).toHaveLength(1)
  })

  it('retrieve reaches log items by id: in view, out of view, and citations', async () => {
    const { thread, tools } = await open()
    await thread.enter('project', { title: 'P' })
    const [user] = await thread.append({ role: 'user', content: 'Plant the tulip bulbs' })
    expect(ok(await tools.memory_retrieve.execute({ id: user!.id }))).toMatchObject({
      where: 'view',
      type: 'message',
      content: 'Plant the tulip bulbs',
    })
    await thread.exit()
    // Until the next user message it is the turn's request, which every context shows.
    expect(ok(await tools.memory_retrieve.execute({ id: user!.id }))).toMatchObject({ where: 'view' })
    const page = makePage(10_000)
    await thread.append({ role: 'user', content: 'fetch' })
    expect(ok(await tools.memory_retrieve.execute({ id: user!.id }))).toMatchObject({ where: 'out-of-view' })
    const [, result] = await thread.append(fetchMessages('c', 'https://example.com', page))
    // The result item holds the citation; the item's id and the citation's memory id both return the
    // page itself (every note points home), never the citation.
    expect(ok(await tools.memory_retrieve.execute({ id: result!.id })).content).toBe(page)
    const citation = (result as { content: { output: string }[] }).content[0]!.output
    const memoryId = /Memory id: (mem_[\w-]+)/.exec(citation)![1]!
    expect(ok(await tools.memory_retrieve.execute({ id: memoryId })).content).toBe(page)
    // Summaries are found too.
    const summaries = ok(await tools.memory_query.execute({ type: 'summary' })).results
    expect(summaries).toHaveLength(1)
    expect(summaries[0]).toMatchObject({ where: 'summary', source: 'scope' })
  })
})
