import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4Message,
  LanguageModelV4Middleware,
  LanguageModelV4Prompt,
  LanguageModelV4Usage,
} from '@ai-sdk/provider'
import {
  appThreadIdOf,
  type HistoryMode,
  invalidOptions,
  StrataError,
  type Thread,
  type ThreadHold,
  toStoreThreadId,
} from '@strata-memory/core'
import {
  ADAPTER_OPTION_KEYS,
  type AdapterOptions,
  checkAdapterOptions,
  checkOptionKeys,
  FailedThreads,
  followHistory,
  type OptionKeys,
} from '@strata-memory/core/adapter-kit'
import { fromResponseContent, type ResponseMeta, toProviderMessage } from '../messages/provider-prompt'
import { assertChatId, isThreadOfChat, openChatThread } from '../threads/chat-thread'
import { aiSdkTracer, type StrataMiddlewareTelemetry } from '../tracing/tracer'
import { captureCallContext } from './call-context'
import { CallHolds, clientToolCalls, release } from './call-holds'
import { readCallOptions, type StrataCallOptions } from './call-options'
import { toMessageWithIds, withUIMessageId } from './message-ids'
import { tapStream } from './response-stream'
import { sentAlongside } from './sent-alongside'

/** Options of {@link strataMiddleware}. */
export interface StrataMiddlewareOptions<L extends string = string> extends AdapterOptions<L> {
  /**
   * The thread of every call; a call can name its own with `providerOptions.strata.threadId`. Any
   * non-empty string (the app's chat id): an id outside the store's rule (`user:42/chat:7`) is mapped
   * to a store thread id by core's `toStoreThreadId`, and the thread keeps the app's id.
   * @default none: each call must name one
   */
  threadId?: string
  /**
   * The resource (a user, a team, an account) the threads belong to: each call's thread is opened as
   * `memory.thread(threadId, { resource })`, bound on its first open, so its context shows the
   * resource's working memory (and recalls). A call can name its own with
   * `providerOptions.strata.resourceId`. Another resource on a bound thread is core's
   * `STRATA_INVALID_OPTIONS`, thrown by the call. Needs a store with `flags.resources`.
   * @default none: each thread keeps the binding the store holds
   */
  resource?: string
  /**
   * The level whose context is sent; a call can override it with `providerOptions.strata.level`.
   * @default the thread's current level
   */
  level?: NoInfer<L>
  /**
   * The thread's system prompt, first in its context (call-level system messages stay, before it).
   * @default none
   */
  system?: string
  /**
   * What the calls' messages hold: `'full'` when the app re-sends the whole history (the usual route
   * handler), `'new'` when it sends only new messages, `'auto'` to tell from the stored tail. Only
   * `'new'` stores a message identical to the last stored one again, unless the thread's previous call
   * failed (the SDK's retry, or the user sending it again; the failure is marked in the store, so
   * another process tells the retry too); see `unseenMessages` in core and `thread.markFailed`. A history
   * that left out the tool steps the thread stored (a client that keeps only text) still continues
   * it. `'auto'` takes a lone user message that repeats the thread's first one for a new message, so
   * regenerating the very first answer rewinds only with `'full'`: use it for `useChat` routes.
   * @default 'auto'
   */
  history?: HistoryMode
  /**
   * Spans of Strata's work (`strata.context`, `strata.compaction`, `strata.summarize`,
   * `strata.store.*`) when the app gave `createMemory` no tracer of its own (that one wins).
   * `'ai-sdk'`: the tracer of the OpenTelemetry integration registered with `registerTelemetry()`, so
   * they nest under the SDK's model-call spans. `{ tracer }`: that tracer. `false`: none. One memory
   * keeps one: the last middleware created on it sets it.
   * @default 'ai-sdk'
   */
  telemetry?: StrataMiddlewareTelemetry
  /**
   * One request at a time per thread. A `ThreadHold` (`await thread.hold()`): the request's hold, taken
   * by the app before the request starts (a route takes it before it starts the response, so a busy
   * thread is a 409): every call through this middleware is on its thread (`threadId` defaults to the
   * hold's) and counts as the holder's; the middleware neither takes nor releases it. Create the
   * middleware per request then (it is a plain object). Without one, the middleware holds the thread
   * itself from a request's first step: a step that ends with tool calls keeps the hold for the step
   * that sends their results (see `toolStepWaitMs`), any other step ends it when its response is
   * stored, fails or is aborted. A call on a thread another request holds is refused with
   * `STRATA_THREAD_BUSY` before anything is stored; a call that sends the results of the held step's
   * tool calls continues that request. On a store without the lease capability (a `v1` store) calls
   * hold nothing, as before. `false`: calls hold nothing. An app that holds the thread itself passes
   * its hold here, or its own calls are refused as busy.
   * @default the middleware holds each request's thread
   */
  hold?: ThreadHold | false
  /**
   * Without a request `hold`: how long a request keeps its thread after a step that ended with tool
   * calls, waiting for the step that sends their results (the SDK runs the tools in between). A
   * request the SDK stopped there (`stopWhen`, a tool awaiting approval) frees the thread after this
   * long, or as soon as a call sends those results. Milliseconds, a whole number.
   * @default 30_000
   */
  toolStepWaitMs?: number
}

