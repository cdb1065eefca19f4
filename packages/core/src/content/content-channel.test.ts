import { beforeEach, describe, expect, it } from 'vitest'
import { StrataError } from '../errors'
import type { FilePart, MessagePart, TextPart, ToolResultPart } from '../items'
import { createMemory, type MemoryOptions } from '../memory'
import { inMemoryStore, type StrataStore } from '../stores'
import type { Summarizer } from '../summarizers'
import { fetchMessages, makePage } from '../testing'
import { CONTENT_META_KEY } from './content-reference'
import { memoryTools } from './memory-tools'

let store: StrataStore
let now: number
let ids: number
const options = (extra: Partial<MemoryOptions> = {}): MemoryOptions => ({
  store,
  clock: () => ++now,
  generateId: () => `id${++ids}`,
  ...extra,
})

beforeEach(() => {
  store = inMemoryStore()
  now = 1_000
  ids = 0
})

const partsOf = (messages: { role: string; content: MessagePart[] }[], role: string) =>
  messages.filter((message) => message.role === role).flatMap((message) => message.content)

describe('attachments', () => {
  it('a large text from the user is shown whole until the model answers, then cited; a file is shown whole in every context', async () => {
    const memory = createMemory(options())
    const thread = await memory.thread('attachments')
    const document = makePage(6_000, 'contract')
    const file: FilePart = {
      type: 'file',
      mediaType: 'application/pdf',
      filename: 'scan.pdf',
      data: 'JVBERi0xLjQK'.repeat(1_000),
      meta: { source: 'upload' },
    }
    const text: TextPart = { type: 'text', text: document, meta: { framework: 'x' } }
    await thread.append({ role: 'user', content: [{ type: 'text', text: 'Summarise these' }, text, file] })

    const first = await thread.context()
    expect(first.messages.at(-1)!.content).toEqual([{ type: 'text', text: 'Summarise these' }, text, file])

    await thread.append({ role: 'assistant', content: 'They are a contract and a scan.' })
    const later = partsOf((await thread.context()).messages, 'user')
    expect(later[0]).toEqual({ type: 'text', text: 'Summarise these' })
    const citedText = later[1] as TextPart
    expect(citedText.type).toBe('text')
    expect(citedText.text).toMatch(/^\[stored text from user, [\d,]+ characters\]\nStarts: contract line 1/)
    // A file is read by the model only as a file: it stays whole, with its own meta.
    expect(later[2]).toEqual(file)
    // The context carries the parts' own meta, not Strata's content reference; the log keeps that.
    expect(citedText.meta).toEqual({ framework: 'x' })
    const stored = (await thread.items()).find((item) => item.type === 'message' && item.content.length === 3)
    const storedFile = stored?.type === 'message' ? stored.content[2] : undefined
    expect(storedFile?.meta?.[CONTENT_META_KEY]).toMatchObject({
      kind: 'file',
      mediaType: 'application/pdf',
      filename: 'scan.pdf',
    })

    const records = await store.queryContent('attachments')
    expect(records.map((record) => [record.type, record.source, record.tags, record.mediaType])).toEqual([
      ['file', 'user', ['attachment'], 'application/pdf'],
      ['text', 'user', ['attachment'], 'text/plain'],
    ])
    expect(records[0]!.data).toBe(file.data)
  })

  it("keeps a scope's opening instructions and small messages inline, and offloads nothing when attachments are off", async () => {
    const memory = createMemory(options({ content: { attachments: false } }))
    const thread = await memory.thread('no-attachments')
    await thread.enter('project', { title: 'Big', instructions: makePage(5_000) })
    await thread.append({ role: 'user', content: makePage(5_000) })
    expect(await store.queryContent('no-attachments')).toEqual([])
    const inline = createMemory(options())
    const other = await inline.thread('instructions')
    await other.enter('project', { title: 'Big', instructions: makePage(5_000) })
    expect(await store.queryContent('instructions')).toEqual([])
  })
})

