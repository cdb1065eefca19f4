import type { MessageList } from '@mastra/core/agent/message-list'
import type {
  ProcessLLMRequestArgs,
  ProcessLLMRequestResult,
  ProcessOutputResultArgs,
  ProcessOutputStepArgs,
  Processor,
} from '@mastra/core/processors'
import type { RequestContext } from '@mastra/core/request-context'
import type { HistoryMode, Thread } from '@strata-memory/core'
import { fromPromptMessage, type MastraPrompt, toPrompt } from '../messages/prompt-messages'
import { stepMessage } from '../messages/step-message'

/** The request-context key that marks Strata's own model calls (the summarizer's): nothing of them is stored. */
export const INTERNAL_CALL_KEY = 'strata.internal'

/** What the processor needs from the memory that owns it. */
export interface ProcessorHost {
  /** The Strata thread of a run, from Mastra's memory context; undefined for a run without a thread. */
  threadOf(requestContext: RequestContext | undefined): Promise<Thread | undefined>
  /** The level whose context is sent; undefined: the thread's current level. */
  level: string | undefined
  /** The thread's system prompt, first in its context. */
  system: string | undefined
  /** What the first step's messages hold. */
  history: HistoryMode
  /** Marks a thread as being written by a run (so `saveMessages` leaves it to the processor). */
  running(threadId: string, delta: 1 | -1): void
}

/** What the processor remembers of one agent run, in Mastra's per-request processor state. */
interface RunState {
  /** How many conversation messages of the run's prompt are stored. */
  stored?: number
  /** The run's Strata thread id, once known (for `running`). */
  threadId?: string
}

const isInternal = (requestContext: RequestContext | undefined) =>
  requestContext?.get(INTERNAL_CALL_KEY) === true

const conversationOf = (prompt: MastraPrompt) => prompt.filter((message) => message.role !== 'system')

/** A provider count Strata takes: a non-negative integer, or nothing. */
const count = (value: unknown) =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined

/**
 * The one writer of a `StrataMemory` thread, as an input and output processor of the agent:
 *
 * - `processLLMRequest` (each step): stores the prompt's messages the thread has not stored (the
 *   run's input at the first step, then the previous step's tool results), and replaces the prompt
 *   with the thread's context. The message list Mastra keeps is untouched: what Mastra returns is
 *   what happened.
 * - `processOutputStep` (after each model response, before its tools run): stores the response (text,
 *   reasoning, tool calls), then reports the step's own input tokens (not the run's sum).
 * - `processOutputResult`: stores what the last step left (the results of a loop cut off by
 *   `maxSteps`).
 */
export class StrataProcessor implements Processor<'strata-memory'> {
  readonly id = 'strata-memory'
  readonly name = 'Strata memory'
  readonly #host: ProcessorHost

  constructor(host: ProcessorHost) {
    this.#host = host
  }

  async processLLMRequest({
    prompt,
    requestContext,
    state,
    stepNumber,
  }: ProcessLLMRequestArgs): Promise<ProcessLLMRequestResult> {
    if (isInternal(requestContext)) return undefined
    const thread = await this.#host.threadOf(requestContext)
    if (thread === undefined) return undefined
    const run = state as RunState
    if (run.threadId === undefined) {
      run.threadId = thread.id
      this.#host.running(thread.id, 1)
    }
    await this.#store(thread, conversationOf(prompt), run, stepNumber === 0)
    const context = await thread.context({
      ...(this.#host.level === undefined ? {} : { level: this.#host.level }),
      ...(this.#host.system === undefined ? {} : { system: this.#host.system }),
    })
    const system = prompt.filter((message) => message.role === 'system')
    return { prompt: [...system, ...toPrompt(context.messages)] }
  }

  async processOutputStep({
    usage,
    state,
    requestContext,
    messageList,
    steps,
    stepNumber,
    toolCalls,
    text,
  }: ProcessOutputStepArgs): Promise<MessageList> {
    const run = state as RunState
    if (isInternal(requestContext) || run.stored === undefined) return messageList
    const thread = await this.#host.threadOf(requestContext)
    if (thread === undefined) return messageList
    // Stored before its tools run, as the model gave it: a scope tool's call stands before the scope
    // it opens or closes, and the next step's prompt finds it stored.
    const message = stepMessage(steps[stepNumber], toolCalls, text)
    if (message !== undefined) {
      await thread.append(message)
      run.stored += 1
    }
    const inputTokens = count(usage?.inputTokens)
    const outputTokens = count(usage?.outputTokens)
    if (inputTokens !== undefined) {
      await thread.reportUsage({ inputTokens, ...(outputTokens === undefined ? {} : { outputTokens }) })
    }
    return messageList
  }

  async processOutputResult({
    messageList,
    requestContext,
    state,
  }: ProcessOutputResultArgs): Promise<MessageList> {
    const run = state as RunState
    if (isInternal(requestContext)) return messageList
    try {
      const thread = await this.#host.threadOf(requestContext)
      if (thread === undefined) return messageList
      const prompt = await messageList.get.all.aiV5.llmPrompt()
      await this.#store(thread, conversationOf(prompt), run, run.stored === undefined)
    } finally {
      if (run.threadId !== undefined) this.#host.running(run.threadId, -1)
      run.threadId = undefined
    }
    return messageList
  }

  /** Stores what follows the stored part of the run's conversation. */
  async #store(thread: Thread, conversation: MastraPrompt, run: RunState, first: boolean) {
    const stored = first ? 0 : (run.stored ?? 0)
    const fresh = conversation.slice(stored)
    if (first) {
      await thread.appendUnseen(fresh as Exclude<MastraPrompt[number], { role: 'system' }>[], {
        history: this.#host.history,
        toMessage: fromPromptMessage,
      })
    } else if (fresh.length > 0) {
      await thread.append(fresh.map((message) => fromPromptMessage(message as never)))
    }
    run.stored = conversation.length
  }
}
