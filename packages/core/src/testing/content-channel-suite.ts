import { describe, expect, it } from 'vitest'
import { citationFooter, memoryTools } from '../content'
import type { MessageInput, ToolResultPart } from '../items'
import { createMemory } from '../memory'
import type { StrataStore } from '../stores'
import { useSuiteStore } from './suite-store'

/** A page of `bytes` UTF-8 bytes or a little more: numbered lines, with accents, CJK and an emoji. */
export function makePage(bytes: number, seed = 'page'): string {
  const lines: string[] = []
  let size = 0
  for (let line = 1; size < bytes; line++) {
    const text = `${seed} line ${line}: café déjà vu, 内容 channel ✓ 🚀 the quick brown fox ${line * 7919}`
    lines.push(text)
    size += new TextEncoder().encode(`${text}\n`).length
  }
  return lines.join('\n')
}

/** The messages of one fetch: the assistant's call and the tool's result. */
export function fetchMessages(toolCallId: string, url: string, output: string): MessageInput[] {
  return [
    {
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId, toolName: 'fetch_page', input: { url } }],
    },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId, toolName: 'fetch_page', output }] },
  ]
}

/**
 * The content channel's key behaviours run against one store: first context in full then a
 * citation, byte-identical retrieval of a 150 KB page, a finished task's result and an archived turn
 * found by one `memory_query`, and sub-agent sharing. Each test gets a fresh store from `factory`.
 *
 * @example
 * describeContentChannel('fileStore', () => fileStore({ dir: temporaryDirectory() }))
 */
