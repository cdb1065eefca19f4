import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { UnsequencedItem } from '@strata-memory/core'
import { fileStore, itemFromLogRecord } from '@strata-memory/store-file'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { itemJsonFromLine } from './item-json'

const dir = mkdtempSync(join(tmpdir(), 'strata-cli-item-json-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const text = fc.string({ unit: 'grapheme', maxLength: 40 })
const json = fc.jsonValue({ maxDepth: 3 })
const base = {
  id: fc.uuid(),
  ts: fc.nat(),
  level: fc.constantFrom('global', 'project', 'task'),
  turnId: fc.constantFrom('turn_0001', 'turn_0002'),
}
const item = fc.oneof(
  fc.record(
    {
      ...base,
      type: fc.constant('message' as const),
      role: fc.constantFrom('user' as const, 'assistant' as const),
      content: fc.array(fc.record({ type: fc.constant('text' as const), text }), {
        minLength: 1,
        maxLength: 3,
      }),
      meta: fc.option(fc.dictionary(fc.string({ maxLength: 8 }), json, { maxKeys: 3 }), { nil: undefined }),
    },
    { requiredKeys: ['id', 'ts', 'level', 'turnId', 'type', 'role', 'content'] },
  ),
  fc.record({
    ...base,
    type: fc.constant('message' as const),
    role: fc.constant('tool' as const),
    content: fc.array(
      fc.record({
        type: fc.constant('tool-result' as const),
        toolCallId: fc.string({ minLength: 1, maxLength: 8 }),
        toolName: fc.constant('turn_id'),
        output: json,
      }),
      { minLength: 1, maxLength: 2 },
    ),
  }),
  fc.record({
    ...base,
    type: fc.constant('summary' as const),
    tier: fc.constant('episodic' as const),
    text,
    range: fc.constant({ fromSeq: 1, toSeq: 1 }),
    salience: fc.double({ min: 0, max: 1, noNaN: true }),
  }),
  fc.record({
    ...base,
    type: fc.constant('fact' as const),
    text,
    tags: fc.array(fc.string({ maxLength: 5 }), { maxLength: 2 }),
    confidence: fc.constant(1),
    salience: fc.constant(0.5),
  }),
) as fc.Arbitrary<UnsequencedItem>

describe('itemJsonFromLine', () => {
  it('cuts from a stored line exactly the JSON of the item the store reads (single appends and batches)', async () => {
    let thread = 0
    let fast = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(item, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 4 }),
        async (batches) => {
          const store = fileStore({ dir, fsync: false })
          const threadId = `t-${++thread}`
          let lastSeq = 0
          for (const batch of batches)
            lastSeq = (await store.append(threadId, batch, { expectedSeq: lastSeq })).at(-1)!.seq
          const lines = readFileSync(join(dir, 'agents', threadId, 'raw_traces.jsonl'), 'utf8')
            .trimEnd()
            .split('\n')
          for (const line of lines) {
            const expected = JSON.stringify(itemFromLogRecord(JSON.parse(line) as Record<string, unknown>))
            const cut = itemJsonFromLine(line, JSON.parse(line) as Record<string, unknown>)
            if (cut !== undefined) fast++
            expect(cut ?? expected).toBe(expected)
          }
        },
      ),
      { numRuns: 60 },
    )
    // Items built like core's take the fast path.
    expect(fast).toBeGreaterThan(0)
  })

  it('declines the wrapped form and an object before turn_id; a line edited by hand still gives the same item', () => {
    const wrapped =
      '{"seq":3,"id":"a","ts":1,"turn_id":"t","type":"message","level":"global","item":{"id":"a","seq":3}}'
    expect(itemJsonFromLine(wrapped, JSON.parse(wrapped))).toBeUndefined()
    const nested =
      '{"seq":3,"meta":{"turn_id":"x"},"id":"a","turn_id":"t","type":"message","role":"user","content":[]}'
    expect(itemJsonFromLine(nested, JSON.parse(nested))).toBeUndefined()
    for (const edited of [
      '{"seq":3, "id":"a","ts":1,"level":"global","turn_id":"t","type":"message","role":"user","content":[]}',
      '{"seq":3,"id":"\\u0061\\"turn_id\\":","ts":1,"level":"global","turn_id":"t","type":"message","role":"user","content":[]}',
    ]) {
      const record = JSON.parse(edited) as Record<string, unknown>
      const cut = itemJsonFromLine(edited, record)
      expect(JSON.parse(cut ?? 'null')).toEqual(
        itemFromLogRecord(JSON.parse(edited) as Record<string, unknown>),
      )
    }
    const fact =
      '{"seq":3,"id":"a","ts":1,"level":"global","turn_id":"t","type":"fact","text":"x","content":"x","batch_end":3}'
    expect(itemJsonFromLine(fact, JSON.parse(fact))).toBe(
      '{"id":"a","ts":1,"level":"global","turnId":"t","type":"fact","text":"x","seq":3}',
    )
  })
})
