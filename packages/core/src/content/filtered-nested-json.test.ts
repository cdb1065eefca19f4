import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { JsonValue } from '../items'
import { createMemory } from '../memory'
import { inMemoryStore } from '../stores'
import { utf8Length } from './content-size'
import type { MemoryRetrieveOutput, MemoryToolError } from './memory-tool-types'
import { memoryTools } from './memory-tools'
import { applyTransform } from './retrieve-transform'

/*
 * Regression: `transform: 'filtered'` on `{ quarter, rows: [...] }` returned the whole document
 * (the top-level entry `rows` matched, so it was kept with every row), as a JSON text larger than
 * the original once escaped, which was then offloaded again. Lists are now filtered at any depth, the
 * document's shape kept, and the result is never larger than what was stored.
 */

const rows = Array.from({ length: 80 }, (_, index) => ({
  po: `PO-${7001 + index}`,
  vendor: index % 3 === 0 ? 'Azul Print Lda' : index % 3 === 1 ? 'Northwind Traders' : 'Lusa Office',
  amount: 100 + index * 37,
  lines: [{ sku: `SKU-${index}`, qty: index + 1 }],
}))
const quarterly = { quarter: 'Q3', currency: 'EUR', rows }

const filter = (document: unknown, pattern: string, stored = JSON.stringify(document)) =>
  applyTransform(stored, true, { transform: 'filtered', pattern })

describe('filtered on nested JSON documents', () => {
  it('keeps the shape of { quarter, rows } and the rows that match, as plain JSON', () => {
    const stored = JSON.stringify(quarterly)
    const { content, truncated, note } = filter(quarterly, 'po-7002')
    const value = JSON.parse(content) as JsonValue
    expect(typeof value).toBe('object')
    expect(value).toEqual({ quarter: 'Q3', currency: 'EUR', rows: [rows[1]] })
    expect(truncated).toBe(true)
    expect(note).toBeUndefined()
    expect(content.length).toBeLessThan(stored.length / 10)
    // By a value every third row holds.
    const azul = JSON.parse(filter(quarterly, 'azul').content) as typeof quarterly
    expect(azul.rows.map((row) => row.po)).toEqual(
      rows.filter((_, index) => index % 3 === 0).map((row) => row.po),
    )
  })

  it('filters lists at any depth: a kept element matching only inside keeps only its matching rows', () => {
    const report = {
      report: {
        year: 2026,
        regions: [
          { name: 'EMEA', rows: rows.slice(0, 10) },
          { name: 'APAC', rows: rows.slice(10, 20) },
          { name: 'AMER', rows: rows.slice(20, 30) },
        ],
      },
    }
    expect(JSON.parse(filter(report, 'SKU-12"').content)).toEqual({
      report: { year: 2026, regions: [{ name: 'APAC', rows: [rows[12]] }] },
    })
    // An element matching by its own fields is kept whole.
    expect(JSON.parse(filter(report, 'amer').content)).toEqual({
      report: { year: 2026, regions: [report.report.regions[2]] },
    })
  })

  it('filters a map of records keyed by id like a list', () => {
    const byId = Object.fromEntries(rows.slice(0, 5).map((row) => [row.po, row]))
    expect(Object.keys(JSON.parse(filter(byId, 'PO-7003').content))).toEqual(['PO-7003'])
    expect(Object.keys(JSON.parse(filter(byId, 'northwind').content))).toEqual(['PO-7002', 'PO-7005'])
  })

  it('empties the lists when nothing matches, and says so', () => {
    expect(filter(quarterly, 'nowhere')).toEqual({
      content: '{"quarter":"Q3","currency":"EUR","rows":[]}',
      truncated: true,
      note: 'No element contains "nowhere"; the lists are empty.',
    })
  })

  it('returns the document as stored, with a note, when filtering removes nothing', () => {
    const pretty = JSON.stringify(quarterly, null, 2)
    expect(filter(quarterly, 'PO-', pretty)).toEqual({
      content: pretty,
      truncated: false,
      note: 'Every element of its lists contains "PO-": this is the whole document.',
    })
    expect(filter({ a: 'x', b: 2 }, 'x')).toMatchObject({
      content: '{"a":"x","b":2}',
      truncated: false,
      note: 'This JSON has no list to filter: this is the whole document.',
    })
  })

  it('filters JSON stored as text, or serialised twice, as a document', () => {
    const text = applyTransform(JSON.stringify(quarterly), false, {
      transform: 'filtered',
      pattern: 'PO-7040',
    })
    expect(JSON.parse(text.content)).toEqual({ quarter: 'Q3', currency: 'EUR', rows: [rows[39]] })
    const twice = JSON.stringify(JSON.stringify(quarterly))
    const unwrapped = applyTransform(twice, true, { transform: 'filtered', pattern: 'PO-7040' })
    expect(JSON.parse(unwrapped.content)).toEqual({ quarter: 'Q3', currency: 'EUR', rows: [rows[39]] })
  })

  it('memory_retrieve filtered on an offloaded { quarter, rows } result: the matching rows, smaller than stored', async () => {
    const memory = createMemory({ store: inMemoryStore() })
    const thread = await memory.thread('quarterly')
    await thread.append([
      { role: 'user', content: 'Load the Q3 purchase orders.' },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'q1', toolName: 'load_orders', input: { quarter: 'Q3' } }],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'q1', toolName: 'load_orders', output: quarterly as never },
        ],
      },
    ])
    const [record] = await thread.content.export().then((snapshot) => snapshot.records)
    const result = (await memoryTools(thread).memory_retrieve.execute({
      id: record!.id,
      transform: 'filtered',
      pattern: 'PO-7010',
    })) as MemoryRetrieveOutput | MemoryToolError
    if ('error' in result) throw new Error(result.error.message)
    expect(JSON.parse(result.content)).toEqual({ quarter: 'Q3', currency: 'EUR', rows: [rows[9]] })
    expect(result).toMatchObject({ truncated: true, size: utf8Length(record!.data) })
    // The whole tool output, as a framework serialises it for the model, is smaller than the original.
    expect(utf8Length(JSON.stringify(result))).toBeLessThan(record!.size / 4)
  })
})

