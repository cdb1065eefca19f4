import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { StrataError } from '../errors'
import type { CompactionEndEvent } from '../events'
import { createMemory } from './create-memory'

const turn = (index: number, words: number) => [
  { role: 'user' as const, content: `question ${index}: ${'tomato '.repeat(words)}` },
  { role: 'assistant' as const, content: `answer ${index}: ${'basil '.repeat(words)}` },
]

describe("a thread's own budget (memory.thread(id, { budget }))", () => {
  it('fits every context to it and compacts the thread under it, with no budget on the memory', async () => {
    const memory = createMemory()
    const ends: CompactionEndEvent[] = []
    memory.on('compaction-end', (event) => ends.push(event))
    const thread = await memory.thread('own-budget', { budget: { inputTokens: 600 } })
    for (let index = 0; index < 30; index++) {
      await thread.append(turn(index, 30))
      const { stats } = await thread.context({ system: 'You help with the garden.' })
      expect(stats.inputBudget).toBe(600)
      expect(stats.contextTokens).toBeLessThanOrEqual(600)
      await thread.reportUsage({ inputTokens: stats.contextTokens })
      await thread.settled()
    }
    const budgetRuns = ends.filter((event) => event.trigger === 'budget' && event.itemsArchived > 0)
    expect(budgetRuns.length).toBeGreaterThan(0)
    // Compacted turns are archived, never lost: the summaries stand for them in the context.
    expect((await thread.items()).some((item) => item.type === 'summary')).toBe(true)
  })

  it('narrows the memory budget, never widens it, and goes back to it with "memory"', async () => {
    const memory = createMemory({ compaction: { budget: { inputTokens: 2_000 } } })
    const thread = await memory.thread('narrowed', { budget: { inputTokens: 5_000 } })
    await thread.append(turn(0, 5))
    expect((await thread.context()).stats.inputBudget).toBe(2_000)
    await memory.thread('narrowed', { budget: { inputTokens: 700 } })
    expect((await thread.context()).stats.inputBudget).toBe(700)
    // Opening without a budget leaves the thread's as it is.
    await memory.thread('narrowed')
    expect((await thread.context()).stats.inputBudget).toBe(700)
    await memory.thread('narrowed', { budget: 'memory' })
    expect((await thread.context()).stats.inputBudget).toBe(2_000)
    // Another thread of the memory keeps the memory's budget.
    const other = await memory.thread('other')
    await other.append(turn(0, 5))
    expect((await other.context()).stats.inputBudget).toBe(2_000)
  })

  it('"memory" on a memory without a budget leaves the thread unbudgeted', async () => {
    const memory = createMemory()
    const thread = await memory.thread('back', { budget: { inputTokens: 900 } })
    await thread.append(turn(0, 5))
    expect((await thread.context()).stats.inputBudget).toBe(900)
    await memory.thread('back', { budget: 'memory' })
    expect((await thread.context()).stats.inputBudget).toBeUndefined()
  })

  it('refuses a request that cannot fit it, storing nothing', async () => {
    const memory = createMemory()
    const thread = await memory.thread('too-small', { budget: { inputTokens: 50 } })
    await expect(
      thread.appendUnseen([{ role: 'user', content: 'lettuce '.repeat(200) }], { fit: {} }),
    ).rejects.toSatisfy((error) => StrataError.isInstance(error, 'STRATA_BUDGET_EXCEEDED'))
    expect(await thread.items()).toEqual([])
  })

  it.each([
    [{ inputTokens: 0 }],
    [{ inputTokens: 1.5 }],
    [{ inputTokens: '800' }],
    [{ inputTokens: 800, compactionRatio: 0.5 }],
    [800],
    ['model'],
    [null],
  ])('refuses budget %j with STRATA_INVALID_OPTIONS and keeps the budget it had', async (budget) => {
    const memory = createMemory()
    const thread = await memory.thread('checked', { budget: { inputTokens: 900 } })
    await thread.append(turn(0, 5))
    await expect(memory.thread('checked', { budget: budget as never })).rejects.toSatisfy((error) =>
      StrataError.isInstance(error, 'STRATA_INVALID_OPTIONS'),
    )
    expect((await thread.context()).stats.inputBudget).toBe(900)
    expect(await thread.items()).toHaveLength(2)
  })

  it('no context is over the smaller of the two budgets, whatever they and the thread are', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.option(fc.integer({ min: 300, max: 3_000 }), { nil: undefined }),
        fc.integer({ min: 300, max: 3_000 }),
        fc.array(fc.integer({ min: 1, max: 60 }), { minLength: 1, maxLength: 25 }),
        async (memoryBudget, threadBudget, sizes) => {
          const memory = createMemory(
            memoryBudget === undefined ? {} : { compaction: { budget: { inputTokens: memoryBudget } } },
          )
          const thread = await memory.thread('property', { budget: { inputTokens: threadBudget } })
          const limit = Math.min(threadBudget, memoryBudget ?? Number.POSITIVE_INFINITY)
          for (const [index, size] of sizes.entries()) {
            await thread.append(turn(index, size))
            const { stats } = await thread.context()
            expect(stats.inputBudget).toBe(limit)
            expect(stats.contextTokens).toBeLessThanOrEqual(limit)
          }
          await memory.close()
        },
      ),
      { numRuns: 40 },
    )
  })
})
