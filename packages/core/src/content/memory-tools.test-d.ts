import { expectTypeOf } from 'vitest'
import { createMemory } from '../memory'
import type {
  MemoryQueryOutput,
  MemoryRetrieveOutput,
  MemoryStoreOutput,
  MemoryToolError,
  MemoryToolName,
  MemoryTools,
} from './memory-tool-types'
import { memoryTools } from './memory-tools'
import type { ContentSnapshot, ThreadContent } from './thread-content'

// Checked by `tsc` (pnpm typecheck): the contract adapters code against.

async function contract() {
  const memory = createMemory({
    content: { offloadAboveBytes: 1024, tools: { fetch: { offload: 'always' } } },
  })
  const thread = await memory.thread('t', { content: { parent: 'p', access: 'read-only' } })
  expectTypeOf(thread.content).toEqualTypeOf<ThreadContent>()
  const tools = memoryTools(thread)
  expectTypeOf(tools).toEqualTypeOf<MemoryTools>()
  expectTypeOf(tools.memory_query.name).toEqualTypeOf<MemoryToolName>()
  expectTypeOf(tools.memory_store.execute).parameter(0).toEqualTypeOf<unknown>()
  expectTypeOf(await tools.memory_store.execute({})).toEqualTypeOf<MemoryStoreOutput | MemoryToolError>()
  expectTypeOf(await tools.memory_retrieve.execute({})).toEqualTypeOf<
    MemoryRetrieveOutput | MemoryToolError
  >()
  expectTypeOf(await tools.memory_query.execute({})).toEqualTypeOf<MemoryQueryOutput | MemoryToolError>()
  expectTypeOf(await thread.content.export()).toEqualTypeOf<ContentSnapshot>()
  // @ts-expect-error: access is 'shared' or 'read-only'
  await memory.thread('t', { content: { parent: 'p', access: 'write' } })
  // @ts-expect-error: a parent is required
  await memory.thread('t', { content: { access: 'shared' } })
  // @ts-expect-error: offload is 'always', 'never' or 'size'
  createMemory({ content: { tools: { fetch: { offload: true } } } })
  createMemory({ content: { maxCitations: 12, briefAfterTurns: false } })
  createMemory({ content: { maxCitations: false } })
  // @ts-expect-error: maxCitations is a number or false
  createMemory({ content: { maxCitations: 'all' } })
  createMemory({ content: false })
}

void contract