type NonSystemMessage = Exclude<LanguageModelV4Message, { role: 'system' }>

/** The keys of {@link StrataMiddlewareOptions}: any other is refused (a misspelt `threadID`, say). */
const MIDDLEWARE_OPTION_KEYS = {
  ...ADAPTER_OPTION_KEYS,
  threadId: true,
  telemetry: true,
  hold: true,
  toolStepWaitMs: true,
} as const satisfies OptionKeys<StrataMiddlewareOptions>

/**
 * The call-level system messages and the conversation of a prompt, in one pass. A tool approval the
 * prompt hands to the provider (only provider-executed tools' approvals reach it) is refused before
 * anything is stored: the SDK re-sends the deferred result of such a call merged into the message
 * that made the call, a shape an append-only log cannot take, so the thread would fork.
 */
function splitPrompt(prompt: LanguageModelV4Prompt) {
  const system: LanguageModelV4Message[] = []
  // Walked by index: a route re-sends the whole history on every call, and a `for…of` that V8 has not
  // optimised yet makes an iterator result per message and per part (60 KB a call at 1k messages).
  for (let index = 0; index < prompt.length; index++) {
    const message = prompt[index]!
    if (message.role === 'system') {
      system.push(message)
      continue
    }
    if (message.role !== 'tool') continue
    const { content } = message
    for (let at = 0; at < content.length; at++) {
      const part = content[at]!
      if (part.type !== 'tool-approval-response') continue
      throw new StrataError({
        code: 'STRATA_INVALID_MESSAGE',
        message:
          `The prompt holds an approval (${part.approvalId}) for a provider-executed tool call, which ` +
          'strataMiddleware cannot store: turn approval off for provider-executed tools, or use tools the ' +
          'SDK executes with needsApproval (supported).',
        details: { approvalId: part.approvalId },
      })
    }
  }
  // A list of its own (the thread keeps the list it last matched, by identity), copied whole when the
  // prompt holds no system message, as most do.
  const conversation = (
    system.length === 0 ? prompt.slice() : prompt.filter((message) => message.role !== 'system')
  ) as NonSystemMessage[]
  return { system, conversation }
}

/** A usage count the thread can take: a non-negative integer, or nothing. */
const count = (value: number | undefined) =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined

async function reportUsage(thread: Thread, usage: LanguageModelV4Usage | undefined) {
  const inputTokens = count(usage?.inputTokens.total)
  if (inputTokens === undefined) return
  const outputTokens = count(usage?.outputTokens.total)
  await thread.reportUsage({ inputTokens, ...(outputTokens === undefined ? {} : { outputTokens }) })
}

/** Stores a response and its usage: the message first, so a compaction the usage asks for sees it. */
async function recordResponse(
  thread: Thread,
  content: readonly LanguageModelV4Content[],
  usage: LanguageModelV4Usage | undefined,
  response: ResponseMeta,
  messageId: string | undefined,
) {
  const message = fromResponseContent(content, response)
  // Already mapped to core's shape: a provider-executed result is the provider's own JSON, whatever it looks like.
  if (message !== undefined) await thread.append(withUIMessageId(message, messageId), { format: 'core' })
  await reportUsage(thread, usage)
}

/** The Strata options of each call, by the params `transformParams` returned for it. */
const callOptions = new WeakMap<LanguageModelV4CallOptions, StrataCallOptions>()

/**
 * The params with `providerOptions.strata` taken out: the options are Strata's, and providers that
 * forward every provider option (the AI Gateway sends the whole call) would otherwise receive the
 * thread id. `wrapGenerate` and `wrapStream` find them again by the params object.
 */
function withoutStrataOptions(
  params: LanguageModelV4CallOptions,
  call: StrataCallOptions,
): LanguageModelV4CallOptions {
  let result = params
  if (params.providerOptions !== undefined && 'strata' in params.providerOptions) {
    const { strata: _, ...providerOptions } = params.providerOptions
    const { providerOptions: __, ...rest } = params
    result = Object.keys(providerOptions).length === 0 ? rest : { ...rest, providerOptions }
  }
  callOptions.set(result, call)
  return result
}

/** The Strata options of a call: remembered for params `transformParams` returned, else read. */
const callOptionsOf = (params: LanguageModelV4CallOptions): StrataCallOptions =>
  callOptions.get(params) ?? readCallOptions(params.providerOptions)

