import { AIMessage, type BaseMessage, SystemMessage } from '@langchain/core/messages'
import { AsyncLocalStorageProviderSingleton } from '@langchain/core/singletons'
import {
  type ContextMessage,
  type HistoryMode,
  invalidOptions,
  openAppThread,
  shownValue,
  type Thread,
} from '@strata-memory/core'
import {
  ADAPTER_OPTION_KEYS,
  type AdapterOptions,
  checkAdapterOptions,
  checkOneOf,
  checkOptionKeys,
  FailedThreads,
  type FollowHistoryOptions,
  followHistory,
  type OptionKeys,
  partsText,
} from '@strata-memory/core/adapter-kit'
import { createMiddleware, MiddlewareError, ToolInvocationError, type WrapModelCallHook } from 'langchain'
import { toLangChainMessages } from '../messages/to-langchain'
import { type ConfigurableLike, openResourceThread, resourceIdOf } from '../threads/resource-thread'
import { langchainTracing } from '../tracing/tracer'
import { compactStateUpdate, ShownMessages, STATE_MODES, type StateMode } from './compact-state'
import { type RoledMessage, splitRequestMessages, toCoreMessage } from './conversation'
import { supersedeEditedCalls } from './edited-calls'
import { RequestHolds } from './request-holds'
import { responseUsage } from './response-usage'
import { toolDefinitionsText } from './tool-definitions'
import { fedBackToolError } from './tool-errors'
import { withTransitions } from './transitions'

/** Options of {@link strataMiddleware}. */
export interface StrataMiddlewareOptions<L extends string = string> extends AdapterOptions<L> {
  /**
   * The thread of every call: any non-empty string. An id of `A-Z a-z 0-9 _ . -` (up to 128, not
   * starting with `.`) is the store's thread id as it is; any other (`user:42/chat:7`) is mapped onto
   * one by core's `toStoreThreadId`, the app's id kept in the thread's state (see `openAppThread`).
   * @default LangGraph's `configurable.thread_id` (the id the app's checkpointer already uses)
   */
  threadId?: string
  /**
   * The resource (a user, a team, an account) the threads belong to: each thread is bound to it on
   * its first open (core's `memory.thread(id, { resource })`), so its context shows the resource's
   * working memory (and recalls). Another resource on a bound thread is core's
   * `STRATA_INVALID_OPTIONS`, thrown before anything is stored. Needs a store with `flags.resources`.
   * @default the run's `configurable.resource_id`, else none (a thread keeps the binding the store holds)
   */
  resource?: string
  /**
   * The thread's system prompt, sent after the agent's own system prompt, with the memory slots.
   * @default none
   */
  system?: string
  /**
   * What the requests' messages hold: `'full'` when the agent re-sends the whole history (a
   * checkpointer), `'new'` when each invoke sends only new messages and nothing keeps state, `'auto'`
   * to tell from the stored tail (both work). See `unseenMessages` in core.
   * `'auto'` is right for an agent with a checkpointer and for one without: it also follows a thread
   * whose checkpoint is gone (an in-memory saver after a restart), which `'full'` refuses. Tool calls
   * a human edited or dropped after the model call (`humanInTheLoopMiddleware`) are followed in every
   * mode but `'new'`.
   * @default 'auto'
   */
  history?: HistoryMode
  /**
   * What the agent's graph state (and so every checkpoint) keeps. `'full'`: every message, as LangChain
   * keeps it; the model is sent the thread's context, the state grows with each step. `'compact'`:
   * after each model call the state's messages are replaced (LangGraph's `RemoveMessage`) by what the
   * model was just shown — results the content channel offloaded as their citations, compacted turns
   * as their summaries — followed by the answer, so checkpoints stay as small as the prompt and
   * `getState()` shows what the model saw. A thread whose checkpoint is gone (an in-memory saver after
   * a restart) is rebuilt into the state from Strata by its next model call. The messages it puts in
   * the state carry `additional_kwargs.memory_level`; they are the thread's own and are not stored again.
   * @default 'full'
   */
  state?: StateMode
  /**
   * Whether Strata's work (context builds, compactions, summarizer calls, store calls) is reported to
   * LangChain's tracing: as child runs of the current run, in LangSmith and in every callback tracer
   * the app passes in `callbacks` (see `langchainTracing`). A tracer the app gave
   * `createMemory({ telemetry: { tracer } })` wins over it. `false`: this middleware does not pass it.
   * @default true
   */
  tracing?: boolean
  /**
   * One request at a time per thread: an `invoke` or `stream` of the agent holds its thread from
   * `beforeAgent` to `afterAgent` (`thread.hold()`), so a second request on the same thread — here or
   * in another process sharing the store — is refused before it stores anything, with a
   * `MiddlewareError` whose `cause` is a `StrataError` with code `STRATA_THREAD_BUSY`. A request that
   * fails gives the thread back.
   */
  hold?: StrataHoldOptions
}

