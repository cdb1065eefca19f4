import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4Message,
  LanguageModelV4Middleware,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from '@ai-sdk/provider'
import {
  assertThreadId,
  type DivergenceHandling,
  followHistory,
  type HistoryMode,
  invalidOptions,
  type Memory,
  StrataError,
  type Thread,
} from '@strata-memory/core'
import {
  fromProviderMessage,
  fromResponseContent,
  type ResponseMeta,
  toProviderPrompt,
} from '../messages/provider-prompt'
import { aiSdkTracer, type StrataMiddlewareTelemetry } from './ai-sdk-tracer'
import { captureCallContext } from './call-context'
import { readCallOptions, type StrataCallOptions } from './call-options'
import { sentAlongside } from './sent-alongside'

/** Options of {@link strataMiddleware}. */
export interface StrataMiddlewareOptions<L extends string = string> {
  /** The memory whose threads the calls read and write. */
  memory: Memory<L>
  /**
   * The thread of every call; a call can name its own with `providerOptions.strata.threadId`.
   * @default none: each call must name one
   */
  threadId?: string
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
   * failed (the SDK's retry, or the user sending it again); see `unseenMessages` in core. A history
   * that left out the tool steps the thread stored (a client that keeps only text) still continues
   * it. `'auto'` takes a lone user message that repeats the thread's first one for a new message, so
   * regenerating the very first answer rewinds only with `'full'`: use it for `useChat` routes.
   * @default 'auto'
   */
  history?: HistoryMode
  /**
   * What a call does whose history shares messages with the thread but does not continue it, as
   * `useChat` sends after `regenerate()` or an edited message. `'rewind'`: the messages the thread
   * stored after the last one the history still holds move to the archive (`thread.rewind`; nothing
   * is deleted), then the history's new messages are stored as usual, so the model sees the context
   * without the discarded answer. A rewind that is not safe is refused with `STRATA_INVALID_MESSAGE`
   * and its reason. `'reject'`: every such call is refused with `STRATA_INVALID_MESSAGE`. Refused,
   * nothing is stored. Calls in `history: 'new'` mode never diverge.
   * @default 'rewind'
   */
  onDivergence?: DivergenceHandling
  /**
   * Spans of Strata's work (`strata.context`, `strata.compaction`, `strata.summarize`,
   * `strata.store.*`) when the app gave `createMemory` no tracer of its own (that one wins).
   * `'ai-sdk'`: the tracer of the OpenTelemetry integration registered with `registerTelemetry()`, so
   * they nest under the SDK's model-call spans. `{ tracer }`: that tracer. `false`: none. One memory
   * keeps one: the last middleware created on it sets it.
   * @default 'ai-sdk'
   */
  telemetry?: StrataMiddlewareTelemetry
}

const DIVERGENCE_HANDLINGS: readonly DivergenceHandling[] = ['rewind', 'reject']

const HISTORY_MODES: readonly HistoryMode[] = ['auto', 'full', 'new']

type NonSystemMessage = Exclude<LanguageModelV4Message, { role: 'system' }>

/**
 * The call-level system messages and the conversation of a prompt, in one pass. A tool approval the
 * prompt hands to the provider (only provider-executed tools' approvals reach it) is refused before
 * anything is stored: the SDK re-sends the deferred result of such a call merged into the message
 * that made the call, a shape an append-only log cannot take, so the thread would fork.
 */
function splitPrompt(prompt: LanguageModelV4Prompt) {
  const system: LanguageModelV4Message[] = []
  const conversation: NonSystemMessage[] = []
  for (const message of prompt) {
    if (message.role === 'system') {
      system.push(message)
      continue
    }
    if (message.role === 'tool') {
      const approval = message.content.find((part) => part.type === 'tool-approval-response')
      if (approval !== undefined) {
        throw new StrataError({
          code: 'STRATA_INVALID_MESSAGE',
          message:
            `The prompt holds an approval (${approval.approvalId}) for a provider-executed tool call, which ` +
            'strataMiddleware cannot store: turn approval off for provider-executed tools, or use tools the ' +
            'SDK executes with needsApproval (supported).',
          details: { approvalId: approval.approvalId },
        })
      }
    }
    conversation.push(message)
  }
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
) {
  const message = fromResponseContent(content, response)
  // Already mapped to core's shape: a provider-executed result is the provider's own JSON, whatever it looks like.
  if (message !== undefined) await thread.append(message, { format: 'core' })
  await reportUsage(thread, usage)
}

/**
 * Assembles a streamed response into the content a generate call would have returned, as the SDK
 * does: text and reasoning deltas joined per id, in the order their parts started.
 */
class ResponseCollector {
  readonly content: LanguageModelV4Content[] = []
  readonly #open = new Map<string, Extract<LanguageModelV4Content, { type: 'text' | 'reasoning' }>>()
  usage: LanguageModelV4Usage | undefined
  /** Whether the `finish` part arrived: a stream that ends without it was cut off. */
  finished = false
  readonly meta: ResponseMeta = {}

