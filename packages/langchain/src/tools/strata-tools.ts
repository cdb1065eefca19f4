import type { StructuredToolInterface } from '@langchain/core/tools'
import { tool } from '@langchain/core/tools'
import {
  type EnterScopeInput,
  type ExitScopeInput,
  invalidOptions,
  type Memory,
  memoryTools,
  openAppThread,
  scopeTools,
} from '@strata-memory/core'
import { definitions, memoryToolSchemas } from './memory-tool-schemas'

/** Options of {@link strataTools}. */
export interface StrataToolsOptions {
  /**
   * The thread whose memory the tools read and write.
   * @default the run's `configurable.thread_id`, read each time a tool runs
   */
  threadId?: string
  /**
   * Adds core's scope tools, `enter_scope` and `exit_scope`: the model opens a narrower scope for a
   * piece of work and closes it with a summary that takes its place.
   * @default false
   */
  scopes?: boolean
}

/** What a tool's run config holds that the tools read. */
interface RunConfigLike {
  configurable?: { thread_id?: unknown }
}

/**
 * The memory tools (`memory_store`, `memory_retrieve`, `memory_query`, and with `scopes: true`
 * `enter_scope` and `exit_scope`) as LangChain tools for `createAgent({ tools })`. They are built once;
 * without `threadId` each run reads the thread from `configurable.thread_id`, so one set serves every
 * thread. A bad input or an unknown id comes back to the model as `{ error: { code, message } }`; a run
 * with no thread id is `STRATA_INVALID_OPTIONS`.
 *
 * @example
 * const agent = createAgent({ model, tools: [...myTools, ...strataTools(memory)], middleware: [strataMiddleware({ memory })] })
 */
export function strataTools(memory: Memory, options: StrataToolsOptions = {}): StructuredToolInterface[] {
  if (typeof memory?.thread !== 'function') {
    invalidOptions('strataTools(memory) needs the memory from createMemory() first.')
  }
  const { threadId, scopes = false } = options ?? {}
  if (threadId !== undefined && (typeof threadId !== 'string' || threadId.length === 0))
    invalidOptions('strataTools(): threadId must be a non-empty string.')
  if (typeof scopes !== 'boolean') {
    invalidOptions(`strataTools(): scopes must be true or false (got ${JSON.stringify(scopes)}).`)
  }
  const threadOf = (config: RunConfigLike | undefined) => {
    const id = threadId ?? config?.configurable?.thread_id
    if (typeof id !== 'string') {
      invalidOptions(
        "The memory tools ran without a thread id: invoke the agent with { configurable: { thread_id: 'user-42.chat-7' } }, or pass strataTools(memory, { threadId }).",
      )
    }
    return openAppThread(memory, id)
  }
  const run =
    <I>(execute: (thread: Awaited<ReturnType<typeof threadOf>>, input: I) => Promise<unknown>) =>
    async (input: I, config?: RunConfigLike) =>
      execute(await threadOf(config), input)

  const tools: StructuredToolInterface[] = [
    tool(
      run((thread, input) => memoryTools(thread).memory_store.execute(input as never)),
      {
        name: 'memory_store',
        description: definitions.memory_store.description,
        schema: memoryToolSchemas.memory_store,
      },
    ),
    tool(
      run((thread, input) => memoryTools(thread).memory_retrieve.execute(input as never)),
      {
        name: 'memory_retrieve',
        description: definitions.memory_retrieve.description,
        schema: memoryToolSchemas.memory_retrieve,
      },
    ),
    tool(
      run((thread, input) => memoryTools(thread).memory_query.execute(input as never)),
      {
        name: 'memory_query',
        description: definitions.memory_query.description,
        schema: memoryToolSchemas.memory_query,
      },
    ),
  ]
  if (!scopes) return tools
  const levels = memory.ladder.levels
  // The definitions read the thread only when a tool runs, so these are safe to read, never to execute.
  const scopeDefinitions = scopeTools({} as Parameters<typeof scopeTools>[0], { levels })
  tools.push(
    tool(
      run((thread, input: EnterScopeInput) => scopeTools(thread, { levels }).enter_scope.execute(input)),
      {
        name: 'enter_scope',
        description: scopeDefinitions.enter_scope.description,
        schema: scopeDefinitions.enter_scope.inputSchema as never,
      },
    ),
    tool(
      run((thread, input: ExitScopeInput) => scopeTools(thread, { levels }).exit_scope.execute(input)),
      {
        name: 'exit_scope',
        description: scopeDefinitions.exit_scope.description,
        schema: scopeDefinitions.exit_scope.inputSchema as never,
      },
    ),
  )
  return tools
}