/** Options of {@link StrataMiddlewareOptions.hold}. */
export interface StrataHoldOptions {
  /**
   * How long the store's lease outlives a process that died holding it (see `thread.hold({ ttlMs })`).
   * @default core's default (30 s)
   */
  ttlMs?: number
  /**
   * How long a request keeps its thread while none of its model or tool calls runs. A request can end
   * where no hook of this middleware sees it — a human-in-the-loop interrupt (`humanInTheLoopMiddleware`),
   * a recursion limit, another middleware's error — so after this long without a step, its thread is
   * free for other requests; a step that comes later takes it again (the request resumed with
   * `new Command({ resume })` does). Raise it when other middleware spends longer between model calls
   * (an LLM call in `beforeModel`).
   * @default 10_000
   */
  idleMs?: number
}

/** The default of {@link StrataHoldOptions.idleMs}. */
const DEFAULT_IDLE_MS = 10_000

/**
 * The request a hook runs in: LangGraph's run control, one per `invoke` or `stream` of the graph (a
 * resumed run has its own), read from the run's config. Undefined on a LangGraph without it.
 */
function requestOf(): object | undefined {
  const config = AsyncLocalStorageProviderSingleton.getRunnableConfig() as { control?: unknown } | undefined
  const control = config?.control
  return typeof control === 'object' && control !== null ? control : undefined
}

/** An error the agent feeds back to the model as the tool's answer (`handleToolErrors`): the request goes on. */
const fedBack = (error: unknown) => ToolInvocationError.isInstance(error)

/** What a request's runtime holds that the middleware reads. */
interface RuntimeLike {
  configurable?: ConfigurableLike
  writer?: ((chunk: unknown) => void) | undefined
}

/** The request's system message followed by the thread's (its system prompt and memory slots). */
function systemMessageWith(own: SystemMessage, thread: readonly ContextMessage[]): SystemMessage {
  if (thread.length === 0) return own
  const text = thread.map((message) => partsText(message.content)).join('\n\n')
  if (own.text.length === 0) return new SystemMessage(text)
  return own.concat(
    typeof own.content === 'string'
      ? `\n\n${text}`
      : new SystemMessage({ content: [{ type: 'text', text: `\n\n${text}` }] }),
  )
}

/** What a model call's handler returns: the answer, a structured response with its messages, or a Command. */
type ModelCallResult = AIMessage | { structuredResponse: unknown; messages: BaseMessage[] } | object

/** The messages a model call's result adds to the state (none for a Command: the next call stores them). */
function resultMessages(response: ModelCallResult): BaseMessage[] {
  if (AIMessage.isInstance(response)) return [response]
  const messages = (response as { messages?: unknown }).messages
  if ('structuredResponse' in response && Array.isArray(messages)) return messages as BaseMessage[]
  return []
}

/**
 * Stores the model's answer (tool calls included) — with a structured response (`responseFormat`),
 * the answer and the messages the agent adds for it — then reports the usage the answer carries
 * (see `responseUsage`): the messages first, so a budget compaction the usage asks for sees them.
 * The answer is the handler's whole result, after the model call: a streamed answer arrives merged,
 * and is stored once. An answer that reports no usage reports nothing (absent is not zero).
 */
async function recordResponse(thread: Thread, response: ModelCallResult) {
  const messages = resultMessages(response)
  if (messages.length === 0) return
  const { conversation } = splitRequestMessages(messages)
  await thread.append(conversation.map(toCoreMessage), { format: 'core' })
  const answer = messages.find((message) => AIMessage.isInstance(message)) as AIMessage | undefined
  const usage = answer === undefined ? undefined : responseUsage(answer)
  if (usage !== undefined) await thread.reportUsage(usage)
}

/** The keys of {@link StrataMiddlewareOptions} and of its `hold`: any other is refused (a misspelt `threadID`, say). */
const MIDDLEWARE_OPTION_KEYS = {
  ...ADAPTER_OPTION_KEYS,
  threadId: true,
  state: true,
  tracing: true,
  hold: true,
} as const satisfies OptionKeys<StrataMiddlewareOptions>
const HOLD_OPTION_KEYS = { ttlMs: true, idleMs: true } as const satisfies OptionKeys<StrataHoldOptions>