/** The request hold of the options, checked: a thread hold for the middleware's thread, or none. */
function checkHold(
  hold: ThreadHold | false | undefined,
  threadId: string | undefined,
): ThreadHold | undefined {
  if (hold === undefined || hold === false) return undefined
  if (
    typeof hold !== 'object' ||
    hold === null ||
    typeof hold.threadId !== 'string' ||
    typeof hold.release !== 'function'
  ) {
    invalidOptions(
      'strataMiddleware(): hold must be the ThreadHold of the request (`await thread.hold()`), or false.',
    )
  }
  // A hashed store id is compared with the mapped id when a call opens its thread.
  if (threadId !== undefined && isThreadOfChat(hold.threadId, threadId) === false) {
    invalidOptions(
      `strataMiddleware(): the hold is of thread '${heldAppId(hold)}', but threadId is '${threadId}': pass the hold of the thread the calls write.`,
      { threadId, heldThreadId: hold.threadId },
    )
  }
  return hold
}

/** The app's id of a held thread, as far as its store id tells (else the store id). */
const heldAppId = (hold: ThreadHold) => appThreadIdOf(hold.threadId) ?? hold.threadId

/**
 * A `LanguageModelV4Middleware` for `wrapLanguageModel`: each call stores the messages the thread has
 * not seen, sends the thread's context instead of the history (call-level system messages and tools
 * kept), then stores the response and reports the provider's usage. Calls marked
 * `providerOptions.strata.internal` (Strata's summarizer) pass through untouched.
 *
 * @example
 * const model = wrapLanguageModel({ model: openai('gpt-4o'), middleware: strataMiddleware({ memory }) })
 * const result = streamText({ model, messages, providerOptions: { strata: { threadId: chatId } } })
 */
