import { expectTypeOf } from 'vitest'
import type { MessageItem } from '../items'
import { type AppendFitOptions, createMemory } from '.'

// Checked by `tsc` (pnpm typecheck): a failing expectation is a compile error.

async function appendFitTypes() {
  const memory = createMemory({ compaction: { budget: { inputTokens: 8_000 } } })
  const thread = await memory.thread('t')
  const fit: AppendFitOptions = { system: 'You are an agent.', alongside: 'Tool definitions…' }
  const stored = await thread.appendUnseen([{ role: 'user', content: 'Hi' }], { fit })
  expectTypeOf(stored[0]!.role).toEqualTypeOf<MessageItem['role']>()
  await thread.append({ role: 'user', content: 'Hi' }, { fit: { alongside: 'Agent prompt' } })
  await thread.append([{ role: 'user', content: 'Hi' }], { format: 'ai-sdk', fit: {} })
  // @ts-expect-error: fit texts are strings
  await thread.append({ role: 'user', content: 'Hi' }, { fit: { system: 42 } })
}

export { appendFitTypes }
