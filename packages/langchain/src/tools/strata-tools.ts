import type { StructuredToolInterface } from '@langchain/core/tools'
import { tool } from '@langchain/core/tools'
import {
  type EnterScopeInput,
  type ExitScopeInput,
  invalidOptions,
  type Memory,
  type MemoryUpdateWorkingInput,
} from '@strata-memory/core'
import {
  checkMemoryArgument,
  checkOptionKeys,
  checkResourceOption,
  memoryToolDefinitions,
  type OptionKeys,
  workingToolDefinition,
} from '@strata-memory/core/adapter-kit'
import { memoryTools, scopeTools } from '@strata-memory/core/tools'
import { type ConfigurableLike, openResourceThread, resourceIdOf } from '../threads/resource-thread'
import { memoryToolSchemas } from './memory-tool-schemas'

/** Core's tool definitions (names, descriptions, JSON Schemas), read without a thread. */
const definitions = memoryToolDefinitions()

/** What the `memory_update_working` description reads of a resource (core's resource has it). */
interface WorkingGuide {
  workingGuide(): string
}

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
  /**
   * The resource (a user, a team, an account) the thread belongs to: the thread is bound to it on its
   * first open (core's `memory.thread(id, { resource })`); another resource on a bound thread is
   * core's `STRATA_INVALID_OPTIONS`, thrown by the tool call. Needs a store with `flags.resources`.
   * @default the run's `configurable.resource_id`, read each time a tool runs, else none
   */
  resource?: string
  /**
   * Adds `memory_update_working({ content, version })`: the model rewrites the resource's working
   * memory. It acts on the thread's resource (`resource`, `configurable.resource_id` or the binding the
   * store holds); on a thread without one it returns `{ error: { code: 'STRATA_INVALID_OPTIONS' } }`.
   * @default true with `resource`, else false
   */
  workingMemory?: boolean
}

/** What a tool's run config holds that the tools read. */
interface RunConfigLike {
  configurable?: ConfigurableLike
}

/** The keys of {@link StrataToolsOptions}: any other is refused (`scope` for `scopes`, say). */
const TOOLS_OPTION_KEYS = {
  threadId: true,
  scopes: true,
  resource: true,
  workingMemory: true,
} as const satisfies OptionKeys<StrataToolsOptions>

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
  checkMemoryArgument('strataTools(memory)', memory)
  checkOptionKeys('strataTools(memory, options)', options, TOOLS_OPTION_KEYS)
  const { threadId, scopes = false, resource, workingMemory = resource !== undefined } = options ?? {}
  if (threadId !== undefined && (typeof threadId !== 'string' || threadId.length === 0))
    invalidOptions('strataTools(): threadId must be a non-empty string.')
  if (typeof scopes !== 'boolean') {
    invalidOptions(`strataTools(): scopes must be true or false (got ${JSON.stringify(scopes)}).`)
  }
  checkResourceOption('strataTools()', resource)
  if (typeof workingMemory !== 'boolean') {
    invalidOptions(
      `strataTools(): workingMemory must be true or false (got ${JSON.stringify(workingMemory)}).`,
    )
  }
  const threadOf = (config: RunConfigLike | undefined) => {
    const id = threadId ?? config?.configurable?.thread_id
    if (typeof id !== 'string') {
      invalidOptions(
        "The memory tools ran without a thread id: invoke the agent with { configurable: { thread_id: 'user-42.chat-7' } }, or pass strataTools(memory, { threadId }).",
      )
    }
    return openResourceThread(memory, id as string, resourceIdOf(resource, config?.configurable))
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
  if (workingMemory) {
    // The guide (size, template, schema) is the memory's, the same for every resource.
    const guide = memory.resource(resource ?? 'working-memory-guide') as unknown as WorkingGuide
    tools.push(
      tool(
        run(async (thread, input: MemoryUpdateWorkingInput) => {
          const update = memoryTools(thread).memory_update_working
          if (update !== undefined) return update.execute(input)
          return {
            error: {
              code: 'STRATA_INVALID_OPTIONS',
              message:
                "memory_update_working: this conversation belongs to no resource (user): invoke the agent with { configurable: { resource_id: 'user-42' } } or pass strataTools(memory, { resource }).",
            },
          }
        }),
        {
          name: 'memory_update_working',
          description: workingToolDefinition(() => guide.workingGuide()).description,
          schema: memoryToolSchemas.memory_update_working,
        },
      ),
    )
  }
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