export function strataMiddleware<L extends string = string>(
  options: StrataMiddlewareOptions<L>,
): LanguageModelV4Middleware {
  checkOptionKeys('strataMiddleware()', options, MIDDLEWARE_OPTION_KEYS)
  // memory, level, system, history, onDivergence and resource, as every adapter checks them.
  const shared = checkAdapterOptions('strataMiddleware()', options, { history: 'auto' })
  const { memory, resource, level, system, history, onDivergence } = shared
  const { threadId, telemetry = 'ai-sdk', hold, toolStepWaitMs = 30_000 } = options
  // Any chat id: one outside the store's rule is mapped (core's `toStoreThreadId`).
  if (threadId !== undefined) assertChatId(threadId)
  const requestHold = checkHold(hold, threadId)
  if (!Number.isSafeInteger(toolStepWaitMs) || toolStepWaitMs < 0) {
    invalidOptions(
      `strataMiddleware(): toolStepWaitMs must be a whole number of milliseconds (got ${JSON.stringify(toolStepWaitMs)}).`,
    )
  }
  const defaultThreadId = threadId ?? requestHold?.threadId
  const tracer = aiSdkTracer(telemetry)
  if (tracer !== undefined) memory.adoptTracer('ai-sdk', tracer)

  const threadOf = async (call: StrataCallOptions): Promise<Thread<L>> => {
    const id = call.threadId ?? defaultThreadId
    if (id === undefined) {
      invalidOptions(
        "No thread id for this call: pass strataMiddleware({ memory, threadId }) or, per call, providerOptions: { strata: { threadId: 'user-42.chat-7' } }.",
      )
    }
    if (requestHold !== undefined && (await toStoreThreadId(id)) !== requestHold.threadId) {
      invalidOptions(
        `This call names thread '${id}', but the middleware runs inside the hold of thread '${heldAppId(requestHold)}': create one middleware per request, with that request's thread and hold.`,
        { threadId: id, heldThreadId: requestHold.threadId },
      )
    }
    const resourceId = call.resourceId ?? resource
    // Inside a request hold the thread was opened by whoever took it (`openChatRequest` records the
    // app's id then): no write outside the hold.
    if (requestHold !== undefined) {
      const held = requestHold.threadId
      return resourceId === undefined ? memory.thread(held) : memory.thread(held, { resource: resourceId })
    }
    return openChatThread(memory, id, resourceId)
  }

  // The holds the middleware takes itself when no request hold is given.
  const calls = hold === undefined ? new CallHolds(memory, toolStepWaitMs) : undefined

  // Threads whose last model call failed before its response was stored: the AI SDK retries a failed
  // call with the same prompt, and a user may re-send the message (see FailedThreads).
  const failed = new FailedThreads()

  return {
    specificationVersion: 'v4',

    async transformParams({ params }): Promise<LanguageModelV4CallOptions> {
      const call = callOptionsOf(params)
      if (call.internal === true) return withoutStrataOptions(params, call)
      const target = call.level ?? level
      // Checked before anything is stored: a bad level leaves the thread as it was.
      if (target !== undefined) memory.ladder.assert(target)
      const { system: callSystem, conversation } = splitPrompt(params.prompt)
      const alongside = sentAlongside(params, callSystem)
      const thread = await threadOf(call)
      // Taken before anything is stored: a call on a thread another request holds stores nothing.
      const held = await calls?.take(thread, conversation)
      try {
        // After a failed call (this process's, or another's marked in the store), 'new' reads as 'auto'.
        const mode = await failed.historyMode(thread, call.history ?? history, conversation.at(-1)?.role)
        // A regenerated or edited history rewinds the thread to where it leaves it, or is refused; then
        // the messages it has not seen are stored. Matching and appending are one step in the thread, so
        // racing calls store a message once; only the messages near the end of the prompt are mapped, so
        // a re-sent history of thousands of messages costs what its last few dozen cost.
        // With `fit`, core refuses a request that cannot fit the budget beside what is sent alongside
        // (STRATA_BUDGET_EXCEEDED) before it writes anything.
        await followHistory(thread, conversation, {
          history: mode,
          toMessage: toMessageWithIds(conversation, call),
          onDivergence,
          fit: {
            ...(system === undefined ? {} : { system }),
            ...(alongside === undefined ? {} : { alongside }),
          },
        })
        // Each message made the provider's as the context is built (no copy of core's made first).
        const context = await thread.context(
          {
            ...(target === undefined ? {} : { level: target as L }),
            ...(system === undefined ? {} : { system }),
            // The call's own system messages and tool definitions go with the context: under a budget
            // they take their share, so the first call, before any usage report, fits too.
            ...(alongside === undefined ? {} : { alongside }),
          },
          toProviderMessage,
        )
        const result = withoutStrataOptions(
          {
            ...params,
            prompt: callSystem.length === 0 ? context.messages : [...callSystem, ...context.messages],
          },
          call,
        )
        // The SDK calls wrapGenerate or wrapStream with these params right after: they release it.
        if (held !== undefined) calls?.bind(result, thread.id, held)
        return result
      } catch (error) {
        await release(held)
        throw error
      }
    },

    async wrapGenerate({ doGenerate, params }) {
      const call = callOptionsOf(params)
      if (call.internal === true) return doGenerate()
      // The tool calls the stored response leaves to the SDK: the hold waits for their results.
      let toolCalls: string[] = []
      try {
        const thread = await threadOf(call)
        let result: Awaited<ReturnType<typeof doGenerate>>
        try {
          result = await doGenerate()
        } catch (error) {
          // Marked before the hold ends (in `finally`): the request is the holder's. A request the
          // caller aborted (the stop button) did not fail.
          await failed.fail(thread, error, { aborted: params.abortSignal?.aborted === true })
          throw error
        }
        await recordResponse(
          thread,
          result.content,
          result.usage,
          {
            ...(result.response?.id === undefined ? {} : { responseId: result.response.id }),
            ...(result.response?.modelId === undefined ? {} : { modelId: result.response.modelId }),
          },
          call.messageId,
        )
        failed.succeeded(thread.id)
        toolCalls = clientToolCalls(result.content)
        return result
      } finally {
        await calls?.end(params, toolCalls)
      }
    },

    async wrapStream({ doStream, params }) {
      const call = callOptionsOf(params)
      if (call.internal === true) return doStream()
      let result: Awaited<ReturnType<typeof doStream>>
      let thread: Thread<L>
      // The answer is stored when the stream ends, outside the SDK's model-call context: it is
      // stored in that context, so its spans are the call's.
      const inCall = captureCallContext()
      try {
        thread = await threadOf(call)
        try {
          result = await doStream()
        } catch (error) {
          await failed.fail(thread, error, { aborted: params.abortSignal?.aborted === true })
          throw error
        }
      } catch (error) {
        await calls?.end(params)
        throw error
      }
      // The call's hold ends with the stream, or waits for the tool step its response asks for: its
      // response stored, or the stream failed, was cut off or cancelled (an aborted request).
      const stream = tapStream(result.stream, {
        onEnd: (collector) =>
          inCall(async () => {
            let toolCalls: string[] = []
            try {
              await recordResponse(thread, collector.content, collector.usage, collector.meta, call.messageId)
              failed.succeeded(thread.id)
              toolCalls = clientToolCalls(collector.content)
            } finally {
              await calls?.end(params, toolCalls)
            }
          }),
        onFail: async (error) => {
          // A stream that failed or was cut off is a failed request; one the caller cancelled or
          // aborted (the user stopped it, no error) is not marked, and the next call in 'new' mode
          // still tells a re-send.
          await failed.fail(thread, error, { aborted: params.abortSignal?.aborted === true })
          await calls?.end(params)
        },
      })
      return { ...result, stream }
    },
  }
}
