import { type Item, jsonCopy, type UnsequencedItem } from '@strata-memory/core'
import { makeEveryItemType } from '@strata-memory/core/testing'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  itemFromLogLine,
  parseLogRecord,
  prepareLogLine,
  sequenceLogLine,
  withoutBatchEnd,
} from './line-format'

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
    const item = fc
      .tuple(
        fc.constantFrom('message', 'transition', 'summary', 'fact'),
        fc.string(),
        fc.dictionary(key, fc.jsonValue(), { maxKeys: 6 }),
      )
      .map(([type, id, fields]) => ({ id, ...fields, type }) as unknown as UnsequencedItem)
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

  it('reports what is wrong with a line that is not a log record', () => {
    expect(parseLogRecord([])).toBe('is not a JSON object')
    expect(parseLogRecord({ id: 'a' })).toBe('has no valid "seq"')
    expect(parseLogRecord({ seq: 0, id: 'a' })).toBe('has no valid "seq"')
    expect(parseLogRecord({ item: 'x', seq: 1 })).toBe('"item" is not an object')
    expect(parseLogRecord({ seq: 1, id: 'a', batch_end: 'x' })).toBe('has an invalid "batch_end"')
  })
})