describe('filtered is never larger than the original', () => {
  /** A pattern: often a piece of the document's text, so that some elements match and some do not. */
  const documentAndPattern = fc
    .tuple(fc.jsonValue({ maxDepth: 5 }), fc.nat(), fc.integer({ min: 1, max: 6 }), fc.boolean())
    .map(([document, at, length, pretty]) => {
      const compact = JSON.stringify(document)
      const start = compact.length === 0 ? 0 : at % compact.length
      const pattern = compact.slice(start, start + length) || 'x'
      return { document, pattern, stored: pretty ? JSON.stringify(document, null, 2) : compact }
    })

  it('for random JSON documents and patterns, stored compact or pretty, as JSON or as text', () => {
    fc.assert(
      fc.property(documentAndPattern, fc.boolean(), ({ stored, pattern }, asJson) => {
        const result = applyTransform(stored, asJson, { transform: 'filtered', pattern })
        expect(utf8Length(result.content)).toBeLessThanOrEqual(utf8Length(stored))
        if (!result.truncated) {
          expect(result.content).toBe(stored)
          expect(result.note).toBeDefined()
        }
      }),
      { numRuns: 500 },
    )
  })

  it('keeps only list elements that contain the pattern, and everything outside the lists', () => {
    const list = fc.array(
      fc.record({
        id: fc.integer(),
        name: fc.string({ maxLength: 8 }),
        tags: fc.array(fc.string({ maxLength: 4 })),
      }),
      { maxLength: 12 },
    )
    // Patterns: short strings, or pieces of the list's own JSON (structure included, like `","`).
    const listAndPattern = list.chain((items) => {
      const json = JSON.stringify(items)
      const piece = fc
        .tuple(fc.nat(json.length - 1), fc.integer({ min: 1, max: 4 }))
        .map(([at, length]) => json.slice(at, at + length))
      return fc.tuple(fc.constant(items), fc.oneof(fc.string({ minLength: 1, maxLength: 3 }), piece))
    })
    fc.assert(
      fc.property(listAndPattern, fc.string(), ([items, pattern], title) => {
        const document = { title, nested: { items } }
        const result = applyTransform(JSON.stringify(document), true, { transform: 'filtered', pattern })
        const value = JSON.parse(result.content) as typeof document
        expect(value.title).toBe(title)
        const needle = pattern.toLowerCase()
        for (const item of value.nested.items) {
          expect(JSON.stringify(item).toLowerCase()).toContain(needle)
          expect(items.some((original) => original.id === item.id)).toBe(true)
        }
        // Every element that contains the pattern is still there (in part, when only a list inside it matches).
        const matching = items.filter((item) => JSON.stringify(item).toLowerCase().includes(needle))
        expect(value.nested.items.map((item) => item.id)).toEqual(matching.map((item) => item.id))
      }),
      { numRuns: 300 },
    )
  })
})
