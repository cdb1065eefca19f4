import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { MessageInput } from '../items'
import { inMemoryStore } from '../stores'
import { createMemory } from './create-memory'

type Step =
  | { kind: 'user' | 'assistant'; text: string }
  | { kind: 'calls'; tools: number; provider: boolean }
  | { kind: 'result'; pick: number }
  | { kind: 'enter' | 'exit' }
  | { kind: 'level'; pick: number }

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constantFrom('user' as const, 'assistant' as const),
      text: fc.string({ maxLength: 8 }),
    }),
    weight: 4,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('calls' as const),
      tools: fc.integer({ min: 1, max: 2 }),
      provider: fc.boolean(),
    }),
    weight: 2,
  },
  { arbitrary: fc.record({ kind: fc.constant('result' as const), pick: fc.nat() }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constantFrom('enter' as const, 'exit' as const) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('level' as const), pick: fc.nat({ max: 2 }) }), weight: 1 },
)

/**
 * `context()` renders only what a thread's view added since its last context (the rest reused): after
 * every write, what it gives must be what a memory that never built a context for the thread gives.
 */
describe('context() after each write', () => {
  it('is the context a fresh memory builds from the same store, whatever the writes and levels', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps) => {
        let tick = 0
        const store = inMemoryStore()
        const options = { store, clock: () => 1_700_000_000_000 + tick++, generateId: () => `id-${tick++}` }
        const memory = createMemory(options)
        const thread = await memory.thread('incremental')
        const pending: string[] = []
        let calls = 0
        let level: (typeof memory.ladder.levels)[number] | undefined
        for (const next of steps) {
          switch (next.kind) {
            case 'user':
            case 'assistant':
              await thread.append({ role: next.kind, content: next.text })
              break
            case 'calls': {
              const content = Array.from({ length: next.tools }, () => {
                const toolCallId = `call-${calls++}`
                if (!next.provider) pending.push(toolCallId)
                return {
                  type: 'tool-call' as const,
                  toolCallId,
                  toolName: 'tool',
                  input: { n: calls },
                  ...(next.provider ? { providerExecuted: true } : {}),
                }
              })
              await thread.append({ role: 'assistant', content })
              break
            }
            case 'result': {
              // Late results too: a result for a call the last context left out.
              if (pending.length === 0) break
              const [toolCallId] = pending.splice(next.pick % pending.length, 1)
              const message: MessageInput = {
                role: 'tool',
                content: [
                  { type: 'tool-result', toolCallId: toolCallId!, toolName: 'tool', output: { ok: true } },
                ],
              }
              await thread.append(message)
              break
            }
            case 'enter': {
              const narrower = memory.ladder.levels.slice(memory.ladder.rank(thread.level) + 1)
              if (narrower[0] !== undefined) await thread.enter(narrower[0], { title: `scope ${calls}` })
              break
            }
            case 'exit':
              if (thread.scopes.length > 0) await thread.exit({ outcome: 'complete' })
              break
            case 'level':
              level = memory.ladder.levels[next.pick]
              break
          }
          const asked = level === undefined ? {} : { level }
          const built = await thread.context(asked)
          const fresh = await (await createMemory(options).thread('incremental')).context(asked)
          expect(built.messages).toStrictEqual(fresh.messages)
          expect(built.stats).toStrictEqual(fresh.stats)
        }
      }),
      { numRuns: 150 },
    )
  })
})