describe('first context', () => {
  it('shows every result the model has not answered yet in full: parallel calls, and across turns', async () => {
    const memory = createMemory(options())
    const thread = await memory.thread('parallel')
    const [a, b] = [makePage(5_000, 'a'), makePage(5_000, 'b')]
    await thread.append([
      { role: 'user', content: 'Compare' },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'a', toolName: 'fetch_page', input: { url: 'https://a' } },
          { type: 'tool-call', toolCallId: 'b', toolName: 'fetch_page', input: { url: 'https://b' } },
        ],
      },
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'a', toolName: 'fetch_page', output: a }],
      },
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'b', toolName: 'fetch_page', output: b }],
      },
    ])
    const outputs = async () =>
      partsOf((await thread.context()).messages, 'tool').map(
        (part) => (part as ToolResultPart).output as string,
      )
    expect(await outputs()).toEqual([a, b])
    // The next step's call answers both: the next result is new, the earlier ones are cited.
    const c = makePage(5_000, 'c')
    await thread.append(fetchMessages('c', 'https://c', c))
    const [citedA, citedB, fullC] = await outputs()
    expect(citedA).toMatch(/^\[stored web page.*\nURL: https:\/\/a/)
    expect(citedB).toMatch(/URL: https:\/\/b/)
    expect(fullC).toBe(c)
  })

  it('is decided by the log alone: another memory on the same store renders byte-identical contexts', async () => {
    const first = await createMemory(options()).thread('deterministic')
    await first.append({ role: 'user', content: 'Read' })
    await first.append(fetchMessages('c', 'https://example.com', makePage(9_000)))
    const second = await createMemory(options()).thread('deterministic')
    const render = async (thread: typeof first) =>
      JSON.stringify((await thread.context({ system: 'S' })).messages)
    expect(await render(second)).toBe(await render(first))
    await first.append({ role: 'assistant', content: 'Read it.' })
    const cited = await render(first)
    expect(await render(second)).toBe(cited)
    expect(cited).not.toContain('line 100:')
  })

  it('under a budget, a fresh page larger than its share is cut, and the page stays retrievable', async () => {
    const memory = createMemory(
      options({ compaction: { budget: { maxContextTokens: 4_000, maxOutputTokens: 500, safetyMargin: 0 } } }),
    )
    const thread = await memory.thread('budget')
    const page = makePage(60_000)
    await thread.append({ role: 'user', content: 'Fetch' })
    const [, result] = await thread.append(fetchMessages('f', 'https://example.com', page))
    const { stats, messages } = await thread.context()
    // The cut page gets what the request leaves of the 3 500-token budget: it fills it (the old fit
    // showed 144 tokens here, its note naming the result's own id).
    expect(stats.contextTokens).toBeLessThanOrEqual(3_500)
    expect(stats.contextTokens).toBeGreaterThan(0.85 * 3_500)
    const shown = (partsOf(messages, 'tool')[0] as ToolResultPart).output as string
    // The note names the id memory_retrieve answers with the whole page: one call, not two.
    const noted = /memory_retrieve \{"id":"([^"]+)"\} returns the whole content/.exec(shown)![1]!
    expect(noted).not.toBe(result!.id)
    const tools = memoryTools(thread)
    expect(await tools.memory_retrieve.execute({ id: noted })).toMatchObject({ content: page })
  })
})

describe('stored once', () => {
  it('a write retried after another writer got there first stores its content once', async () => {
    const writerA = await createMemory(options()).thread('retry')
    const writerB = await createMemory(options()).thread('retry')
    await writerA.append({ role: 'user', content: 'first' })
    // B has not seen A's message: its append conflicts, re-reads and is built again.
    await writerB.append({ role: 'user', content: makePage(6_000) })
    const records = await store.queryContent('retry')
    expect(records).toHaveLength(1)
    const items = await writerB.items()
    expect(items).toHaveLength(2)
    const cited = (items[1] as { content: TextPart[] }).content[0]!
    expect(cited.meta?.[CONTENT_META_KEY]).toMatchObject({ id: records[0]!.id })
  })
})

describe('facts', () => {
  it('memory_query finds facts that compaction extracted', async () => {
    const summarizer: Summarizer = {
      name: 'facts',
      summarize: async () => ({
        summary: 'Talked about the garden.',
        facts: [{ text: 'The gate code is 7731.', tags: ['garden'] }],
      }),
    }
    const memory = createMemory(
      options({ summarizer, compaction: { budget: { maxOutputTokens: 1_000, rawTailTurns: 1 } } }),
    )
    const thread = await memory.thread('facts')
    for (let turn = 0; turn < 4; turn++) {
      await thread.append({ role: 'user', content: `Question ${turn}` })
      await thread.append({ role: 'assistant', content: `Answer ${turn}` })
    }
    await thread.compact({ force: true })
    const { results } = (await memoryTools(thread).memory_query.execute({
      text: 'gate code',
      tags: ['garden'],
    })) as {
      results: { where: string; type: string }[]
    }
    expect(results).toEqual([expect.objectContaining({ where: 'fact', type: 'fact' })])
    const episodic = (await memoryTools(thread).memory_query.execute({
      text: 'garden',
      type: 'summary',
    })) as {
      results: { where: string; source: string }[]
    }
    expect(episodic.results).toEqual([expect.objectContaining({ where: 'summary', source: 'episodic' })])
  })
})

