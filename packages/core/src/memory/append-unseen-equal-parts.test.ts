import { describe, expect, it } from 'vitest'
import { StrataError } from '../errors'
import type { JsonObject, MessageInput } from '../items'
import { createMemory } from './create-memory'

const call = (input: JsonObject): MessageInput => ({
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'search', input }],
})
const result = (output: JsonObject): MessageInput => ({
  role: 'tool',
  content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'search', output }],
})

/** A thread holding a question, a tool step and an answer. */
async function toolThread() {
  const thread = await createMemory().thread('equal-parts')
  await thread.append([
    { role: 'user', content: 'Find flights' },
    call({ from: 'OSL', to: 'LIS', when: { month: 5, days: [1, 2] } }),
    result({ flights: [{ id: 'TP1', price: 120 }], currency: 'EUR' }),
    { role: 'assistant', content: 'TP1 for 120 EUR.' },
  ])
  return thread
}

describe('appendUnseen compares a re-sent message with the stored one', () => {
  it('matches the same parts whatever the order of their keys, and stores only the new message', async () => {
    const thread = await toolThread()
    const stored = await thread.appendUnseen(
      [
        { role: 'user', content: [{ text: 'Find flights', type: 'text' }] },
        call({ when: { days: [1, 2], month: 5 }, to: 'LIS', from: 'OSL' }),
        result({ currency: 'EUR', flights: [{ price: 120, id: 'TP1' }] }),
        { role: 'assistant', content: [{ type: 'text', text: 'TP1 for 120 EUR.' }] },
        { role: 'user', content: 'Book it' },
      ],
      { history: 'full' },
    )
    expect(stored.map((item) => item.content)).toEqual([[{ type: 'text', text: 'Book it' }]])
  })

  it('matches a message that differs only in what matching ignores (metadata, ids)', async () => {
    const thread = await toolThread()
    const stored = await thread.appendUnseen(
      [
        { role: 'user', content: 'Find flights', id: 'ui-1', meta: { source: 'page' } },
        call({ from: 'OSL', to: 'LIS', when: { month: 5, days: [1, 2] } }),
        result({ flights: [{ id: 'TP1', price: 120 }], currency: 'EUR' }),
        { role: 'assistant', content: [{ type: 'text', text: 'TP1 for 120 EUR.', meta: { x: 1 } }] },
        { role: 'user', content: 'Book it' },
      ],
      { history: 'full' },
    )
    expect(stored).toHaveLength(1)
    expect((await thread.items()).filter((item) => item.type === 'message')).toHaveLength(5)
  })

  it('refuses a history whose tool output differs from the stored one, storing nothing', async () => {
    const thread = await toolThread()
    const before = await thread.items()
    const error = await thread
      .appendUnseen(
        [
          { role: 'user', content: 'Find flights' },
          call({ from: 'OSL', to: 'LIS', when: { month: 5, days: [1, 2] } }),
          result({ flights: [{ id: 'TP1', price: 99 }], currency: 'EUR' }),
          { role: 'assistant', content: 'TP1 for 120 EUR.' },
          { role: 'user', content: 'Book it' },
        ],
        { history: 'full' },
      )
      .catch((caught: unknown) => caught)
    expect(StrataError.isInstance(error, 'STRATA_INVALID_MESSAGE')).toBe(true)
    expect(await thread.items()).toEqual(before)
  })

  it('still checks the fields of a re-sent message it matched: a bad timestamp is refused', async () => {
    const thread = await toolThread()
    const error = await thread
      .appendUnseen(
        [
          { role: 'user', content: [{ type: 'text', text: 'Find flights' }], ts: Number.NaN },
          call({ from: 'OSL', to: 'LIS', when: { month: 5, days: [1, 2] } }),
          result({ flights: [{ id: 'TP1', price: 120 }], currency: 'EUR' }),
          { role: 'assistant', content: 'TP1 for 120 EUR.' },
          { role: 'user', content: 'Book it' },
        ],
        { history: 'full' },
      )
      .catch((caught: unknown) => caught)
    expect(StrataError.isInstance(error, 'STRATA_INVALID_MESSAGE')).toBe(true)
  })
})
