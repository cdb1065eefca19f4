import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Item } from '../items'
import { makeItems } from '../testing/fixtures'
import { shareItemStrings } from './shared-strings'

/** A parsed record of any shape a log may hold: the shared fields present or not, strings or not. */
const record = fc.dictionary(
  fc.constantFrom('level', 'type', 'role', 'turnId', 'tokens', 'id', 'content', 'text'),
  fc.oneof(
    fc.constantFrom('global', 'task', 'message', 'tool', 'turn_0001', 'turn_0002'),
    fc.string(),
    fc.integer(),
    fc.constant(null),
    fc.record(
      { counter: fc.oneof(fc.string(), fc.integer()), parts: fc.array(fc.nat()) },
      { requiredKeys: ['parts'] },
    ),
  ),
)

describe('shared item strings', () => {
  it('leaves every parsed item equal to itself, its keys and their order unchanged (property)', () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 20 }), (records) => {
        for (const value of records) {
          const text = JSON.stringify(value)
          const parsed = JSON.parse(text) as Item
          const shared = shareItemStrings(parsed)
          expect(shared).toBe(parsed)
          expect(JSON.stringify(shared)).toBe(text)
          expect(shared).toStrictEqual(JSON.parse(text))
        }
      }),
      { numRuns: 300 },
    )
  })

  it('keeps items read back from stored lines as they were stored', () => {
    const items = makeItems(40).map((item, index) => ({ ...item, seq: index + 1 }) as Item)
    for (const item of items) {
      const text = JSON.stringify(item)
      expect(shareItemStrings(JSON.parse(text) as Item)).toStrictEqual(JSON.parse(text))
    }
  })
})