describe('options', () => {
  it('reject bad content options with STRATA_INVALID_OPTIONS', () => {
    const bad: unknown[] = [
      { offloadAboveBytes: -1 },
      { offloadAboveBytes: 1.5 },
      { plugins: [{ name: 'x' }] },
      { tools: { t: { offload: 'sometimes' } } },
      { tools: { t: { llmCitation: 'yes' } } },
      { tools: { t: { tags: [1] } } },
      { citationTimeoutMs: 0 },
      'big',
    ]
    for (const content of bad) {
      expect(() => createMemory({ content: content as never }), JSON.stringify(content)).toThrow(
        expect.objectContaining({ code: 'STRATA_INVALID_OPTIONS' }),
      )
    }
    // The error a user gets is a StrataError: isInstance works on what createMemory throws.
    let thrown: unknown
    try {
      createMemory({ content: { offloadAboveBytes: -1 } })
    } catch (error) {
      thrown = error
    }
    expect(StrataError.isInstance(thrown)).toBe(true)
    expect((thrown as StrataError).message).toMatch(/offloadAboveBytes must be a whole number/)
  })

  it('offloads above 4096 bytes by default, and records memory id, type, source, tags, size, time and level', async () => {
    const memory = createMemory(
      options({ content: { tools: { lookup: { offload: 'always', tags: ['kb'] } } } }),
    )
    const thread = await memory.thread('defaults')
    const exact = 'x'.repeat(4_096)
    const over = 'y'.repeat(4_097)
    await thread.enter('project', { title: 'Read' })
    await thread.append({
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: 'a', toolName: 'read', input: {} },
        { type: 'tool-call', toolCallId: 'b', toolName: 'read', input: {} },
        { type: 'tool-call', toolCallId: 'c', toolName: 'lookup', input: {} },
      ],
    })
    const [first, second, third] = await thread.append([
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'a', toolName: 'read', output: exact }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'b', toolName: 'read', output: over }] },
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'c', toolName: 'lookup', output: 'tiny' }],
      },
    ])
    const records = await store.queryContent('defaults')
    // 4 096 bytes stay inline; 4 097 bytes and every result of the configured tool are stored.
    expect(records.map((record) => record.data).sort()).toEqual(['tiny', over])
    const byTool = Object.fromEntries(records.map((record) => [record.source, record]))
    expect(byTool.read).toMatchObject({
      id: expect.stringMatching(/^mem_/),
      type: 'text',
      source: 'read',
      tags: [],
      size: 4_097,
      ts: second!.ts,
      level: 'project',
    })
    expect(byTool.lookup).toMatchObject({
      type: 'text',
      source: 'lookup',
      tags: ['kb'],
      size: 4,
      ts: third!.ts,
    })
    expect((first as { content: ToolResultPart[] }).content[0]!.output).toBe(exact)
    expect((second as { content: ToolResultPart[] }).content[0]!.output).toMatch(
      new RegExp(`Memory id: ${byTool.read!.id}\\. Retrieve it with memory_retrieve`),
    )
  })

  it('offloadAboveBytes sets the threshold in UTF-8 bytes', async () => {
    const memory = createMemory(options({ content: { offloadAboveBytes: 10 } }))
    const thread = await memory.thread('threshold')
    await thread.append({ role: 'user', content: 'éééé' }) // 8 bytes: kept
    await thread.append({ role: 'user', content: 'éééééé' }) // 12 bytes: offloaded
    expect((await store.queryContent('threshold')).map((record) => [record.data, record.size])).toEqual([
      ['éééééé', 12],
    ])
  })
})

describe('token totals', () => {
  it('count an offloaded result at its full size, so savedTokens shows what the channel saves', async () => {
    const page = makePage(40_000, 'totals')
    const withChannel = await createMemory(options()).thread('with')
    const without = await createMemory(options({ content: false })).thread('without')
    for (const thread of [withChannel, without]) {
      await thread.append({ role: 'user', content: 'Fetch it' })
      await thread.append(fetchMessages('c1', 'https://example.com/totals', page))
      await thread.append({ role: 'assistant', content: 'Read it.' })
    }
    const cited = await withChannel.context()
    const whole = await without.context()
    // The log holds a citation, but the thread's total is the same as with the page kept whole.
    expect(cited.stats.totalTokens).toBe(whole.stats.totalTokens)
    expect(cited.stats.contextTokens).toBeLessThan(whole.stats.contextTokens / 10)
    expect(cited.stats.savedRatio).toBeGreaterThan(0.9)
    // And after a restart, read back from the store.
    const reopened = await createMemory(options()).thread('with')
    expect((await reopened.context()).stats.totalTokens).toBe(whole.stats.totalTokens)
  })
})

