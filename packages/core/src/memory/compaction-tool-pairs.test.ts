import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ContextMessage } from '../context'
import type { Item, MessageInput } from '../items'
import type { SummarizeOptions, Summarizer } from '../summarizers'
import { createMemory } from './create-memory'

type Step =
  | { kind: 'user' }
  | { kind: 'text' }
  | { kind: 'calls'; count: number }
  | { kind: 'result'; pick: number }
  | { kind: 'compact' }

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'user' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'text' as const }) },
  {
    weight: 3,
    arbitrary: fc.integer({ min: 1, max: 3 }).map((count) => ({ kind: 'calls' as const, count })),
  },
  { weight: 4, arbitrary: fc.nat().map((pick) => ({ kind: 'result' as const, pick })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'compact' as const }) },
)

const summarizer: Summarizer = {
  name: 'scripted',
  async summarize(items: readonly Item[], options: SummarizeOptions) {
    return {
      summary: `${options.tier} of ${items[0]?.seq}-${items.at(-1)?.seq}`,
      facts: options.tier === 'episodic' ? [{ text: `fact ${items[0]?.seq}` }] : [],
    }
  },
}

const callIds = (message: ContextMessage) =>
  message.content.flatMap((part) => (part.type === 'tool-call' ? [part.toolCallId] : []))
const resultIds = (message: ContextMessage) =>
  message.content.flatMap((part) => (part.type === 'tool-result' ? [part.toolCallId] : []))

/** Invariant 1 in both directions: every call is followed by exactly its results, every result follows its call. */
function assertWholePairs(messages: readonly ContextMessage[]) {
  const seen = new Set<string>()
  messages.forEach((message, index) => {
    for (const id of [...callIds(message), ...resultIds(message)]) {
      if (message.role === 'assistant') {
        expect(seen.has(id), `call ${id} shown twice`).toBe(false)
        seen.add(id)
      }
    }
    if (message.role === 'assistant' && callIds(message).length > 0) {
      const next = messages[index + 1]
      expect(next?.role, `call(s) ${callIds(message)} without their results`).toBe('tool')
      expect(resultIds(next!)).toEqual(callIds(message))
    }
    if (message.role === 'tool') {
      const previous = messages[index - 1]
      expect(previous?.role, `result(s) ${resultIds(message)} without their call`).toBe('assistant')
      expect(callIds(previous!)).toEqual(resultIds(message))
    }
  })
}

describe('compaction keeps tool calls and results together (property, both directions)', () => {
  it('no call without its results and no result without its call, for random histories under waterfall and budget compaction', async () => {
    let archivedInAll = 0
    let summariesInAll = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 80, size: 'medium' }),
        // Tiny chunks make every longer compaction a series of committed steps.
        fc.constantFrom(4_096, 2, 5),
        async (steps, chunkItems) => {
          const memory = createMemory({
            summarizer,
            compaction: {
              waterfall: { window: 5, every: 3 },
              // Small enough that the thread's own estimate asks for compaction, with no usage reported.
              budget: { inputTokens: 150, rawTailTurns: 1, chunkItems },
            },
          })
          const thread = await memory.thread('pairs')
          const pending: string[] = []
          const appended: MessageInput[] = []
          let calls = 0
          let users = 0
          let lastUser: string | undefined
          for (const current of steps) {
            let message: MessageInput | undefined
            if (current.kind === 'user') {
              lastUser = `user ${++users}`
              message = { role: 'user', content: lastUser }
            } else if (current.kind === 'text') {
              message = { role: 'assistant', content: 'thinking' }
            } else if (current.kind === 'calls') {
              const ids = Array.from({ length: current.count }, () => `c${++calls}`)
              pending.push(...ids)
              message = {
                role: 'assistant',
                content: ids.map((toolCallId) => ({
                  type: 'tool-call',
                  toolCallId,
                  toolName: 't',
                  input: {},
                })),
              }
            } else if (current.kind === 'result' && pending.length > 0) {
              const [toolCallId] = pending.splice(current.pick % pending.length, 1)
              message = {
                role: 'tool',
                content: [{ type: 'tool-result', toolCallId: toolCallId!, toolName: 't', output: 'ok' }],
              }
            } else if (current.kind === 'compact') {
              await thread.compact({ force: true })
            }
            if (message !== undefined) {
              appended.push(message)
              await thread.append(message)
            }
            await thread.compact()
            const { messages, stats } = await thread.context()
            expect(stats.contextTokens).toBeLessThanOrEqual(150)
            assertWholePairs(messages)
            // The current turn is never summarized away: its user message is in every context.
            if (lastUser !== undefined) {
              expect(
                messages.some(
                  (m) => m.role === 'user' && (m.content[0] as { text?: string }).text === lastUser,
                ),
              ).toBe(true)
            }
          }
          // Nothing is lost: every appended message is active or archived, once, in append order.
          const archived = await memory.store.readArchive('pairs')
          const active = await memory.store.read('pairs')
          const messages = [...archived, ...active]
            .filter((item) => item.type === 'message')
            .sort((a, b) => a.seq - b.seq)
          expect(messages).toHaveLength(appended.length)
          expect(new Set(messages.map((item) => item.id)).size).toBe(appended.length)
          messages.forEach((item, index) => {
            expect(item.type === 'message' && item.role).toBe(appended[index]!.role)
          })
          archivedInAll += archived.length
          summariesInAll += active.filter((item) => item.type === 'summary').length
        },
      ),
      { numRuns: 100 },
    )
    // The histories did get compacted by both policies.
    expect(archivedInAll).toBeGreaterThan(100)
    expect(summariesInAll).toBeGreaterThan(50)
  })
})
