import type { TokenCounter } from '@strata-memory/core'
import { gptTokenizer } from '@strata-memory/core/tokenizer'
import type { ModelMessage } from 'ai'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { agentLoopEvents, PLANTED } from './agent-loop-scenario.ts'
import {
  containsVerbatim,
  contextTokens,
  dropOldestToBudget,
  MESSAGE_OVERHEAD,
  messageTokens,
} from './agent-loop-tokens.ts'

/** One token a character: sizes in tests are easy to read. */
const characters: TokenCounter = { name: 'characters', count: (text) => text.length }
const count = (message: ModelMessage) => messageTokens(message, characters)

const step = (id: number, page: string): ModelMessage[] => [
  { role: 'assistant', content: [{ type: 'tool-call', toolCallId: `c${id}`, toolName: 'f', input: {} }] },
  {
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: `c${id}`, toolName: 'f', output: { type: 'text', value: page } },
    ],
  },
]

/** Every tool call in `messages` has its result there, and every result its call. */
function pairsWhole(messages: readonly ModelMessage[]): boolean {
  const ids = (type: string) =>
    messages
      .flatMap((message) =>
        typeof message.content === 'string'
          ? []
          : (message.content as { type: string; toolCallId?: string }[]),
      )
      .flatMap((part) => (part.type === type ? [part.toolCallId] : []))
      .sort()
      .join()
  return ids('tool-call') === ids('tool-result')
}

describe('messageTokens', () => {
  it('counts a typed AI SDK output as its value, as Strata renders it, plus the message overhead', () => {
    const typed = step(1, 'a page of text')[1]!
    const plain = {
      role: 'tool',
      content: [{ type: 'tool-result', toolName: 'f', output: 'a page of text' }],
    }
    expect(count(typed)).toBe(MESSAGE_OVERHEAD + 'f'.length + 'a page of text'.length)
    expect(messageTokens(plain, characters)).toBe(count(typed))
    const json = {
      role: 'tool',
      content: [{ type: 'tool-result', toolName: 'f', output: { type: 'json', value: { a: 1 } } }],
    }
    expect(messageTokens(json, characters)).toBe(MESSAGE_OVERHEAD + 1 + '{"a":1}'.length)
  })

  it('counts with the exact tokenizer it is given', () => {
    const exact = gptTokenizer()
    const message: ModelMessage = { role: 'user', content: 'Keep the total under 48,500 EUR.' }
    expect(contextTokens([message], exact)).toBe(MESSAGE_OVERHEAD + exact.count(message.content as string))
  })
})

describe('dropOldestToBudget', () => {
  it('keeps everything that fits, and the system message and the newest step when nothing else does', () => {
    const system: ModelMessage = { role: 'system', content: 'sys' }
    const history = [
      system,
      { role: 'user', content: 'go' } as ModelMessage,
      ...step(1, 'x'.repeat(50)),
      ...step(2, 'y'.repeat(50)),
    ]
    expect(dropOldestToBudget(history, { budget: 10_000, count })).toEqual(history)
    const tight = dropOldestToBudget(history, { budget: 10, count })
    expect(tight).toEqual([system, ...step(2, 'y'.repeat(50))])
  })

  it('never splits a tool call from its result, and ends within the budget unless the newest group alone is over', () => {
    const histories = fc.array(
      fc.oneof(
        fc.record({ kind: fc.constant('text' as const), size: fc.nat(200) }),
        fc.record({ kind: fc.constant('step' as const), size: fc.nat(2_000) }),
      ),
      { minLength: 1, maxLength: 40 },
    )
    fc.assert(
      fc.property(
        histories,
        fc.integer({ min: 1, max: 20_000 }),
        fc.boolean(),
        (entries, budget, withSystem) => {
          const messages: ModelMessage[] = withSystem ? [{ role: 'system', content: 'system prompt' }] : []
          entries.forEach((entry, index) => {
            if (entry.kind === 'text') messages.push({ role: 'assistant', content: 't'.repeat(entry.size) })
            else messages.push(...step(index, 'p'.repeat(entry.size)))
          })
          const kept = dropOldestToBudget(messages, { budget, count })
          const total = kept.reduce((sum, message) => sum + count(message), 0)
          expect(pairsWhole(kept)).toBe(true)
          // What is kept is a tail of the history, behind the system message.
          const tail = withSystem ? kept.slice(1) : kept
          expect(tail).toEqual(messages.slice(messages.length - tail.length))
          if (withSystem) expect(kept[0]).toEqual(messages[0])
          const newest = messages.at(-1)!.role === 'tool' ? 2 : 1
          expect(tail.length).toBeGreaterThanOrEqual(newest)
          if (tail.length > newest) expect(total).toBeLessThanOrEqual(budget)
          // Nothing is dropped that did not have to be: adding back the last dropped group would overflow.
          if (tail.length < messages.length - (withSystem ? 1 : 0)) {
            const dropped = messages[messages.length - tail.length - 1]!
            const back = dropped.role === 'tool' ? count(messages[messages.length - tail.length - 2]!) : 0
            expect(total + count(dropped) + back).toBeGreaterThan(budget)
          }
        },
      ),
    )
  })
})

describe('agentLoopEvents', () => {
  const events = agentLoopEvents()
  const steps = events.flatMap((event) => (event.kind === 'step' ? [event] : []))

  it('is deterministic, about 170 steps long, and closes every scope it opens', () => {
    expect(agentLoopEvents()).toEqual(events)
    expect(steps.length).toBeGreaterThanOrEqual(150)
    expect(steps.length).toBeLessThanOrEqual(200)
    const depth = events.reduce(
      (open, event) => open + (event.kind === 'enter' ? 1 : event.kind === 'exit' ? -1 : 0),
      0,
    )
    expect(depth).toBe(0)
    expect(events.at(-1)!.kind).toBe('answer')
  })

  it('plants each detail once, early, and searches for it with a phrase that is not the value', () => {
    const texts = events.map((event) =>
      event.kind === 'step' ? event.messages : event.kind === 'request' ? [event.message] : [],
    )
    for (const detail of PLANTED) {
      const at = texts.flatMap((messages, index) => (containsVerbatim(messages, detail.value) ? [index] : []))
      expect(at).toHaveLength(1)
      expect(at[0]!).toBeLessThan(events.length / 3)
      expect(detail.query.toLowerCase()).not.toContain(detail.value.toLowerCase())
    }
  })
})