  add(part: LanguageModelV4StreamPart) {
    switch (part.type) {
      case 'text-start':
      case 'reasoning-start': {
        const type = part.type === 'text-start' ? 'text' : 'reasoning'
        const started: Extract<LanguageModelV4Content, { type: 'text' | 'reasoning' }> = {
          type,
          text: '',
          ...(part.providerMetadata ? { providerMetadata: part.providerMetadata } : {}),
        }
        this.#open.set(`${type}:${part.id}`, started)
        this.content.push(started)
        break
      }
      case 'text-delta':
      case 'reasoning-delta': {
        const open = this.#open.get(`${part.type === 'text-delta' ? 'text' : 'reasoning'}:${part.id}`)
        if (open !== undefined) open.text += part.delta
        break
      }
      case 'text-end':
      case 'reasoning-end': {
        const key = `${part.type === 'text-end' ? 'text' : 'reasoning'}:${part.id}`
        const open = this.#open.get(key)
        if (open !== undefined && part.providerMetadata !== undefined)
          open.providerMetadata = part.providerMetadata
        this.#open.delete(key)
        break
      }
      case 'tool-call':
      case 'tool-result':
      case 'file':
      case 'reasoning-file':
      case 'source':
      case 'custom':
      case 'tool-approval-request':
        if (part.type !== 'tool-result' || part.preliminary !== true) this.content.push(part)
        break
      case 'response-metadata':
        if (part.id !== undefined) this.meta.responseId = part.id
        if (part.modelId !== undefined) this.meta.modelId = part.modelId
        break
      case 'finish':
        this.usage = part.usage
        this.finished = true
        break
    }
  }
}

/**
 * Passes every part of a provider stream through untouched (the same objects, in order) while the
 * collector assembles the response. The response is stored when the stream ends with its `finish`
 * part, before the caller sees the end, so the next step of a tool loop finds it. A stream that
 * fails, is cancelled (an aborted request) or ends without `finish` stores nothing of its response.
 */
function tapStream(
  source: ReadableStream<LanguageModelV4StreamPart>,
  { onEnd, onFail }: { onEnd: (collector: ResponseCollector) => Promise<void>; onFail: () => void },
): ReadableStream<LanguageModelV4StreamPart> {
  const reader = source.getReader()
  const collector = new ResponseCollector()
  return new ReadableStream<LanguageModelV4StreamPart>({
    async pull(controller) {
      let next: Awaited<ReturnType<typeof reader.read>>
      try {
        next = await reader.read()
      } catch (error) {
        onFail()
        throw error
      }
      if (next.done) {
        if (collector.finished) await onEnd(collector)
        else onFail()
        controller.close()
        return
      }
      collector.add(next.value)
      controller.enqueue(next.value)
    },
    async cancel(reason) {
      onFail()
      await reader.cancel(reason)
    },
  })
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

/** How many threads with a failed last call a middleware remembers (a bound, not a tuning knob). */
const MAX_FAILED_THREADS = 10_000

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
  const {
    memory,
    threadId,
    level,
    system,
    history = 'auto',
    onDivergence = 'rewind',
    telemetry = 'ai-sdk',
  } = options ?? ({} as StrataMiddlewareOptions<L>)
  if (typeof memory?.thread !== 'function') {
    invalidOptions('strataMiddleware() needs { memory }: pass the memory from createMemory().')
  }
  if (threadId !== undefined) assertThreadId(threadId)
  if (!HISTORY_MODES.includes(history)) {
    invalidOptions(
      `strataMiddleware(): history must be 'auto', 'full' or 'new' (got ${JSON.stringify(history)}).`,
    )
  }
  if (!DIVERGENCE_HANDLINGS.includes(onDivergence)) {
    invalidOptions(
      `strataMiddleware(): onDivergence must be 'rewind' or 'reject' (got ${JSON.stringify(onDivergence)}).`,
    )
  }
  if (level !== undefined) memory.ladder.assert(level)
  if (system !== undefined && typeof system !== 'string')
    invalidOptions('strataMiddleware(): system must be a string.')
  const tracer = aiSdkTracer(telemetry)
  if (tracer !== undefined) memory.adoptTracer('ai-sdk', tracer)

  const threadOf = (call: StrataCallOptions): Promise<Thread<L>> => {
    const id = call.threadId ?? threadId
    if (id === undefined) {
      invalidOptions(
        "No thread id for this call: pass strataMiddleware({ memory, threadId }) or, per call, providerOptions: { strata: { threadId: 'user-42.chat-7' } }.",
      )
    }
    return memory.thread(id)
  }

  // Threads whose last model call failed before its response was stored. The AI SDK retries a failed
  // call with the same prompt, and a user may re-send the message: in 'new' mode the last message
  // would be stored twice, so the next call of such a thread tells re-sent messages as 'auto' does.
  const failedThreads = new Set<string>()
  const failed = (id: string) => {
    failedThreads.delete(id)
    failedThreads.add(id)
    if (failedThreads.size > MAX_FAILED_THREADS) failedThreads.delete(failedThreads.values().next().value!)
  }

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
      const requested = call.history ?? history
      const mode = requested === 'new' && failedThreads.has(thread.id) ? 'auto' : requested
      // A regenerated or edited history rewinds the thread to where it leaves it, or is refused; then
      // the messages it has not seen are stored. Matching and appending are one step in the thread, so
      // racing calls store a message once; only the messages near the end of the prompt are mapped, so
      // a re-sent history of thousands of messages costs what its last few dozen cost.
      await followHistory(thread, conversation, {
        history: mode,
        toMessage: fromProviderMessage,
        onDivergence,
      })
      const context = await thread.context({
        ...(target === undefined ? {} : { level: target as L }),
        ...(system === undefined ? {} : { system }),
        // The call's own system messages and tool definitions go with the context: under a budget
        // they take their share, so the first call, before any usage report, fits too.
        ...(alongside === undefined ? {} : { alongside }),
      })
      return withoutStrataOptions(
        { ...params, prompt: [...callSystem, ...toProviderPrompt(context.messages)] },
        call,
      )
    },

