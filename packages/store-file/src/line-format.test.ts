import { type Item, jsonCopy, type UnsequencedItem } from '@strata-memory/core'
import { makeEveryItemType } from '@strata-memory/core/testing'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { cleanLength, cleanLine, copyClean } from './clean-lines'
import {
  itemFromLogLine,
  itemJsonFromLine,
  parseLogRecord,
  prepareLogLine,
  sequenceLogLine,
  withoutBatchEnd,
} from './line-format'

/** Top-level keys of generated items: the ones the line format writes or renames, and others. */
const key = fc.constantFrom(
  'id',
  'seq',
  'ts',
  'level',
  'turnId',
  'turn_id',
  'content',
  'item',
  'batch_end',
  'text',
  'x',
)

/** The item types, each written its own way: a message's content as it is, the others' text added. */
const itemType = fc.constantFrom('message', 'transition', 'summary', 'fact')

/** Items of every type with generated keys, some of them the ones the line format writes or renames. */
const item = fc
  .tuple(itemType, fc.string(), fc.dictionary(key, fc.jsonValue(), { maxKeys: 6 }))
  .map(([type, id, fields]) => ({ id, ...fields, type }) as unknown as UnsequencedItem)

const stored = (item: UnsequencedItem, seq: number): Item => {
  const copy = jsonCopy(item) as Item
  copy.seq = seq
  return copy
}

