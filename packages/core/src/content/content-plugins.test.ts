import { describe, expect, it } from 'vitest'
import type { JsonValue, ToolResultPart } from '../items'
import { createMemory } from '../memory'
import { inMemoryStore } from '../stores'
import { promptSummarizer } from '../summarizers'
import { makePage } from '../testing'
import type { CitationInput, ContentPlugin } from './content-plugin'
import { genericPlugin } from './generic-plugin'
import { webPagePlugin } from './web-page-plugin'

const input = (value: JsonValue, extra: Partial<CitationInput> = {}): CitationInput => {
  const data = typeof value === 'string' ? value : JSON.stringify(value)
  return {
    id: 'mem_1',
    type: typeof value === 'string' ? 'text' : 'json',
    data,
    value,
    json: typeof value !== 'string',
    source: 'tool',
    size: data.length,
    mediaType: 'text/plain',
    ...extra,
  }
}

describe('genericPlugin', () => {
  it('cites type, length, source and the first 500 characters', async () => {
    const data = `${'x'.repeat(499)}YZ${'w'.repeat(3_000)}`
    const citation = await genericPlugin().cite(input(data, { source: 'run_sql' }))
    expect(citation).toBe(`[stored text from run_sql, 3,501 characters]\nStarts: ${'x'.repeat(499)}Y…`)
    expect(await genericPlugin({ excerptChars: 3 }).cite(input('abc'))).toBe(
      '[stored text from tool, 3 characters]\nStarts: abc',
    )
  })
})

describe('webPagePlugin', () => {
  const plugin = webPagePlugin()

  it('cites a JSON page by url, title, excerpt and length', async () => {
    const page = { url: 'https://example.com/x', title: 'Example', content: 'Body text. '.repeat(100) }
    const page_ = input(page, { source: 'fetch' })
    expect(plugin.matches!(page_)).toBe(true)
    expect(plugin.type!(page_)).toBe('web-page')
    const citation = await plugin.cite(page_)
    expect(citation.split('\n')).toEqual([
      '[stored web page from fetch, 1,100 characters of text]',
      'URL: https://example.com/x',
      'Title: Example',
      `Excerpt: ${page.content.slice(0, 500)}…`,
    ])
  })

  it('reads the url from the call input and the title and text from HTML', async () => {
    const html = `<!doctype html><html><head><title>Tide &amp; times</title><style>p{}</style></head><body><p>High tide at 06:12.</p><script>x()</script></body></html>`
    const citation = await plugin.cite(input(html, { input: { url: 'https://tides.example/today' } }))
    expect(citation).toContain('URL: https://tides.example/today')
    expect(citation).toContain('Title: Tide & times')
    expect(citation).toContain('Excerpt: Tide & times High tide at 06:12.')
    expect(citation).not.toContain('<p>')
    expect(citation).not.toContain('x()')
  })

  it('does not match results that are not pages', () => {
    expect(plugin.matches!(input({ rows: [1, 2] }))).toBe(false)
    expect(plugin.matches!(input('plain text'))).toBe(false)
    expect(plugin.matches!(input({ url: 'https://a.b' }))).toBe(false)
  })
})

/** Appends a call and a large result of `toolName`, an answer, and returns the citation shown afterwards. */
async function citationOf(
  options: Parameters<typeof createMemory>[0],
  toolName: string,
  output: JsonValue,
  toolInput: JsonValue = {},
) {
  const store = options?.store ?? inMemoryStore()
  const memory = createMemory({ ...options, store })
  const thread = await memory.thread('plugins')
  await thread.append([
    { role: 'user', content: 'Go' },
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 't', toolName, input: toolInput }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 't', toolName, output }] },
    { role: 'assistant', content: 'Done' },
  ])
  const { messages } = await thread.context()
  const part = messages.find((message) => message.role === 'tool')?.content[0] as ToolResultPart | undefined
  const [record] = await store.queryContent('plugins')
  return { output: part?.output, record }
}

