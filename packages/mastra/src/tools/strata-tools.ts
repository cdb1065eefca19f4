import { createTool, type ToolAction } from '@mastra/core/tools'
import type { Memory, MemoryToolError, Thread } from '@strata-memory/core'
import { MEMORY_TOOL_NAMES, memoryToolDefinitions } from '@strata-memory/core/adapter-kit'
import { memoryTools, scopeTools } from '@strata-memory/core/tools'

/** The names of the tools `StrataMemory` gives an agent. */
export type StrataToolName =
  | 'memory_store'
  | 'memory_retrieve'
  | 'memory_query'
  | 'enter_scope'
  | 'exit_scope'

/** Where a tool finds its thread: the agent's thread and resource, from the tool's execution context. */
export type ThreadResolver = (ids: { threadId?: string; resourceId?: string }) => Promise<Thread | undefined>

/** What a tool answers when it runs outside a thread: the model reads it, as it reads any tool error. */
const NO_THREAD: MemoryToolError = {
  error: {
    code: 'STRATA_INVALID_OPTIONS',
    message:
      'This tool needs a thread: call the agent with memory: { thread, resource } so the memory tools know whose memory to read.',
  },
}

interface CoreTool {
  description: string
  inputSchema: object
  execute(input: never): Promise<unknown>
}

/** A Mastra tool, as `listTools` returns it. */
// biome-ignore lint/suspicious/noExplicitAny: Mastra's own tool record type
export type MastraTool = ToolAction<any, any, any, any, any>

const wrap = (
  name: StrataToolName,
  definition: Pick<CoreTool, 'description' | 'inputSchema'>,
  run: (thread: Thread) => CoreTool,
  resolve: ThreadResolver,
): MastraTool =>
  createTool({
    id: name,
    description: definition.description,
    inputSchema: definition.inputSchema as never,
    execute: async (input: unknown, context) => {
      const thread = await resolve({
        ...(context?.agent?.threadId === undefined ? {} : { threadId: context.agent.threadId }),
        ...(context?.agent?.resourceId === undefined ? {} : { resourceId: context.agent.resourceId }),
      })
      if (thread === undefined) return NO_THREAD
      return run(thread).execute(input as never)
    },
  }) as unknown as MastraTool

/**
 * Core's memory tools (`memory_store`, `memory_retrieve`, `memory_query`) as Mastra tools
 * (`createTool`), with core's descriptions and JSON Schemas; with `scopes`, also `enter_scope` and
 * `exit_scope`. Each runs on the thread of the agent call that invoked it (`context.agent.threadId`),
 * so one set serves every thread. A bad input, an unknown id or a refused call comes back to the
 * model as `{ error: { code, message } }`.
 */
export function strataTools(
  memory: Memory,
  resolve: ThreadResolver,
  { scopes = false }: { scopes?: boolean } = {},
): Record<string, MastraTool> {
  // Core's definitions, read without a thread: the adapter kit's one source of the tools' schemas.
  const definitions = memoryToolDefinitions()
  const tools: Record<string, MastraTool> = {}
  for (const name of MEMORY_TOOL_NAMES) {
    tools[name] = wrap(
      name,
      definitions[name],
      (thread) => memoryTools(thread)[name] as unknown as CoreTool,
      resolve,
    )
  }
  if (!scopes) return tools
  const levels = memory.ladder.levels
  const scopeDefinitions = scopeTools({} as Parameters<typeof scopeTools>[0], { levels })
  for (const name of ['enter_scope', 'exit_scope'] as const) {
    tools[name] = wrap(
      name,
      scopeDefinitions[name] as unknown as CoreTool,
      (thread) => scopeTools(thread, { levels })[name] as unknown as CoreTool,
      resolve,
    )
  }
  return tools
}

/** The tools that write to the thread: `memory_store` (a note) and the scope tools (a scope opened or closed). */
const WRITING_TOOLS: ReadonlySet<string> = new Set(['memory_store', 'enter_scope', 'exit_scope'])

/**
 * What a read-only call (Mastra's `readOnly`, the memory's or the call's) is offered of `tools`: those
 * that only read (`memory_retrieve`, `memory_query`). A read-only call stores nothing, a note included.
 */
export function readingTools(tools: Record<string, MastraTool>): Record<string, MastraTool> {
  const reading: Record<string, MastraTool> = {}
  for (const [name, tool] of Object.entries(tools)) if (!WRITING_TOOLS.has(name)) reading[name] = tool
  return reading
}