describe('brief citations', () => {
  const turn = async (
    thread: Awaited<ReturnType<ReturnType<typeof createMemory>['thread']>>,
    index: number,
  ) => {
    await thread.append({ role: 'user', content: `Fetch page ${index}` })
    await thread.append(
      fetchMessages(`c${index}`, `https://example.com/${index}`, makePage(20_000, `p${index}`)),
    )
    await thread.append({ role: 'assistant', content: `Read page ${index}.` })
  }
  const outputs = (messages: { content: MessagePart[] }[]) =>
    messages.flatMap((message) =>
      message.content.flatMap((part) => (part.type === 'tool-result' ? [String(part.output)] : [])),
    )

  it('a result from briefAfterTurns turns back shows its brief form: first line, URL and title, memory id', async () => {
    const thread = await createMemory(options({ content: { briefAfterTurns: 2 } })).thread('brief')
    for (let index = 1; index <= 3; index++) await turn(thread, index)
    const [first, second, third] = outputs((await thread.context()).messages)
    // Turn 1 is two turns back: brief. Turns 2 and 3: the full citation with its excerpt.
    expect(first).toMatch(
      /^\[stored web page from fetch_page, [\d,]+ characters of text\] URL: https:\/\/example\.com\/1/,
    )
    expect(first).not.toContain('Excerpt:')
    expect(first!.length).toBeLessThan(300)
    expect(second).toContain('Excerpt:')
    expect(third).toContain('Excerpt:')
    // The brief form still leads back to the whole page.
    const id = /Memory id: (mem_[\w-]+)/.exec(first!)![1]!
    const back = await memoryTools(thread).memory_retrieve.execute({ id })
    expect(back).toMatchObject({ where: 'content', content: makePage(20_000, 'p1') })
  })

  it('briefAfterTurns: false keeps full citations; bad values are typed errors', async () => {
    const thread = await createMemory(options({ content: { briefAfterTurns: false } })).thread('full')
    for (let index = 1; index <= 5; index++) await turn(thread, index)
    expect(outputs((await thread.context()).messages).every((output) => output.includes('Excerpt:'))).toBe(
      true,
    )
    for (const briefAfterTurns of [0, 1.5, -1]) {
      expect(() => createMemory(options({ content: { briefAfterTurns } }))).toThrowError(
        expect.objectContaining({ code: 'STRATA_INVALID_OPTIONS' }),
      )
    }
  })
})