export function describeContentChannel(
  name: string,
  factory: () => StrataStore | Promise<StrataStore>,
): void {
  describe(`content channel: ${name}`, () => {
    const suite = useSuiteStore(factory)
    const { options } = suite

    it('shows a large result in full in the first context, then a citation ending with its memory id', async () => {
      const memory = createMemory(options())
      const thread = await memory.thread('content.first-use')
      const page = makePage(20_000)
      await thread.append({ role: 'user', content: 'Read https://example.com/a' })
      await thread.append(fetchMessages('c1', 'https://example.com/a', page))

      const first = await thread.context()
      const shown = first.messages.at(-1)!.content[0] as ToolResultPart
      expect(shown).toEqual({ type: 'tool-result', toolCallId: 'c1', toolName: 'fetch_page', output: page })
      // Until the model answers, every context is the same, byte for byte.
      expect(JSON.stringify((await thread.context()).messages)).toBe(JSON.stringify(first.messages))

      await thread.append({ role: 'assistant', content: 'The page lists fox numbers.' })
      const later = await thread.context()
      const cited = later.messages.find((message) => message.role === 'tool')!.content[0] as ToolResultPart
      expect(cited.toolCallId).toBe('c1')
      const citation = cited.output as string
      const id = /Memory id: (mem_\w+)/.exec(citation)![1]!
      expect(citation.endsWith(citationFooter(id))).toBe(true)
      expect(citation.length).toBeLessThan(1_200)
      expect(citation).toContain('URL: https://example.com/a')
      expect(later.stats.contextTokens).toBeLessThan(first.stats.contextTokens / 5)

      // Stored once, and the log keeps only the citation.
      expect(await suite.store.queryContent('content.first-use')).toHaveLength(1)
      const logged = (await thread.items()).at(-2) as { content: ToolResultPart[] }
      expect(logged.content[0]!.output).toBe(citation)
    })

    it('gives a 150 KB page back byte for byte', async () => {
      const memory = createMemory(options())
      const thread = await memory.thread('content.byte-identical')
      const page = makePage(150 * 1024, 'big')
      await thread.append({ role: 'user', content: 'Fetch it' })
      await thread.append(fetchMessages('c1', 'https://example.com/big', page))
      await thread.append({ role: 'assistant', content: 'Done.' })
      const [record] = await suite.store.queryContent('content.byte-identical')
      const result = await memoryTools(thread).memory_retrieve.execute({ id: record!.id })
      if ('error' in result) throw new Error(result.error.message)
      expect(result.content === page).toBe(true)
      expect(result.size).toBe(new TextEncoder().encode(page).length)
      expect(result).toMatchObject({
        where: 'content',
        transform: 'full',
        truncated: false,
        type: 'web-page',
      })
    })

    it("finds a value from a finished task's tool result with one memory_query, and retrieves it", async () => {
      const memory = createMemory(options())
      const thread = await memory.thread('content.finished-task')
      await thread.enter('project', { title: 'Research' })
      await thread.enter('task', { title: 'Look up the code' })
      await thread.append({
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'q1', toolName: 'lookup', input: { key: 'door' } }],
      })
      await thread.append({
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'q1', toolName: 'lookup', output: { door: 'Code Zebra-4471' } },
        ],
      })
      await thread.exit({ outcome: 'complete' })
      // The result itself left the view (the scope summary may still name the code).
      const { messages } = await thread.context()
      expect(messages.flatMap((message) => message.content).map((part) => part.type)).not.toContain(
        'tool-result',
      )

      const tools = memoryTools(thread)
      const query = await tools.memory_query.execute({ text: 'zebra-4471' })
      if ('error' in query) throw new Error(query.error.message)
      const results = query.results.filter((hit) => hit.type === 'tool-result')
      expect(results).toHaveLength(1)
      expect(results[0]).toMatchObject({
        where: 'out-of-view',
        type: 'tool-result',
        source: 'lookup',
        level: 'task',
      })
      expect(results[0]!.snippet).toContain('Zebra-4471')
      const read = await tools.memory_retrieve.execute({
        id: results[0]!.id,
        transform: 'filtered',
        pattern: 'door',
      })
      if ('error' in read) throw new Error(read.error.message)
      expect(JSON.parse(read.content)).toEqual({ door: 'Code Zebra-4471' })
    })

    it('finds a value from an archived turn with one memory_query, and retrieves it', async () => {
      const memory = createMemory(
        options({ compaction: { budget: { maxOutputTokens: 1_000, rawTailTurns: 2 } } }),
      )
      const thread = await memory.thread('content.archived')
      await thread.append({ role: 'user', content: 'My locker number is Quokka-9312, remember it.' })
      await thread.append({ role: 'assistant', content: 'Noted.' })
      const page = makePage(8_000, 'archived-page')
      await thread.append({ role: 'user', content: 'Fetch the handbook' })
      await thread.append(fetchMessages('h1', 'https://example.com/handbook', page))
      await thread.append({ role: 'assistant', content: 'Read it.' })
      for (let turn = 0; turn < 4; turn++) {
        await thread.append({ role: 'user', content: `Question ${turn}` })
        await thread.append({ role: 'assistant', content: `Answer ${turn}` })
      }
      await thread.compact({ force: true })
      expect((await suite.store.readArchive('content.archived')).length).toBeGreaterThan(0)

      const tools = memoryTools(thread)
      const query = await tools.memory_query.execute({ text: 'QUOKKA-9312 locker' })
      if ('error' in query) throw new Error(query.error.message)
      // The archived message, and the summary and fact the compaction kept of it.
      const archived = query.results.filter((hit) => hit.where === 'archive')
      expect(archived).toHaveLength(1)
      expect(archived[0]).toMatchObject({ where: 'archive', type: 'message', source: 'user' })
      const read = await tools.memory_retrieve.execute({ id: archived[0]!.id })
      if ('error' in read) throw new Error(read.error.message)
      expect(read.content).toContain('Quokka-9312')

      // Compaction never deletes content: the archived turn's page comes back whole.
      const pages = await tools.memory_query.execute({ text: 'archived-page line 3:', type: 'web-page' })
      if ('error' in pages) throw new Error(pages.error.message)
      expect(pages.results.map((hit) => hit.where)).toEqual(['content'])
      const full = await tools.memory_retrieve.execute({ id: pages.results[0]!.id })
      expect('content' in full && full.content === page).toBe(true)
    })

    it('shares content with a sub-agent: shared writes reach the parent, read-only writes are refused', async () => {
      const memory = createMemory(options())
      const parent = await memory.thread('content.parent')
      const shared = await memory.thread('content.parent.shared', { content: { parent: 'content.parent' } })
      const readOnly = await memory.thread('content.parent.reader', {
        content: { parent: 'content.parent', access: 'read-only' },
      })
      const isolated = await memory.thread('content.parent.own')

      const stored = await memoryTools(shared).memory_store.execute({
        content: 'Budget is 4,200 EUR',
        tags: ['budget'],
      })
      if ('error' in stored) throw new Error(stored.error.message)
      const fromParent = await memoryTools(parent).memory_retrieve.execute({ id: stored.id })
      expect(fromParent).toMatchObject({ where: 'content', content: 'Budget is 4,200 EUR' })
      const fromReader = await memoryTools(readOnly).memory_query.execute({ tags: ['budget'] })
      expect(fromReader).toMatchObject({ results: [{ id: stored.id, where: 'content' }] })

      const refused = await memoryTools(readOnly).memory_store.execute({ content: 'overwrite' })
      expect(refused).toMatchObject({ error: { code: 'STRATA_CONTENT_READ_ONLY' } })
      expect(await suite.store.queryContent('content.parent')).toHaveLength(1)

      const fromIsolated = await memoryTools(isolated).memory_retrieve.execute({ id: stored.id })
      expect(fromIsolated).toMatchObject({ error: { code: 'STRATA_MEMORY_NOT_FOUND' } })
    })
  })
}
