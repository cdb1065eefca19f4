import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { JsonValue, MessageInput, MessagePart, ToolResultPart } from '../items'
import { createMemory } from '../memory'
import { briefFooter, citationFooter } from './citation'
import { memoryTools } from './memory-tools'

/** One step of a random agent history. */
type Step =
  | { kind: 'user'; large: boolean }
  | { kind: 'calls'; count: number }
  | { kind: 'result'; pick: number; large: boolean; json: boolean }
  | { kind: 'answer' }
  | { kind: 'provider'; large: boolean; json: boolean; answered: boolean }

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('user' as const), large: fc.boolean() }),
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('calls' as const), count: fc.integer({ min: 1, max: 3 }) }),
  },
  fc.record({
    kind: fc.constant('result' as const),
    pick: fc.nat(),
    large: fc.boolean(),
    json: fc.boolean(),
  }),
  // Large results weigh more, so that many are answered and some are grouped out of the context.
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('result' as const),
      pick: fc.nat(),
      large: fc.constant(true),
      json: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('answer' as const) }) },
  // A call the provider runs, its result (when it came) in the same assistant message.
  fc.record({
    kind: fc.constant('provider' as const),
    large: fc.boolean(),
    json: fc.boolean(),
    answered: fc.boolean(),
  }),
)

const body = (label: string, large: boolean) => `${label} `.repeat(large ? 700 : 5)

/**
 * Whether a context keeps every tool call next to its results: each tool message follows an assistant
 * message, and the calls of that assistant message are exactly the results of the tool message.
 */
function assertPairs(messages: { role: string; content: MessagePart[] }[]) {
  messages.forEach((message, index) => {
    const calls = message.content
      .filter((part) => part.type === 'tool-call' && part.providerExecuted !== true)
      .map((part) => (part as { toolCallId: string }).toolCallId)
    // A result outside a tool message is a provider's, right after its call in the assistant message.
    if (message.role !== 'tool') {
      message.content.forEach((part, at) => {
        if (part.type !== 'tool-result') return
        const call = message.content[at - 1]
        expect(call).toMatchObject({ type: 'tool-call', toolCallId: part.toolCallId, providerExecuted: true })
      })
    }
    if (message.role === 'assistant' && calls.length > 0) {
      const next = messages[index + 1]
      expect(next?.role).toBe('tool')
      expect(next!.content.map((part) => (part as ToolResultPart).toolCallId)).toEqual(calls)
    }
    if (message.role === 'tool') {
      const previous = messages[index - 1]!
      expect(previous.role).toBe('assistant')
    }
  })
}

/** A context message as the property compares it: role, and each part's type and call id. */
const shapeOf = (message: { role: string; content: MessagePart[] }) => [
  message.role,
  message.content.map((part) => ('toolCallId' in part ? `${part.type}:${part.toolCallId}` : part.type)),
]