describe('maxCitations', () => {
  type AnyThread = Awaited<ReturnType<ReturnType<typeof createMemory>['thread']>>
  const fetchTurn = async (thread: AnyThread, index: number) => {
    await thread.append({ role: 'user', content: `Fetch page ${index}` })
    await thread.append(
      fetchMessages(`c${index}`, `https://example.com/${index}`, makePage(6_000, `p${index}`)),
    )
    await thread.append({ role: 'assistant', content: `Read page ${index}.` })
  }
  const noteOf = (messages: { role: string; content: MessagePart[] }[]) =>
    messages.flatMap((message) =>
      message.content.flatMap((part) =>
        part.type === 'text' && part.text.startsWith('[STORED RESULTS]') ? [part.text] : [],
      ),
    )

  it('groups answered results beyond the newest maxCitations into one note, with their calls, each still retrievable', async () => {
    const thread = await createMemory(options({ content: { maxCitations: 2 } })).thread('grouped')
    for (let index = 1; index <= 5; index++) await fetchTurn(thread, index)
    const { messages } = await thread.context()

    // The two newest results keep their calls and citations; the three oldest left with their calls.
    const calls = messages.flatMap((message) =>
      message.content.flatMap((part) => (part.type === 'tool-call' ? [part.toolCallId] : [])),
    )
    const results = partsOf(messages, 'tool') as ToolResultPart[]
    expect(calls).toEqual(['c4', 'c5'])
    expect(results.map((part) => part.toolCallId)).toEqual(['c4', 'c5'])

    const notes = noteOf(messages)
    expect(notes).toHaveLength(1)
    const [header, ...lines] = notes[0]!.split('\n')
    expect(header).toMatch(
      /^\[STORED RESULTS\] The 3 oldest tool results .* memory_retrieve \{"id":"mem_…"\}/,
    )
    expect(lines).toHaveLength(3)
    const records = await store.queryContent('grouped')
    for (const [index, line] of lines.entries()) {
      const url = `https://example.com/${index + 1}`
      const record = records.find((candidate) => candidate.meta?.toolCallId === `c${index + 1}`)!
      const length = record.data.length.toLocaleString('en-US')
      // The page has no title: the line is the brief citation's first line, its URL and the memory id.
      expect(line).toBe(
        `- [stored web page from fetch_page, ${length} characters of text] URL: ${url} — ${record.id}`,
      )
      const back = await memoryTools(thread).memory_retrieve.execute({ id: record.id })
      expect(back).toMatchObject({ where: 'content', content: makePage(6_000, `p${index + 1}`) })
    }
    // The note stands where the first grouped result did: after the first question, before its answer.
    const texts = messages.map((message) => (message.content[0] as TextPart).text ?? message.role)
    expect(texts.slice(0, 3)).toEqual(['Fetch page 1', notes[0], 'Read page 1.'])
    // A grouped page is still found by a word of it, first among the pages that share some.
    const found = (await memoryTools(thread).memory_query.execute({ text: 'p2 line 40:' })) as {
      results: { id: string; where: string }[]
    }
    expect(found.results.slice(0, 1)).toEqual([
      expect.objectContaining({ where: 'content', id: records.find((r) => r.meta?.toolCallId === 'c2')!.id }),
    ])
  })

  it('names a result without a plugin label by its call input, and counts what it does not list', async () => {
    const memory = createMemory(
      options({ content: { maxCitations: 0, tools: { lookup: { offload: 'always' } } } }),
    )
    const thread = await memory.thread('grouped-many')
    await thread.append({ role: 'user', content: 'Look up 102 keys' })
    for (let index = 0; index < 102; index++) {
      await thread.append([
        {
          role: 'assistant',
          content: [
            { type: 'tool-call', toolCallId: `k${index}`, toolName: 'lookup', input: { key: index } },
          ],
        },
        {
          role: 'tool',
          content: [
            { type: 'tool-result', toolCallId: `k${index}`, toolName: 'lookup', output: `value ${index}` },
          ],
        },
      ])
    }
    await thread.append({ role: 'assistant', content: 'Done.' })
    const { messages } = await thread.context()
    expect(partsOf(messages, 'tool')).toEqual([])
    expect(messages.map((message) => message.role)).toEqual(['user', 'user', 'assistant'])
    const lines = noteOf(messages)[0]!.split('\n')
    expect(lines[0]).toMatch(/^\[STORED RESULTS\] The 102 oldest tool results/)
    expect(lines[1]).toBe('- … 2 older, found with memory_query')
    expect(lines).toHaveLength(102)
    expect(lines[2]).toMatch(/^- \[stored text from lookup, 7 characters\] Call: \{"key":2\} — mem_id\d+$/)
    expect(lines.at(-1)).toMatch(
      /^- \[stored text from lookup, 9 characters\] Call: \{"key":101\} — mem_id\d+$/,
    )
  })

  it('never groups results the model has not answered, and false keeps every citation', async () => {
    const grouped = await createMemory(options({ content: { maxCitations: 0 } })).thread('fresh')
    await grouped.append({ role: 'user', content: 'Fetch' })
    await grouped.append(fetchMessages('f', 'https://example.com/f', makePage(6_000, 'fresh')))
    expect((partsOf((await grouped.context()).messages, 'tool')[0] as ToolResultPart).output).toBe(
      makePage(6_000, 'fresh'),
    )
    const all = await createMemory(options({ content: { maxCitations: false } })).thread('all')
    for (let index = 1; index <= 30; index++) await fetchTurn(all, index)
    const { messages } = await all.context()
    expect(noteOf(messages)).toEqual([])
    expect(partsOf(messages, 'tool')).toHaveLength(30)
    for (const maxCitations of [-1, 1.5, 'many']) {
      expect(() => createMemory(options({ content: { maxCitations: maxCitations as never } }))).toThrowError(
        expect.objectContaining({
          code: 'STRATA_INVALID_OPTIONS',
          message: expect.stringMatching(/maxCitations/),
        }),
      )
    }
  })
})
