import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Item, MessagePart } from '../items'
import { renderContext } from './render-context'
import { handOutView, type RenderedView, renderedView } from './rendered-view'

/** A view item drawn by the property: calls and results over a few ids, so they pair, repeat and dangle. */
type Drawn =
  | { kind: 'user' | 'assistant'; text: string }
  | { kind: 'calls'; ids: number[]; provider: boolean; inPlace: number[] }
  | { kind: 'results'; ids: number[] }
  | { kind: 'transition' }

const drawn: fc.Arbitrary<Drawn> = fc.oneof(
  fc.record({
    kind: fc.constantFrom('user' as const, 'assistant' as const),
    text: fc.string({ maxLength: 6 }),
  }),
  fc.record({
    kind: fc.constant('calls' as const),
    ids: fc.array(fc.nat({ max: 5 }), { minLength: 1, maxLength: 3 }),
    provider: fc.boolean(),
    inPlace: fc.array(fc.nat({ max: 5 }), { maxLength: 2 }),
  }),
  fc.record({
    kind: fc.constant('results' as const),
    ids: fc.array(fc.nat({ max: 5 }), { minLength: 1, maxLength: 3 }),
  }),
  fc.record({ kind: fc.constant('transition' as const) }),
)

const call = (id: number, provider: boolean): MessagePart => ({
  type: 'tool-call',
  toolCallId: `c${id}`,
  toolName: 'tool',
  input: { id },
  ...(provider ? { providerExecuted: true } : {}),
})
const result = (id: number): MessagePart => ({
  type: 'tool-result',
  toolCallId: `c${id}`,
  toolName: 'tool',
  output: id,
})

function itemOf(entry: Drawn, seq: number): Item {
  const base = { id: `i${seq}`, seq, ts: seq, level: 'chat', turnId: 'turn_0001' }
  switch (entry.kind) {
    case 'user':
    case 'assistant':
      return { ...base, type: 'message', role: entry.kind, content: [{ type: 'text', text: entry.text }] }
    case 'calls':
      return {
        ...base,
        type: 'message',
        role: 'assistant',
        content: [...entry.ids.map((id) => call(id, entry.provider)), ...entry.inPlace.map(result)],
      }
    case 'results':
      return { ...base, type: 'message', role: 'tool', content: entry.ids.map(result) }
    case 'transition':
      return {
        ...base,
        type: 'transition',
        fromLevel: 'task',
        reason: 'task-complete',
        agentFacingMessage: `[ACTIONS]: <${seq} task actions filtered for brevity>`,
        userFacingMessage: null,
        range: { fromSeq: 1, toSeq: seq },
      } as Item
  }
}

const handedOut = (rendered: RenderedView) => {
  const out: ReturnType<typeof renderContext> = []
  handOutView(rendered, out)
  return out
}

describe('renderedView', () => {
  it('renders every view as renderContext does, reusing the last view when the next one extends it', () => {
    fc.assert(
      fc.property(
        fc.array(drawn, { maxLength: 30 }),
        fc.array(fc.nat({ max: 30 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.boolean(), { maxLength: 8 }),
        (entries, cuts, replaced) => {
          const items = entries.map((entry, index) => itemOf(entry, index + 1))
          let previous: RenderedView | undefined
          for (const [step, cut] of cuts.entries()) {
            // Views that grow (the usual call), shrink (a rewind) or swap an item for a copy (a compaction).
            const view = items.slice(0, Math.min(cut, items.length))
            if (replaced[step] === true && view.length > 0) view[view.length - 1] = { ...view.at(-1)! }
            const rendered = renderedView(view, previous, (message) => message.content.length)
            const expected = renderContext({ memoryItems: [], view })
            expect(handedOut(rendered)).toStrictEqual(expected)
            expect(rendered.tokens).toBe(expected.reduce((sum, message) => sum + message.content.length, 0))
            previous = rendered
          }
        },
      ),
      { numRuns: 400 },
    )
  })

  it('renders only what the view added when it extends the last one', () => {
    const items = [
      itemOf({ kind: 'user', text: 'a' }, 1),
      itemOf({ kind: 'calls', ids: [1], provider: false, inPlace: [] }, 2),
      itemOf({ kind: 'results', ids: [1] }, 3),
      itemOf({ kind: 'assistant', text: 'b' }, 4),
    ]
    const seen: unknown[] = []
    const keep = (message: unknown) => {
      seen.push(message)
      return 1
    }
    const first = renderedView(items.slice(0, 3), undefined, keep)
    expect(seen).toHaveLength(3)
    const second = renderedView(items, first, keep)
    // The answer only; the earlier messages are the same objects.
    expect(seen).toHaveLength(4)
    expect(second.messages.slice(0, 3)).toEqual(first.messages)
    expect(second.messages[0]).toBe(first.messages[0])
  })

  it('renders the view whole when what it added answers a call the last view left out', () => {
    const items = [
      itemOf({ kind: 'user', text: 'a' }, 1),
      itemOf({ kind: 'calls', ids: [1], provider: false, inPlace: [] }, 2),
      itemOf({ kind: 'results', ids: [1] }, 3),
    ]
    const first = renderedView(items.slice(0, 2), undefined, () => 1)
    // The call has no result yet: it is left out.
    expect(first.messages).toHaveLength(1)
    const second = renderedView(items, first, () => 1)
    expect(handedOut(second)).toStrictEqual(renderContext({ memoryItems: [], view: items }))
    expect(second.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool'])
  })

  it('hands out messages and lists the caller may change, and the parts as rendered', () => {
    const items = [itemOf({ kind: 'user', text: 'a' }, 1)]
    const rendered = renderedView(items, undefined, () => 1)
    const [message] = handedOut(rendered)
    message!.content.push({ type: 'text', text: 'mine' })
    message!.role = 'assistant'
    expect(handedOut(rendered)).toStrictEqual(renderContext({ memoryItems: [], view: items }))
    expect(handedOut(rendered)[0]!.content[0]).toBe(items[0]!.type === 'message' && items[0]!.content[0])
  })
})
