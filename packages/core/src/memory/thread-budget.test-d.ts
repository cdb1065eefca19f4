import { expectTypeOf } from 'vitest'
import type { ThreadOptions } from '../content'
import { createMemory } from '.'

// Checked by `tsc` (pnpm typecheck): a failing expectation is a compile error.

async function threadBudgetTypes() {
  const memory = createMemory()
  await memory.thread('t', { budget: { inputTokens: 4_000 } })
  await memory.thread('t', { budget: 'memory' })
  expectTypeOf<ThreadOptions['budget']>().toEqualTypeOf<{ inputTokens: number } | 'memory' | undefined>()
  // @ts-expect-error: the budget is { inputTokens }, not a number
  await memory.thread('t', { budget: 4_000 })
  // @ts-expect-error: only inputTokens; the memory's compaction.budget holds the other options
  await memory.thread('t', { budget: { inputTokens: 4_000, compactionRatio: 0.5 } })
}

export { threadBudgetTypes }