describe('tool-pair integrity with citations', () => {
  it('holds for random histories: each result whole until answered, then a citation or a line of the stored-results note', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 40, size: 'medium' }),
        fc.constantFrom<number | false>(0, 1, 2, 4, false),
        async (steps, maxCitations) => {
          const on = await createMemory({ content: { maxCitations } }).thread('pairs')
          const off = await createMemory({ content: false }).thread('pairs')
          const pending: string[] = []
          /** Results by call id: the output, and whether an assistant message came after it. */
          const results = new Map<
            string,
            { output: JsonValue; answered: boolean; large: boolean; order: number }
          >()
          let calls = 0
          for (const current of steps) {
            let message: MessageInput | undefined
            if (current.kind === 'user') message = { role: 'user', content: body('ask', current.large) }
            if (current.kind === 'answer' || current.kind === 'calls' || current.kind === 'provider') {
              for (const result of results.values()) result.answered = true
            }
            if (current.kind === 'answer') message = { role: 'assistant', content: 'ok' }
            if (current.kind === 'calls') {
              const ids = Array.from({ length: current.count }, () => `call${++calls}`)
              pending.push(...ids)
              message = {
                role: 'assistant',
                content: ids.map((toolCallId) => ({
                  type: 'tool-call',
                  toolCallId,
                  toolName: 'search',
                  input: { q: toolCallId },
                })),
              }
            }
            if (current.kind === 'result' && pending.length > 0) {
              const [toolCallId] = pending.splice(current.pick % pending.length, 1)
              const text = body(toolCallId!, current.large)
              const output: JsonValue = current.json ? { hits: [text], id: toolCallId! } : text
              results.set(toolCallId!, { output, answered: false, large: current.large, order: results.size })
              message = {
                role: 'tool',
                content: [{ type: 'tool-result', toolCallId: toolCallId!, toolName: 'search', output }],
              }
            }
            if (current.kind === 'provider') {
              const toolCallId = `call${++calls}`
              const text = body(toolCallId, current.large)
              const output: JsonValue = current.json ? { hits: [text], id: toolCallId } : text
              const content: MessagePart[] = [
                { type: 'text', text: 'Let me search.' },
                { type: 'tool-call', toolCallId, toolName: 'web_search', input: {}, providerExecuted: true },
              ]
              if (current.answered) {
                content.push({ type: 'tool-result', toolCallId, toolName: 'web_search', output })
                // The model wrote this message with the result in hand: it has answered it.
                results.set(toolCallId, { output, answered: true, large: current.large, order: results.size })
              }
              message = { role: 'assistant', content }
            }
            if (message === undefined) continue
            await on.append(structuredClone(message))
            await off.append(structuredClone(message))

            const withChannel = (await on.context()).messages
            const without = (await off.context()).messages
            assertPairs(withChannel)
            const dataOf = (output: JsonValue) =>
              typeof output === 'string' ? output : JSON.stringify(output)

            // The results grouped out of the context: each listed by its memory id in the one note.
            const notes = withChannel.filter(
              (m) =>
                m.role === 'user' &&
                m.content.some((part) => part.type === 'text' && part.text.startsWith('[STORED RESULTS]')),
            )
            expect(notes.length).toBeLessThanOrEqual(1)
            const grouped = new Set<string>()
            const noteText = notes.length === 0 ? '' : (notes[0]!.content[0] as { text: string }).text
            for (const [, id] of noteText.matchAll(/ — (mem_[\w-]+)$/gm)) {
              const record = await on.content.get(id!)
              const toolCallId = String(record?.meta?.toolCallId)
              const known = results.get(toolCallId)!
              expect(known.large && known.answered).toBe(true)
              expect(record!.data).toBe(dataOf(known.output))
              grouped.add(toolCallId)
            }

            // Without the note and the grouped pairs, the same messages and parts as without the channel.
            const expected = without
              .map((m) => ({
                role: m.role,
                content: m.content.filter((part) => !('toolCallId' in part) || !grouped.has(part.toolCallId)),
              }))
              .filter((m) => m.content.length > 0)
            expect(withChannel.filter((m) => !notes.includes(m)).map(shapeOf)).toEqual(expected.map(shapeOf))

            let ownCitations = 0
            let newestGrouped = -1
            for (const message_ of withChannel) {
              for (const part of message_.content) {
                if (part.type !== 'tool-result') continue
                const known = results.get(part.toolCallId)!
                if (!known.large || !known.answered) {
                  expect(part.output).toEqual(known.output)
                  continue
                }
                ownCitations++
                newestGrouped = Math.max(newestGrouped, ...[...grouped].map((id) => results.get(id)!.order))
                expect(newestGrouped).toBeLessThan(known.order)
                const citation = part.output as string
                const id = /Memory id: (mem_[\w-]+)/.exec(citation)![1]!
                // The full citation, or its brief form once the result is a few turns old.
                expect(citation.endsWith(citationFooter(id)) || citation.endsWith(briefFooter(id))).toBe(true)
                const back = await memoryTools(on).memory_retrieve.execute({ id })
                expect(back).toMatchObject({ where: 'content', content: dataOf(known.output) })
              }
            }
            // Only the oldest answered results beyond maxCitations are grouped (older than every citation
            // still shown, checked above), never more.
            const limit = maxCitations === false ? Number.POSITIVE_INFINITY : maxCitations
            expect(ownCitations).toBe(Math.min(limit, ownCitations + grouped.size))
          }
        },
      ),
      { numRuns: 80 },
    )
  })
})