describe('plugin selection', () => {
  const rows = Array.from({ length: 200 }, (_, id) => ({ id, name: `row ${id}` }))

  it('uses the web-page plugin for pages and the generic plugin for the rest', async () => {
    const page = await citationOf({}, 'fetch_page', makePage(6_000), { url: 'https://example.com/p' })
    expect(page.record).toMatchObject({
      type: 'web-page',
      source: 'fetch_page',
      meta: { citedBy: 'web-page' },
    })
    expect(page.output).toContain('URL: https://example.com/p')
    const json = await citationOf({}, 'run_sql', rows)
    expect(json.record).toMatchObject({
      type: 'json',
      mediaType: 'application/json',
      meta: { citedBy: 'generic' },
    })
    expect(json.output).toMatch(/^\[stored json from run_sql, [\d,]+ characters\]\nStarts: \[\{"id":0/)
  })

  it("prefers the tool's own plugin, then the first listed plugin that matches", async () => {
    const mine: ContentPlugin = {
      name: 'rows',
      type: () => 'table',
      cite: ({ value }) => `${(value as unknown[]).length} rows`,
    }
    const byTool = await citationOf({ content: { tools: { run_sql: { plugin: mine } } } }, 'run_sql', rows)
    expect(byTool.output).toMatch(/^200 rows\nMemory id: mem_/)
    expect(byTool.record).toMatchObject({ type: 'table', meta: { citedBy: 'rows' } })

    const never: ContentPlugin = { name: 'never', matches: () => false, cite: () => 'never' }
    const sqlOnly: ContentPlugin = {
      name: 'sql',
      matches: ({ source }) => source === 'run_sql',
      cite: () => 'sql rows',
    }
    const listed = await citationOf({ content: { plugins: [never, sqlOnly] } }, 'run_sql', rows)
    expect(listed.output).toMatch(/^sql rows\n/)
    const fallback = await citationOf({ content: { plugins: [never, sqlOnly] } }, 'other', rows)
    expect(fallback.record!.meta).toMatchObject({ citedBy: 'generic' })
  })

  it('records the tool type and tags, and honours offload always and never', async () => {
    const small = await citationOf(
      { content: { tools: { note: { offload: 'always', type: 'note', tags: ['a', 'b'] } } } },
      'note',
      'tiny',
    )
    expect(small.record).toMatchObject({ type: 'note', tags: ['a', 'b'], data: 'tiny', size: 4 })
    const never = await citationOf({ content: { tools: { run_sql: { offload: 'never' } } } }, 'run_sql', rows)
    expect(never.record).toBeUndefined()
    expect(never.output).toEqual(rows)
    const off = await citationOf({ content: false }, 'run_sql', rows)
    expect(off.record).toBeUndefined()
  })

  it('writes an LLM citation through the summarizer contract, and falls back to the plugin when it fails', async () => {
    const prompts: string[] = []
    const llm = promptSummarizer({
      name: 'test-llm',
      complete: async ({ prompt }) => {
        prompts.push(prompt)
        return '## Decisions\n- none\n## Identifiers\n- row 0 to row 199\n## Open work\n- none'
      },
    })
    const cited = await citationOf(
      { content: { tools: { run_sql: { llmCitation: { summarizer: llm } } } } },
      'run_sql',
      rows,
    )
    expect(cited.output).toContain('row 0 to row 199')
    expect(cited.record!.meta).toMatchObject({ citedBy: 'test-llm' })
    expect(prompts[0]).toContain('run_sql')

    const down = promptSummarizer({
      name: 'down',
      complete: async () => Promise.reject(new Error('model down')),
    })
    const fallback = await citationOf(
      { summarizer: down, content: { tools: { run_sql: { llmCitation: true } } } },
      'run_sql',
      rows,
    )
    expect(fallback.record!.meta).toMatchObject({ citedBy: 'generic' })
    expect(fallback.output).toMatch(/^\[stored json from run_sql/)
  })
})
