import { beforeEach, describe, expect, it } from 'vitest'
import type { JsonValue } from '../items'
import { createMemory } from '../memory'
import { inMemoryStore, type StrataStore } from '../stores'
import { makePage } from '../testing'
import type { MemoryRetrieveOutput, MemoryToolError } from './memory-tool-types'
import { memoryTools } from './memory-tools'

let store: StrataStore
let ids: number

beforeEach(() => {
  store = inMemoryStore()
  ids = 0
})

const ok = (result: MemoryRetrieveOutput | MemoryToolError): MemoryRetrieveOutput => {
  if ('error' in result) throw new Error(result.error.message)
  return result
}

/**
 * A thread that ran `toolName` once and answered it, so the result is stored (when large) and shown as
 * a citation. Returns the memory tools and the id to retrieve the result by: its memory id when it was
 * offloaded, else the id of the log item that holds it.
 */
async function ranTool(toolName: string, output: JsonValue) {
  let now = 1_000
  const memory = createMemory({ store, clock: () => ++now, generateId: () => `id${++ids}` })
  const thread = await memory.thread(`retrieve.${toolName}`)
  await thread.append({ role: 'user', content: `Run ${toolName}` })
  await thread.append({
    role: 'assistant',
    content: [{ type: 'tool-call', toolCallId: 'c1', toolName, input: {} }],
  })
  const [result] = await thread.append({
    role: 'tool',
    content: [{ type: 'tool-result', toolCallId: 'c1', toolName, output }],
  })
  await thread.append({ role: 'assistant', content: 'Done.' })
  const [record] = await store.queryContent(`retrieve.${toolName}`)
  const tools = memoryTools(thread)
  return {
    id: record?.id ?? result!.id,
    offloaded: record !== undefined,
    get: async (input: object) =>
      ok(await tools.memory_retrieve.execute({ id: record?.id ?? result!.id, ...input })),
  }
}

describe('memory_retrieve on a large text result', () => {
  const page = makePage(12_000, 'doc')
  const lines = page.split('\n')

  it('applies every transform to the stored text', async () => {
    const { get, offloaded } = await ranTool('read_doc', page)
    expect(offloaded).toBe(true)

    expect(await get({})).toMatchObject({
      where: 'content',
      transform: 'full',
      content: page,
      truncated: false,
    })

    const excerpt = await get({ transform: 'excerpt', maxChars: 300, pattern: 'DOC LINE 90:' })
    expect(excerpt.content).toHaveLength(300)
    expect(excerpt.content).toContain('doc line 90:')
    expect(page.includes(excerpt.content)).toBe(true)
    expect(excerpt.truncated).toBe(true)
    // Without a pattern, the excerpt is the start; the default length is 1 000 characters.
    expect((await get({ transform: 'excerpt' })).content).toBe(page.slice(0, 1_000))

    const summary = await get({ transform: 'summary', maxChars: 400 })
    expect(summary.content.startsWith(`Text: ${lines.length} lines, `)).toBe(true)
    expect(summary.content.length).toBeLessThanOrEqual(400)
    expect(summary.truncated).toBe(true)

    expect((await get({ transform: 'first_n', n: 3 })).content).toBe(lines.slice(0, 3).join('\n'))
    expect((await get({ transform: 'last_n', n: 2 })).content).toBe(lines.slice(-2).join('\n'))
    expect((await get({ transform: 'first_n' })).content.split('\n')).toEqual(lines.slice(0, 20))

    const filtered = await get({ transform: 'filtered', pattern: 'DOC LINE 7' })
    const kept = filtered.content.split('\n')
    expect(kept[0]).toMatch(/^doc line 7:/)
    expect(kept.every((line) => line.startsWith('doc line 7'))).toBe(true)
    // Lines 7 and 70–79 (the page has fewer than 700 lines).
    expect(kept).toHaveLength(11)
  })
})

describe('memory_retrieve on JSON results', () => {
  const regions = ['north', 'south', 'east']
  const rows = Array.from({ length: 300 }, (_, id) => ({ id, name: `row ${id}`, region: regions[id % 3]! }))

  it('applies every transform to a stored JSON array, element by element', async () => {
    const { get, offloaded } = await ranTool('run_sql', rows)
    expect(offloaded).toBe(true)

    const full = await get({ transform: 'full' })
    expect(full).toMatchObject({ type: 'json', truncated: false })
    expect(JSON.parse(full.content)).toEqual(rows)

    const excerpt = await get({ transform: 'excerpt', maxChars: 80, pattern: '"id":150,' })
    expect(excerpt.content).toHaveLength(80)
    expect(excerpt.content).toContain('"id":150,')

    expect((await get({ transform: 'summary' })).content).toBe(
      `JSON, ${JSON.stringify(rows).length} characters: array(300) of { id: number, name: string, region: string }\nFirst element: ${JSON.stringify(rows[0])}`,
    )
    expect(JSON.parse((await get({ transform: 'first_n', n: 2 })).content)).toEqual(rows.slice(0, 2))
    expect(JSON.parse((await get({ transform: 'last_n', n: 1 })).content)).toEqual([rows[299]])
    const north = await get({ transform: 'filtered', pattern: 'NORTH' })
    expect(JSON.parse(north.content)).toEqual(rows.filter((row) => row.region === 'north'))
    expect(north.truncated).toBe(true)
  })

  it('takes a JSON object entry by entry', async () => {
    const report = Object.fromEntries(
      Array.from({ length: 120 }, (_, index) => [
        `metric_${index}`,
        { value: index, unit: index % 2 ? 'eur' : 'pct' },
      ]),
    )
    const { get } = await ranTool('report', report)
    expect(JSON.parse((await get({ transform: 'first_n', n: 1 })).content)).toEqual({
      metric_0: { value: 0, unit: 'pct' },
    })
    expect(JSON.parse((await get({ transform: 'last_n', n: 1 })).content)).toEqual({
      metric_119: { value: 119, unit: 'eur' },
    })
    const filtered = JSON.parse((await get({ transform: 'filtered', pattern: 'metric_11' })).content)
    expect(Object.keys(filtered)).toEqual([
      'metric_11',
      ...Array.from({ length: 10 }, (_, index) => `metric_${110 + index}`),
    ])
    expect((await get({ transform: 'summary' })).content).toMatch(
      /^JSON, \d+ characters: \{ metric_0: \{ value: number, unit: string \}, .*… 108 more \}$/,
    )
  })

  it('applies the JSON transforms to a small result kept in the log, retrieved by its item id', async () => {
    const small = [
      { metric: 'revenue', value: 1_220 },
      { metric: 'churn', value: 0.03 },
    ]
    const { get, offloaded } = await ranTool('query_db', small)
    expect(offloaded).toBe(false)
    expect(await get({})).toMatchObject({
      where: 'view',
      type: 'tool-result',
      content: JSON.stringify(small),
    })
    expect(JSON.parse((await get({ transform: 'last_n', n: 1 })).content)).toEqual([small[1]])
    expect(JSON.parse((await get({ transform: 'filtered', pattern: 'CHURN' })).content)).toEqual([small[1]])
    expect((await get({ transform: 'summary' })).content).toMatch(
      /^JSON, \d+ characters: array\(2\) of \{ metric: string, value: number \}/,
    )
  })
})
