import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Item } from '../items/item'
import { makeMessageItem } from '../testing/fixtures'
import { storedTail } from './unseen-messages'

const ROLES = ['user', 'assistant', 'system'] as const

/** A message item after `previous` (a seq gap when `gap`), frozen as the log hands items out when `frozen`. */
function nextItem(
  previous: Item | undefined,
  role: (typeof ROLES)[number],
  gap: boolean,
  frozen: boolean,
): Item {
  const seq = (previous?.seq ?? 0) + (gap ? 2 : 1)
  const item = { ...makeMessageItem({ role, text: `message ${seq}` }), seq } as Item
  return frozen ? Object.freeze(item) : item
}

/** The changes a thread's log array goes through (see `storedTail`'s memo). */
const operation = fc.oneof(
  fc.record({
    kind: fc.constant('append' as const),
    role: fc.constantFrom(...ROLES),
    gap: fc.boolean(),
    frozen: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('drop last' as const) }),
  fc.record({ kind: fc.constant('remove' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('drop last, append' as const), role: fc.constantFrom(...ROLES) }),
  fc.record({ kind: fc.constant('freeze in place' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('window' as const), window: fc.integer({ min: 1, max: 6 }) }),
)

describe('storedTail', () => {
  it('gives what a fresh walk gives, whatever the log array went through since the last call', () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 60 }), (operations) => {
        const stored: Item[] = []
        let window = 3
        for (const step of operations) {
          if (step.kind === 'append') stored.push(nextItem(stored.at(-1), step.role, step.gap, step.frozen))
          else if (step.kind === 'drop last') stored.pop()
          else if (step.kind === 'remove' && stored.length > 0) stored.splice(step.at % stored.length, 1)
          else if (step.kind === 'drop last, append') {
            stored.pop()
            stored.push(nextItem(stored.at(-1), step.role, false, true))
          } else if (step.kind === 'freeze in place' && stored.length > 0) {
            // The same item, frozen where it is (what handing a view out does).
            Object.freeze(stored[step.at % stored.length])
          } else if (step.kind === 'window') window = step.window
          // A copy is another list: its tail is walked afresh.
          expect(storedTail(stored, window)).toEqual(storedTail(stored.slice(), window))
        }
      }),
      { numRuns: 300 },
    )
  })

  it('walks an unchanged log once for the two alignments of a call', () => {
    const stored: Item[] = []
    for (let index = 0; index < 10; index++) stored.push(nextItem(stored.at(-1), 'user', false, true))
    const first = storedTail(stored, 4)
    expect(storedTail(stored, 4)).toBe(first)
    expect(storedTail(stored, 5)).not.toBe(first)
    stored.push(nextItem(stored.at(-1), 'assistant', false, true))
    const grown = storedTail(stored, 5)
    expect(grown).toHaveLength(5)
    expect(grown[0]!.role).toBe('assistant')
  })
})