    async wrapGenerate({ doGenerate, params }) {
      const call = callOptionsOf(params)
      if (call.internal === true) return doGenerate()
      const thread = await threadOf(call)
      let result: Awaited<ReturnType<typeof doGenerate>>
      try {
        result = await doGenerate()
      } catch (error) {
        failed(thread.id)
        throw error
      }
      await recordResponse(thread, result.content, result.usage, {
        ...(result.response?.id === undefined ? {} : { responseId: result.response.id }),
        ...(result.response?.modelId === undefined ? {} : { modelId: result.response.modelId }),
      })
      failedThreads.delete(thread.id)
      return result
    },

    async wrapStream({ doStream, params }) {
      const call = callOptionsOf(params)
      if (call.internal === true) return doStream()
      const thread = await threadOf(call)
      // The answer is stored when the stream ends, outside the SDK's model-call context: it is
      // stored in that context, so its spans are the call's.
      const inCall = captureCallContext()
      let result: Awaited<ReturnType<typeof doStream>>
      try {
        result = await doStream()
      } catch (error) {
        failed(thread.id)
        throw error
      }
      const stream = tapStream(result.stream, {
        onEnd: (collector) =>
          inCall(async () => {
            await recordResponse(thread, collector.content, collector.usage, collector.meta)
            failedThreads.delete(thread.id)
          }),
        onFail: () => failed(thread.id),
      })
      return { ...result, stream }
    },
  }
}
