import {
  type EnterScopeOutput,
  type ExitScopeOutput,
  invalidOptions,
  type Memory,
  type MemoryQueryOutput,
  type MemoryRetrieveOutput,
  type MemoryStoreOutput,
  type MemoryToolError,
  type MemoryTools,
  type MemoryUpdateWorkingConflict,
  type MemoryUpdateWorkingOutput,
  type ScopeTools,
} from '@strata-memory/core'
import {
  checkMemoryArgument,
  checkOptionKeys,
  checkResourceOption,
  type MemoryToolInputs,
  memoryToolDefinitions,
  memoryToolSchemasWith,
  type OptionKeys,
  workingToolDefinition,
  zodSchemaBuilder,
} from '@strata-memory/core/adapter-kit'
import { memoryTools, scopeTools } from '@strata-memory/core/tools'
import { jsonSchema, type Tool, tool } from 'ai'
import { z } from 'zod'
import { assertChatId, openChatThread } from '../threads/chat-thread'

/** Core's tool definitions (names, descriptions, JSON Schemas), read without a thread. */
const definitions = memoryToolDefinitions()

/** What the `memory_update_working` description reads of a resource (core's resource has it). */
interface WorkingGuide {
  workingGuide(): string
}

/**
 * The input schemas of the memory tools as zod schemas, built from core's JSON Schemas (the adapter
 * kit's one source; a test checks them equal).
 */
export const memoryToolSchemas = memoryToolSchemasWith(zodSchemaBuilder(z)) as {
  [Name in keyof MemoryToolInputs]: z.ZodType<MemoryToolInputs[Name]>
}

/** The memory tools as AI SDK tools; see {@link strataTools}. A type, not an interface, so it is a `ToolSet`. */
export type StrataTools = {
  memory_store: Tool<z.infer<typeof memoryToolSchemas.memory_store>, MemoryStoreOutput | MemoryToolError>
  memory_retrieve: Tool<
    z.infer<typeof memoryToolSchemas.memory_retrieve>,
    MemoryRetrieveOutput | MemoryToolError
  >
  memory_query: Tool<z.infer<typeof memoryToolSchemas.memory_query>, MemoryQueryOutput | MemoryToolError>
}

/** The scope tools as AI SDK tools, added by `strataTools(memory, { threadId, scopes: true })`. */
export type StrataScopeTools = {
  enter_scope: Tool<
    { level: string; title: string; instructions?: string },
    EnterScopeOutput | MemoryToolError
  >
  exit_scope: Tool<
    { outcome?: 'complete' | 'cancelled' | 'aborted'; summary: string },
    ExitScopeOutput | MemoryToolError
  >
}

/**
 * The resource tool as an AI SDK tool, added by `strataTools(memory, { threadId, resource })`. A stale
 * version comes back as core's {@link MemoryUpdateWorkingConflict}: the current version and content.
 */
export type StrataResourceTools = {
  memory_update_working: Tool<
    z.infer<typeof memoryToolSchemas.memory_update_working>,
    MemoryUpdateWorkingOutput | MemoryUpdateWorkingConflict | MemoryToolError
  >
}

/** Options of {@link strataTools}. */
export interface StrataToolsOptions {
  /**
   * The thread whose memory the tools read and write: the app's chat id, any non-empty string (one
   * outside the store's rule is mapped by core's `toStoreThreadId`, as `strataMiddleware` maps it).
   */
  threadId: string
  /**
   * The resource (a user, a team, an account) the thread belongs to: the thread is opened as
   * `memory.thread(threadId, { resource })`, bound on its first open; another resource on a bound
   * thread is core's `STRATA_INVALID_OPTIONS`, thrown by the first tool call (a tool error). Adds
   * `memory_update_working` unless `workingMemory: false`. Needs a store with `flags.resources`.
   * @default none: the thread keeps the binding the store holds, and the tools have no `memory_update_working`
   */
  resource?: string
  /**
   * With `resource`: whether the model may rewrite the resource's working memory
   * (`memory_update_working`). `false` keeps it read-only: the context still shows it.
   * @default true
   */
  workingMemory?: boolean
  /**
   * Adds core's scope tools, `enter_scope` and `exit_scope`: the model opens a narrower scope for a
   * piece of work and closes it with a summary that takes its place.
   * @default false
   */
  scopes?: boolean
}

/** The keys of {@link StrataToolsOptions}: any other is refused (`scope` for `scopes`, say). */
const TOOLS_OPTION_KEYS = {
  threadId: true,
  resource: true,
  workingMemory: true,
  scopes: true,
} as const satisfies OptionKeys<StrataToolsOptions>

/**
 * The three memory tools (`memory_store`, `memory_retrieve`, `memory_query`) as AI SDK tools bound to
 * one thread: the agent can fetch offloaded tool results, archived turns, summaries and facts back.
 * A bad input or an unknown id comes back to the model as `{ error: { code, message } }`.
 *
 * @example
 * const result = streamText({ model, messages, tools: { ...myTools, ...strataTools(memory, { threadId }) } })
 */
