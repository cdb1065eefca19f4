import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { MessageInput } from '../items'
import { inMemoryStore, type StrataStore } from '../stores'
import { makePage } from '../testing'
import { type TokenCounter, tokenEstimator } from '../tokens'
import { createMemory } from './create-memory'

type Step =
  | { kind: 'tools'; sizes: number[] }
  | { kind: 'text'; role: 'user' | 'assistant'; size: number }
  | { kind: 'enter' }
  | { kind: 'exit' }

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 3,
    // Results over the content channel's 4 KB are offloaded: the log holds citations.
    arbitrary: fc.record({
      kind: fc.constant('tools' as const),
      sizes: fc.array(fc.integer({ min: 50, max: 12_000 }), { minLength: 1, maxLength: 3 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('text' as const),
      role: fc.constantFrom('user' as const, 'assistant' as const),
      size: fc.integer({ min: 1, max: 4_000 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('enter' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('exit' as const) }) },
)

async function writeThread(store: StrataStore, steps: readonly Step[]) {
  let tick = 0
  const memory = createMemory({ store, clock: () => 1_700_000_000_000 + tick++ })
  const thread = await memory.thread('t')
  await thread.append({ role: 'user', content: 'Research the vendors and write a report, please.' })
  let calls = 0
  for (const entry of steps) {
    if (entry.kind === 'tools') {
      const ids = entry.sizes.map(() => `call-${calls++}`)
      const results: MessageInput[] = entry.sizes.map((size, index) => ({
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: ids[index]!,
            toolName: 'fetch_page',
            output: makePage(size, `r${ids[index]}`),
          },
        ],
      }))
      await thread.append([
        {
          role: 'assistant',
          content: ids.map((toolCallId) => ({
            type: 'tool-call' as const,
            toolCallId,
            toolName: 'fetch_page',
            input: { url: `https://example.com/${toolCallId}` },
          })),
        },
        ...results,
      ])
    } else if (entry.kind === 'text') {
      await thread.append({ role: entry.role, content: makePage(entry.size, `t${tick}`) })
    } else if (entry.kind === 'enter') {
      if (thread.level !== 'task')
        await thread.enter(thread.level === 'global' ? 'project' : 'task', { title: `Scope ${tick}` })
    } else if (thread.level !== 'global') await thread.exit({ summary: `Closed at ${tick}.` })
  }
}

/**
 * Two contexts of a freshly opened thread (the first is a cold open's), at each level. Without the
 * content channel a context shows the log's citation parts as they are stored.
 */
async function contexts(
  store: StrataStore,
  tokenCounter: TokenCounter,
  budget: number | undefined,
  content: boolean,
) {
  const options = {
    store,
    tokenCounter,
    ...(budget === undefined ? {} : { compaction: { budget: { inputTokens: budget } } }),
  }
  const memory = content ? createMemory(options) : createMemory({ ...options, content: false })
  const thread = await memory.thread('t')
  const out = []
  for (const level of [undefined, 'global'] as const) {
    for (let call = 0; call < 2; call++) {
      try {
        out.push(await thread.context({ system: 'You are an agent.', ...(level ? { level } : {}) }))
      } catch (error) {
        out.push({ error: (error as Error).message })
      }
    }
  }
  return out
}

describe('stored part counts in a context', () => {
  it('give the same context and stats as counting every part again, cut, cited and left out alike', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 12 }),
        fc.option(fc.integer({ min: 600, max: 24_000 }), { nil: undefined }),
        fc.boolean(),
        async (steps, budget, content) => {
          const store = inMemoryStore()
          await writeThread(store, steps)
          const estimator = tokenEstimator()
          // The same counts under another identity: the stored counts are not used, every part is counted.
          const recounting: TokenCounter = {
            name: estimator.name,
            version: 'recount',
            count: estimator.count,
          }
          const withStored = await contexts(store, estimator, budget, content)
          const counted = await contexts(store, recounting, budget, content)
          expect(withStored).toEqual(counted)
        },
      ),
      { numRuns: 40 },
    )
  }, 120_000)
})