/**
 * A `createAgent` middleware: each model call stores the messages of the request the thread has not
 * seen and calls the model with a copy of the request whose messages are the thread's context (the
 * agent's state and checkpoints keep the whole history, or with `state: 'compact'` what the model was
 * shown), then stores the answer and reports its usage.
 * Transitions are also written to LangGraph's custom stream.
 *
 * @example
 * const agent = createAgent({ model, tools, checkpointer, middleware: [strataMiddleware({ memory })] })
 * await agent.invoke({ messages: [new HumanMessage('Hi')] }, { configurable: { thread_id: 'user-42.chat-7' } })
 */
export function strataMiddleware<L extends string = string>(options: StrataMiddlewareOptions<L>) {
  checkOptionKeys('strataMiddleware()', options, MIDDLEWARE_OPTION_KEYS)
  // memory, level, system, history, onDivergence and resource, as every adapter checks them.
  const shared = checkAdapterOptions('strataMiddleware()', options, { history: 'auto' })
  const { memory, resource, level, system, history, onDivergence } = shared
  const { threadId, state: stateMode = 'full', tracing = true, hold = {} } = options
  if (threadId !== undefined && (typeof threadId !== 'string' || threadId.length === 0))
    invalidOptions('strataMiddleware(): threadId must be a non-empty string.')
  checkOneOf('strataMiddleware()', 'state', stateMode, STATE_MODES)
  if (typeof tracing !== 'boolean') invalidOptions('strataMiddleware(): tracing must be true or false.')
  if (tracing) memory.adoptTracer('langchain', langchainTracing())
  if (typeof hold !== 'object' || hold === null) invalidOptions('strataMiddleware(): hold must be an object.')
  checkOptionKeys('strataMiddleware({ hold })', hold, HOLD_OPTION_KEYS)
  const { ttlMs, idleMs = DEFAULT_IDLE_MS } = hold
  if (ttlMs !== undefined && !(Number.isSafeInteger(ttlMs) && ttlMs > 0)) {
    invalidOptions(
      `strataMiddleware(): hold.ttlMs must be a whole number of milliseconds above 0 (got ${shownValue(ttlMs)}).`,
    )
  }
  if (!(Number.isSafeInteger(idleMs) && idleMs >= 0)) {
    invalidOptions(
      `strataMiddleware(): hold.idleMs must be a whole number of milliseconds (got ${shownValue(idleMs)}).`,
    )
  }
  const holds = new RequestHolds({ ttlMs, idleMs })
  // Under state: 'compact', what each thread's model call was shown, until its afterModel hook.
  const shown = new ShownMessages()

  const threadIdOf = (runtime: RuntimeLike | undefined): string | undefined => {
    if (threadId !== undefined) return threadId
    const id = runtime?.configurable?.thread_id
    return typeof id === 'string' ? id : undefined
  }
  /** The run's thread, bound to its resource when it has one. */
  const threadOf = (runtime: RuntimeLike | undefined, id: string) =>
    openResourceThread(memory, id, resourceIdOf(resource, runtime?.configurable))

  // Threads whose last model call failed before its answer was stored: a retry (modelRetryMiddleware,
  // the app invoking again) sends the same messages (see FailedThreads).
  const failed = new FailedThreads()

  return createMiddleware({
    name: 'StrataMemory',

    // The request takes its thread before anything is stored. LangChain passes what this hook throws
    // as it is: a refusal is wrapped as it would be from the model call, in a MiddlewareError.
    beforeAgent: async (_state, runtime) => {
      const id = threadIdOf(runtime as RuntimeLike)
      if (id === undefined) return undefined
      try {
        const request = requestOf()
        const thread = await threadOf(runtime as RuntimeLike, id)
        await holds.begin(thread, request)
        const signal = (runtime as { signal?: AbortSignal }).signal
        signal?.addEventListener('abort', () => void holds.end(thread.id, request), { once: true })
      } catch (error) {
        throw MiddlewareError.wrap(error, 'StrataMemory')
      }
      return undefined
    },

    afterAgent: async (_state, runtime) => {
      const id = threadIdOf(runtime as RuntimeLike)
      if (id !== undefined) await holds.end((await openAppThread(memory, id)).id, requestOf())
      return undefined
    },

    ...(stateMode === 'compact'
      ? {
          afterModel: async (state: { messages: BaseMessage[] }, runtime: unknown) => {
            const id = threadIdOf(runtime as RuntimeLike)
            const step = id === undefined ? undefined : shown.take(id)
            return step === undefined ? undefined : compactStateUpdate(step, state.messages)
          },
        }
      : {}),

    wrapModelCall: async (request, handler) => {
      const runtime = request.runtime as RuntimeLike
      const id = threadIdOf(runtime)
      if (id === undefined) {
        invalidOptions(
          "No thread id for this model call: invoke the agent with { configurable: { thread_id: 'user-42.chat-7' } } (the id a checkpointer uses), or pass strataMiddleware({ memory, threadId }).",
        )
      }
      const thread = await threadOf(runtime, id)
      const run = requestOf()
      await holds.enter(thread, run)
      try {
        return await modelCall(thread, id, request, handler)
      } catch (error) {
        shown.forget(id)
        // The request dies here (a retry middleware around this one takes the thread again).
        await holds.end(thread.id, run)
        throw error
      } finally {
        holds.leave(thread.id, run)
      }
    },

    wrapToolCall: async (request, handler) => {
      const runtime = request.runtime as RuntimeLike | undefined
      const appId = threadIdOf(runtime)
      if (appId === undefined) return handler(request)
      const run = requestOf()
      const thread = await threadOf(runtime, appId)
      const id = thread.id
      await holds.enter(thread, run)
      try {
        return await withTransitions(memory, id, runtime?.writer, async () => handler(request))
      } catch (error) {
        // A tool's own error goes back to the model, as without middleware (see fedBackToolError).
        const signal = (runtime as { signal?: AbortSignal } | undefined)?.signal
        const fed = fedBackToolError(error, request.toolCall, signal)
        if (fed !== undefined) throw fed
        // An interrupt ends the request here; a failed tool the agent feeds back to the model does not.
        if (!fedBack(error)) await holds.end(id, run)
        throw error
      } finally {
        holds.leave(id, run)
      }
    },
  })

  /** One model call: the request's unseen messages stored, the model called with the context, its answer stored. */
  async function modelCall(
    thread: Thread,
    appThreadId: string,
    request: Parameters<WrapModelCallHook>[0],
    handler: Parameters<WrapModelCallHook>[1],
  ): Promise<AIMessage> {
    const runtime = request.runtime as RuntimeLike
    return withTransitions(memory, thread.id, runtime.writer, async () => {
      const { system: requestSystem, conversation, rewritten } = splitRequestMessages(request.messages)
      // An answer whose tool calls a human edited (or dropped) after it was stored is superseded first.
      if (history !== 'new') await supersedeEditedCalls(memory.store, thread, conversation)
      // After a failed call (this process's, or another's marked in the store), 'new' reads as 'auto';
      // a rewritten history holds only the thread's kept tail: 'full' would take it for another one.
      const followed = await failed.historyMode(thread, history, conversation.at(-1)?.role)
      const mode = rewritten && followed === 'full' ? 'auto' : followed
      // What the provider receives besides the context: the agent's system prompt, the request's
      // system messages, the tool definitions and the structured-output format. Under a budget they
      // take their share.
      const alongside = [
        ...[request.systemMessage, ...requestSystem].map((message) => message.text),
        toolDefinitionsText(request.tools, request.responseFormat),
      ]
        .filter((text) => text.length > 0)
        .join('\n\n')
      // With `fit`, a request that cannot fit the budget beside what is sent alongside is refused
      // (STRATA_BUDGET_EXCEEDED) before anything is stored.
      const follow: FollowHistoryOptions<RoledMessage> = {
        history: mode,
        toMessage: toCoreMessage,
        onDivergence,
        // A rewritten history begins inside the thread's conversation: a fork of it is found from its
        // kept tail.
        partial: rewritten,
        fit: {
          ...(system === undefined ? {} : { system }),
          ...(alongside === '' ? {} : { alongside }),
        },
      }
      await followHistory(thread, conversation, follow)
      const context = await thread.context({
        ...(level === undefined ? {} : { level }),
        ...(system === undefined ? {} : { system }),
        ...(alongside === '' ? {} : { alongside }),
      })
      const threadSystem = context.messages.filter((message) => message.role === 'system')
      const rest = context.messages.filter((message) => message.role !== 'system')
      const messages: BaseMessage[] = [
        ...requestSystem,
        ...toLangChainMessages(rest, { level: context.stats.level }),
      ]
      let response: AIMessage
      try {
        response = await handler({
          ...request,
          messages,
          systemMessage: systemMessageWith(request.systemMessage, threadSystem),
        })
      } catch (error) {
        // Marked while the request still holds the thread (wrapModelCall gives it back after). A
        // request the app aborted (its signal) did not fail.
        await failed.fail(thread, error, {
          aborted: (runtime as { signal?: AbortSignal }).signal?.aborted === true,
        })
        throw error
      }
      await recordResponse(thread, response)
      if (stateMode === 'compact') shown.record(appThreadId, request.messages, messages)
      failed.succeeded(thread.id)
      return response
    })
  }
}