export function strataTools(
  memory: Memory,
  options: StrataToolsOptions & { scopes: true; resource: string; workingMemory?: true },
): StrataTools & StrataScopeTools & StrataResourceTools
export function strataTools(
  memory: Memory,
  options: StrataToolsOptions & { resource: string; workingMemory?: true },
): StrataTools & StrataResourceTools
export function strataTools(
  memory: Memory,
  options: StrataToolsOptions & { scopes: true },
): StrataTools & StrataScopeTools
export function strataTools(memory: Memory, options: StrataToolsOptions): StrataTools
export function strataTools(
  memory: Memory,
  options: StrataToolsOptions,
): StrataTools | (StrataTools & Partial<StrataScopeTools & StrataResourceTools>) {
  checkMemoryArgument('strataTools(memory, { threadId })', memory)
  checkOptionKeys('strataTools(memory, options)', options, TOOLS_OPTION_KEYS)
  const threadId = options?.threadId
  assertChatId(threadId)
  const scopes = options.scopes ?? false
  if (typeof scopes !== 'boolean') {
    invalidOptions(`strataTools(): scopes must be true or false (got ${JSON.stringify(scopes)}).`)
  }
  const { resource, workingMemory = true } = options
  checkResourceOption('strataTools()', resource)
  if (typeof workingMemory !== 'boolean') {
    invalidOptions(
      `strataTools(): workingMemory must be true or false (got ${JSON.stringify(workingMemory)}).`,
    )
  }
  const open = () => openChatThread(memory, threadId, resource)
  let tools: Promise<MemoryTools> | undefined
  const core = () => {
    tools ??= open().then((thread) => memoryTools(thread))
    // A refused open (another resource, a store without resources) is retried by the next call.
    tools.catch(() => {
      tools = undefined
    })
    return tools
  }
  const memoryToolSet: StrataTools = {
    memory_store: tool({
      description: definitions.memory_store.description,
      inputSchema: memoryToolSchemas.memory_store,
      execute: async (input): Promise<MemoryStoreOutput | MemoryToolError> =>
        (await core()).memory_store.execute(input),
    }),
    memory_retrieve: tool({
      description: definitions.memory_retrieve.description,
      inputSchema: memoryToolSchemas.memory_retrieve,
      execute: async (input): Promise<MemoryRetrieveOutput | MemoryToolError> =>
        (await core()).memory_retrieve.execute(input),
    }),
    memory_query: tool({
      description: definitions.memory_query.description,
      inputSchema: memoryToolSchemas.memory_query,
      execute: async (input): Promise<MemoryQueryOutput | MemoryToolError> =>
        (await core()).memory_query.execute(input),
    }),
  }
  const withResource =
    resource !== undefined && workingMemory
      ? {
          ...memoryToolSet,
          ...resourceToolSet(memory.resource(resource) as unknown as WorkingGuide, core),
        }
      : memoryToolSet
  if (!scopes) return withResource
  return { ...withResource, ...scopeToolSet(memory, threadId) }
}

/** `memory_update_working` as an AI SDK tool; its description names the resource's template and schema. */
function resourceToolSet(resource: WorkingGuide, core: () => Promise<MemoryTools>): StrataResourceTools {
  return {
    memory_update_working: tool({
      description: workingToolDefinition(() => resource.workingGuide()).description,
      inputSchema: memoryToolSchemas.memory_update_working,
      execute: async (
        input,
      ): Promise<MemoryUpdateWorkingOutput | MemoryUpdateWorkingConflict | MemoryToolError> => {
        const update = (await core()).memory_update_working
        if (update === undefined) {
          return {
            error: {
              code: 'STRATA_INVALID_OPTIONS',
              message: 'memory_update_working: this conversation belongs to no resource (user).',
            },
          }
        }
        return update.execute(input)
      },
    }),
  }
}

/** Core's scope tools for one thread as AI SDK tools, their input schemas taken from core's JSON Schemas. */
function scopeToolSet(memory: Memory, threadId: string): StrataScopeTools {
  const levels = memory.ladder.levels
  // The definitions read the thread only when a tool runs, so these are safe to read, never to execute.
  const scopeDefinitions = scopeTools({} as Parameters<typeof scopeTools>[0], { levels })
  let tools: Promise<ScopeTools> | undefined
  const core = () => {
    tools ??= openChatThread(memory, threadId).then((thread) => scopeTools(thread, { levels }))
    return tools
  }
  return {
    enter_scope: tool({
      description: scopeDefinitions.enter_scope.description,
      inputSchema: jsonSchema<{ level: string; title: string; instructions?: string }>(
        scopeDefinitions.enter_scope.inputSchema,
      ),
      execute: async (input): Promise<EnterScopeOutput | MemoryToolError> =>
        (await core()).enter_scope.execute(input),
    }),
    exit_scope: tool({
      description: scopeDefinitions.exit_scope.description,
      inputSchema: jsonSchema<{ outcome?: 'complete' | 'cancelled' | 'aborted'; summary: string }>(
        scopeDefinitions.exit_scope.inputSchema,
      ),
      execute: async (input): Promise<ExitScopeOutput | MemoryToolError> =>
        (await core()).exit_scope.execute(input),
    }),
  }
}
