import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4Message,
  LanguageModelV4Middleware,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from '@ai-sdk/provider'
import { assertThreadId, type HistoryMode, type Memory, StrataError, type Thread } from '@strata-memory/core'
import {
  fromProviderMessage,
  fromResponseContent,
  type ResponseMeta,
  toProviderPrompt,
} from '../messages/provider-prompt'
import { readCallOptions, type StrataCallOptions } from './call-options'

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
   * `'new'` stores a message identical to the last stored one again; see `unseenMessages` in core.
   * @default 'auto'
   */
  history?: HistoryMode
}

const HISTORY_MODES: readonly HistoryMode[] = ['auto', 'full', 'new']

type NonSystemMessage = Exclude<LanguageModelV4Message, { role: 'system' }>

function invalid(message: string, details: Record<string, unknown> = {}): never {
  throw new StrataError({ code: 'STRATA_INVALID_OPTIONS', message, details })
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
  if (message !== undefined) await thread.append(message)
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
        break
    }
  }
}

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
  const { memory, threadId, level, system, history = 'auto' } = options ?? ({} as StrataMiddlewareOptions<L>)
  if (typeof memory?.thread !== 'function') {
    invalid('strataMiddleware() needs { memory }: pass the memory from createMemory().')
  }
  if (threadId !== undefined) assertThreadId(threadId)
  if (!HISTORY_MODES.includes(history)) {
    invalid(`strataMiddleware(): history must be 'auto', 'full' or 'new' (got ${JSON.stringify(history)}).`)
  }
  if (level !== undefined) memory.ladder.assert(level)
  if (system !== undefined && typeof system !== 'string')
    invalid('strataMiddleware(): system must be a string.')

  const threadOf = (call: StrataCallOptions): Promise<Thread<L>> => {
    const id = call.threadId ?? threadId
    if (id === undefined) {
      invalid(
        "No thread id for this call: pass strataMiddleware({ memory, threadId }) or, per call, providerOptions: { strata: { threadId: 'user-42.chat-7' } }.",
      )
    }
    return memory.thread(id)
  }

  return {
    specificationVersion: 'v4',

    async transformParams({ params }): Promise<LanguageModelV4CallOptions> {
      const call = readCallOptions(params.providerOptions)
      if (call.internal === true) return params
      const target = call.level ?? level
      // Checked before anything is stored: a bad level leaves the thread as it was.
      if (target !== undefined) memory.ladder.assert(target)
      const thread = await threadOf(call)
      const callSystem = params.prompt.filter((message) => message.role === 'system')
      // Matching and appending are one step in the thread, so racing calls store a message once; only
      // the messages near the end of the prompt are mapped, so a re-sent history of thousands of
      // messages costs what its last few dozen cost.
      const conversation = params.prompt.filter(
        (message): message is NonSystemMessage => message.role !== 'system',
      )
      await thread.appendUnseen(conversation, {
        history: call.history ?? history,
        toMessage: fromProviderMessage,
      })
      const context = await thread.context({
        ...(target === undefined ? {} : { level: target as L }),
        ...(system === undefined ? {} : { system }),
      })
      return { ...params, prompt: [...callSystem, ...toProviderPrompt(context.messages)] }
    },

    async wrapGenerate({ doGenerate, params }) {
      const call = readCallOptions(params.providerOptions)
      if (call.internal === true) return doGenerate()
      const thread = await threadOf(call)
      const result = await doGenerate()
      await recordResponse(thread, result.content, result.usage, {
        ...(result.response?.id === undefined ? {} : { responseId: result.response.id }),
        ...(result.response?.modelId === undefined ? {} : { modelId: result.response.modelId }),
      })
      return result
    },

    async wrapStream({ doStream, params }) {
      const call = readCallOptions(params.providerOptions)
      if (call.internal === true) return doStream()
      const thread = await threadOf(call)
      const result = await doStream()
      const collector = new ResponseCollector()
      // Every part goes through untouched; the response is stored before the stream ends, so the
      // next step of a tool loop finds it.
      const tap = new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
        transform(part, controller) {
          controller.enqueue(part)
          collector.add(part)
        },
        async flush() {
          await recordResponse(thread, collector.content, collector.usage, collector.meta)
        },
      })
      return { ...result, stream: result.stream.pipeThrough(tap) }
    },
  }
}
