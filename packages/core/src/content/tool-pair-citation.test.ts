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

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('user' as const), large: fc.boolean() }),
  fc.record({ kind: fc.constant('calls' as const), count: fc.integer({ min: 1, max: 3 }) }),
  fc.record({
    kind: fc.constant('result' as const),
    pick: fc.nat(),
    large: fc.boolean(),
    json: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('result' as const),
    pick: fc.nat(),
    large: fc.constant(true),
    json: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('answer' as const) }),
)

const body = (label: string, large: boolean) => `${label} `.repeat(large ? 700 : 5)

/**
 * Whether a context keeps every tool call next to its results: each tool message follows an assistant
 * message, and the calls of that assistant message are exactly the results of the tool message.
 */
function assertPairs(messages: { role: string; content: MessagePart[] }[]) {
  messages.forEach((message, index) => {
    const calls = message.content.filter((part) => part.type === 'tool-call').map((part) => part.toolCallId)
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

describe('tool-pair integrity with citations', () => {
  it('holds for random histories, and each result is whole until answered and a citation afterwards', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 30 }), async (steps) => {
        const on = await createMemory().thread('pairs')
        const off = await createMemory({ content: false }).thread('pairs')
        const pending: string[] = []
        /** Results by call id: the output, and whether an assistant message came after it. */
        const results = new Map<string, { output: JsonValue; answered: boolean; large: boolean }>()
        let calls = 0
        for (const current of steps) {
          let message: MessageInput | undefined
          if (current.kind === 'user') message = { role: 'user', content: body('ask', current.large) }
          if (current.kind === 'answer' || current.kind === 'calls') {
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
            results.set(toolCallId!, { output, answered: false, large: current.large })
            message = {
              role: 'tool',
              content: [{ type: 'tool-result', toolCallId: toolCallId!, toolName: 'search', output }],
            }
          }
          if (message === undefined) continue
          await on.append(structuredClone(message))
          await off.append(structuredClone(message))

          const withChannel = (await on.context()).messages
          const without = (await off.context()).messages
          assertPairs(withChannel)
          // The same messages and parts as without the channel; only large outputs may differ.
          expect(withChannel.map((m) => [m.role, m.content.map((part) => part.type)])).toEqual(
            without.map((m) => [m.role, m.content.map((part) => part.type)]),
          )
          for (const [index, message_] of withChannel.entries()) {
            for (const [partIndex, part] of message_.content.entries()) {
              if (part.type !== 'tool-result') continue
              const original = without[index]!.content[partIndex] as ToolResultPart
              expect(part.toolCallId).toBe(original.toolCallId)
              const known = results.get(part.toolCallId)!
              if (!known.large || !known.answered) {
                expect(part.output).toEqual(known.output)
                continue
              }
              const citation = part.output as string
              const id = /Memory id: (mem_[\w-]+)/.exec(citation)![1]!
              // The full citation, or its brief form once the result is a few turns old.
              expect(citation.endsWith(citationFooter(id)) || citation.endsWith(briefFooter(id))).toBe(true)
              const back = await memoryTools(on).memory_retrieve.execute({ id })
              const data = typeof known.output === 'string' ? known.output : JSON.stringify(known.output)
              expect(back).toMatchObject({ where: 'content', content: data })
            }
          }
        }
      }),
      { numRuns: 60 },
    )
  })
})