describe('line format', () => {
  it('puts seq first and the grep-able fields on every line', () => {
    const items = makeEveryItemType()
    items.forEach((item, index) => {
      const line = sequenceLogLine(prepareLogLine(item), index + 1)
      expect(line.startsWith(`{"seq":${index + 1},`)).toBe(true)
      const record = JSON.parse(line) as Record<string, unknown>
      for (const field of ['seq', 'id', 'ts', 'turn_id', 'type', 'content'])
        expect(record).toHaveProperty(field)
    })
  })

  it('round-trips any item exactly, keys in order, in both forms and with batch_end', () => {
    fc.assert(
      fc.property(item, fc.integer({ min: 1, max: 1e6 }), fc.boolean(), (input, seq, inBatch) => {
        const line = sequenceLogLine(prepareLogLine(input), seq, inBatch ? seq + 2 : undefined)
        expect(parseLogRecord(JSON.parse(line))).toEqual({ seq, batchEnd: inBatch ? seq + 2 : undefined })
        const expected = stored(input, seq)
        expect(JSON.stringify(itemFromLogLine(line))).toBe(JSON.stringify(expected))
        expect(JSON.stringify(itemFromLogLine(withoutBatchEnd(line)))).toBe(JSON.stringify(expected))
        expect(withoutBatchEnd(line)).not.toMatch(/"batch_end":\d+\}$/)
      }),
    )
  })

  it('writes the line an object-by-object rename writes, byte for byte, whatever precedes turnId', () => {
    // The line as the format defines it, built key by key: `turnId` renamed in place, a non-message's
    // text last. The store makes it with one JSON.stringify and a rename in the text.
    const reference = (input: Record<string, unknown>): string => {
      const line: Record<string, unknown> = {}
      for (const name of Object.keys(input)) line[name === 'turnId' ? 'turn_id' : name] = input[name]
      if (input.type !== 'message') {
        const text = input.type === 'transition' ? input.agentFacingMessage : input.text
        line.content = typeof text === 'string' ? text : null
      }
      return JSON.stringify(line)
    }
    // Values that could be mistaken for the key: nested turnId keys and strings holding its JSON.
    const tricky = fc.oneof(
      fc.jsonValue(),
      fc.constantFrom('"turnId":', '\\"turnId\\":"x"', '{"turnId":1}', '→ turnId'),
      fc.record({ turnId: fc.string(), inner: fc.constant({ turnId: 'nested' }) }),
    )
    const keys = fc.constantFrom(
      ...['id', 'ts', 'level', 'meta', 'turnId', 'text', 'agentFacingMessage', 'x', 'role'],
    )
    const generated = fc
      .tuple(itemType, fc.array(fc.tuple(keys, tricky), { maxLength: 7 }))
      .map(([type, entries]) => {
        const input: Record<string, unknown> = {}
        for (const [name, value] of entries) input[name] = value
        input.type = type
        return input
      })
    fc.assert(
      fc.property(generated, fc.integer({ min: 1, max: 1e6 }), (input, seq) => {
        const prepared = prepareLogLine(input as unknown as UnsequencedItem)
        expect(prepared.wrapped).toBe(false)
        const body = reference(input)
        expect(sequenceLogLine(prepared, seq)).toBe(
          body === '{}' ? `{"seq":${seq}}` : `{"seq":${seq},${body.slice(1)}`,
        )
      }),
      { numRuns: 500 },
    )
  })

  it("takes batch_end out of a line's bytes as out of its text, copying only lines that have one", () => {
    // Lines as the store writes them, and lines edited by hand: a batch_end elsewhere, or not a number.
    const edited = fc.constantFrom(
      '{"seq":1,"batch_end":3,"id":"a"}',
      '{"seq":1,"id":"a","batch_end":"3"}',
      '{"seq":1,"id":"a","batch_end":3 }',
      '{"seq":1,"id":"a", "batch_end":3}',
      '{"seq":1,"x":{"batch_end":3},"id":"é"}',
      '{"seq":1,"x":{"batch_end":3},"batch_end":4}',
    )
    const line = fc.oneof(
      fc
        .tuple(item, fc.integer({ min: 1, max: 1e6 }), fc.boolean())
        .map(([input, seq, inBatch]) =>
          sequenceLogLine(prepareLogLine(input), seq, inBatch ? seq + 2 : undefined),
        ),
      edited,
    )
    fc.assert(
      fc.property(line, (text) => {
        const bytes = Buffer.from(`${text}\n`)
        const clean = cleanLine(bytes)
        const out = Buffer.alloc(cleanLength(bytes, clean) + 4)
        const written = copyClean(bytes, clean, out, 2)
        expect(written).toBe(cleanLength(bytes, clean))
        expect(out.toString('utf8', 2, 2 + written)).toBe(`${withoutBatchEnd(text)}\n`)
        // Told apart from its bytes: a line without one is taken as it is, one the store wrote is cut.
        if (!text.includes('"batch_end":')) expect(clean).toBe(-1)
        if (/,"batch_end":\d+\}$/.test(text)) expect(typeof clean).toBe('number')
      }),
    )
  })

  it('round-trips messages in the key order core writes them, whatever keys follow', () => {
    // The shape most lines have, which the reader builds from one object literal.
    const extra = fc.dictionary(
      fc.constantFrom('tokens', 'meta', 'scope', 'turn_id', 'seq', 'batch_end', '__proto__', 'x'),
      fc.jsonValue(),
      { maxKeys: 4 },
    )
    const message = fc
      .record({
        id: fc.string(),
        ts: fc.integer(),
        level: fc.constantFrom('global', 'task'),
        turnId: fc.string(),
        role: fc.constantFrom('user', 'assistant', 'tool'),
        content: fc.array(fc.record({ type: fc.constant('text'), text: fc.string() }), { maxLength: 3 }),
      })
      .chain(({ id, ts, level, turnId, role, content }) =>
        extra.map((fields) => {
          const item: Record<string, unknown> = { id, ts, level, turnId, type: 'message', role, content }
          for (const [key, value] of Object.entries(fields)) {
            Object.defineProperty(item, key, { value, enumerable: true, writable: true, configurable: true })
          }
          return item as unknown as UnsequencedItem
        }),
      )
    fc.assert(
      fc.property(message, fc.integer({ min: 1, max: 1e6 }), fc.boolean(), (input, seq, inBatch) => {
        const line = sequenceLogLine(prepareLogLine(input), seq, inBatch ? seq + 2 : undefined)
        const read = itemFromLogLine(line)
        expect(JSON.stringify(read)).toBe(JSON.stringify(stored(input, seq)))
        expect(Object.getPrototypeOf(read)).toBe(Object.prototype)
      }),
    )
  })

  it("cuts the JSON of a line's item from the line exactly as serialising the item gives it, or leaves it", () => {
    const value = fc.oneof(
      fc.jsonValue(),
      fc.constantFrom('"turn_id":', ',"batch_end":3}', '{"item":{}}', 'a\\', '→'),
      fc.dictionary(key, fc.jsonValue(), { maxKeys: 3 }),
    )
    const item = fc
      .tuple(
        fc.constantFrom('message', 'transition', 'summary', 'fact'),
        fc.dictionary(key, value, { maxKeys: 6 }),
        fc.boolean(),
      )
      .map(([type, fields, ordered]) => {
        const core = ordered ? { id: 'i', ts: 1, level: 'task', turnId: 'turn_0001', type } : { type }
        return { ...core, ...fields, type } as unknown as UnsequencedItem
      })
    let cut = 0
    fc.assert(
      fc.property(item, fc.integer({ min: 1, max: 1e6 }), fc.boolean(), (input, seq, inBatch) => {
        const line = sequenceLogLine(prepareLogLine(input), seq, inBatch ? seq + 2 : undefined)
        const read = itemFromLogLine(line)
        const json = itemJsonFromLine(line, JSON.parse(line) as Record<string, unknown>)
        if (json !== undefined) {
          cut++
          expect(json).toBe(JSON.stringify(read))
        }
      }),
      { numRuns: 2000 },
    )
    // The plain lines among these random ones are cut (a real log's are nearly all plain).
    expect(cut).toBeGreaterThan(100)
  })

  it('reports what is wrong with a line that is not a log record', () => {
    expect(parseLogRecord([])).toBe('is not a JSON object')
    expect(parseLogRecord({ id: 'a' })).toBe('has no valid "seq"')
    expect(parseLogRecord({ seq: 0, id: 'a' })).toBe('has no valid "seq"')
    expect(parseLogRecord({ item: 'x', seq: 1 })).toBe('"item" is not an object')
    expect(parseLogRecord({ seq: 1, id: 'a', batch_end: 'x' })).toBe('has an invalid "batch_end"')
  })
})
