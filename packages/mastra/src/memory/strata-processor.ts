import type { MessageList } from '@mastra/core/agent/message-list'
import type {
  ProcessInputArgs,
  ProcessInputResult,
  ProcessInputStepArgs,
  ProcessLLMRequestArgs,
  ProcessLLMRequestResult,
  ProcessOutputResultArgs,
  ProcessOutputStepArgs,
  ProcessOutputStreamArgs,
  Processor,
} from '@mastra/core/processors'
import type { RequestContext } from '@mastra/core/request-context'
import type { HistoryMode, Thread, TransitionEvent } from '@strata-memory/core'
import { markRequestFailed, notContinuing } from '@strata-memory/core/adapter-kit'
import { strataErrorOf } from '../errors/strata-error-of'
import { type MemoryTransitionData, memoryTransitionData } from '../messages/db-messages'
import {
  type ConversationMessage,
  fromPromptMessage,
  type MastraPrompt,
  toPrompt,
} from '../messages/prompt-messages'
import { stepMessage } from '../messages/step-message'
import { capMessages } from './last-messages'
import { inputIds, responseId, withMastraId } from './mastra-ids'
import { conversationOf, count, inProcessorSpan } from './processor-kit'
import { holdThread } from './request-hold'
import { contextText, type RunContext, runContextOf, withContext, withoutContext } from './run-context'
import { flushTransitions, type RunState, requestText } from './run-state'
import { responseFormatText, toolDefinitionsText } from './tool-definitions'

/** The request-context key that marks Strata's own model calls (the summarizer's): nothing of them is stored. */
export const INTERNAL_CALL_KEY = 'strata.internal'

/** What the processor needs from the memory that owns it. */
export interface ProcessorHost {
  /** The Strata thread of a run, from Mastra's memory context; undefined for a run without a thread. */
  threadOf(requestContext: RequestContext | undefined): Promise<Thread | undefined>
  /** Whether the run reads memory only (Mastra's `readOnly`, the memory's or the call's): it stores nothing. */
  readOnly(requestContext: RequestContext | undefined): boolean
  /** Why the run's memory options cannot be honoured (an option Strata does not take), or undefined. */
  refusedOptions(requestContext: RequestContext | undefined): unknown
  /**
   * The working memory's system message for the run (what it holds, how to keep it), or undefined
   * when it is off; `readOnly`: shown, not to be changed.
   */
  workingMemory(
    requestContext: RequestContext | undefined,
    readOnly: boolean,
    thread: Thread,
  ): Promise<string | undefined>
  /**
   * Mastra's semantic recall for the run's request (its text): a system message of the best matches
   * with their neighbours, or undefined when recall is off or nothing matched.
   */
  recall(
    thread: Thread,
    requestContext: RequestContext | undefined,
    request: string,
  ): Promise<string | undefined>
  /** Mastra's `lastMessages` for the run: the most history messages shown before the request, or undefined. */
  lastMessages(requestContext: RequestContext | undefined): number | undefined
  /** Binds the run's thread to its resource, after the request is stored (a refused one binds nothing). */
  bind(thread: Thread, requestContext: RequestContext | undefined): Promise<void>
  /** The level whose context is sent; undefined: the thread's current level. */
  level: string | undefined
  /** The thread's system prompt, first in its context. */
  system: string | undefined
  /** What the first step's messages hold. */
  history: HistoryMode
  /**
   * Marks Mastra messages as a run's (`true`), as a finished run's that stored its request
   * (`'stored'`), or lets them go (`false`): `saveMessages` leaves a run's messages to the processor,
   * so Mastra's own saves during the run, and after it, store nothing twice.
   */
  claim(messageIds: Iterable<string>, claimed: boolean | 'stored', suspended?: () => void): void
  /** Listens to the memory's transitions; returns the function that stops listening. */
  onTransition(listener: (event: TransitionEvent) => void): () => void
  /** The lease time of a request's hold on its thread; undefined: core's default. */
  holdTtlMs: number | undefined
  /** A run took (`true`) or gave back (`false`) its hold on the thread: the memory's own writes wait. */
  held(strataThreadId: string, held: boolean): void | Promise<void>
  /** A run stored messages in the thread: its Mastra record's `updatedAt` moves. */
  stored(strataThreadId: string): Promise<void>
}

/** What the result phase needs: Mastra's result-phase arguments, or a stream part's (no result, maybe no message list). */
type ResultPhaseArgs = Pick<ProcessOutputResultArgs, 'requestContext' | 'state' | 'writer'> & {
  messageList?: MessageList | undefined
  result?: ProcessOutputResultArgs['result'] | undefined
}

const isInternal = (requestContext: RequestContext | undefined) =>
  requestContext?.get(INTERNAL_CALL_KEY) === true

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

  /**
   * The request takes its thread before anything is stored: one request at a time per thread. A
   * second one is refused (a `MastraError` with id `STRATA_THREAD_BUSY`, the `StrataError` as cause).
   */
  processInput(args: ProcessInputArgs): Promise<ProcessInputResult> {
    return inProcessorSpan(args, async () => {
      const { requestContext, state, messageList, abortSignal } = args
      if (isInternal(requestContext)) return messageList
      const thread = await this.#host.threadOf(requestContext)
      if (thread === undefined) return messageList
      const refusedOptions = this.#host.refusedOptions(requestContext)
      if (refusedOptions !== undefined) {
        ;(state as RunState).refused = refusedOptions
        return messageList
      }
      // The thread is taken at the first step, before anything is stored: an input processor after
      // this one that aborts the run (a guardrail's `abort()`) ends it with no later phase to give the
      // thread back. A refusal thrown there keeps its type (Mastra passes on processInput's as a message).
      ;(state as RunState).abortSignal = abortSignal
      return messageList
    })
  }

  /** Notes the tools and the output schema the step sends: the provider counts them as input. */
  processInputStep({ tools, activeTools, structuredOutput, state }: ProcessInputStepArgs): undefined {
    ;(state as RunState).toolDefinitions = [
      toolDefinitionsText(tools, activeTools),
      responseFormatText(structuredOutput),
    ]
      .filter((text) => text.length > 0)
      .join('\n')
    return undefined
  }

  processLLMRequest(args: ProcessLLMRequestArgs): Promise<ProcessLLMRequestResult> {
    return inProcessorSpan(args, () => this.#failing(args.state, () => this.#llmRequest(args)))
  }

  processOutputStep(args: ProcessOutputStepArgs): Promise<MessageList> {
    return inProcessorSpan(args, () => this.#failing(args.state, () => this.#outputStep(args)))
  }

  /**
   * A tool call waiting for approval (`requireApproval`) ends the request there, without a result
   * phase: its hold ends with it, as a suspended tool's does (Mastra saves the run's messages then:
   * see `RunMessageIds.saved`). The resumed request takes the thread again at its first step.
   */
  async processOutputStream(args: ProcessOutputStreamArgs): Promise<ProcessOutputStreamArgs['part']> {
    const { part, state } = args
    if (part.type === 'tool-call-approval' || part.type === 'tool-call-suspended') {
      await this.#release(state as RunState)
    }
    // Mastra reports a failed model call (generate or stream) as an `error` part, then ends the run
    // with finish reason 'error'. The part reaches the app (a stream's `text` rejects) before Mastra's
    // result phase runs: the run ends here, so that an app retrying at once finds the request marked
    // failed and the thread free, not busy.
    if (part.type === 'error') {
      const run = state as RunState
      run.modelError = { error: part.payload.error }
      await inProcessorSpan(args, () => this.#outputResult(args))
      run.ended = true
    }
    return part
  }

  processOutputResult(args: ProcessOutputResultArgs): Promise<MessageList> {
    const run = args.state as RunState
    if (run.ended === true) {
      run.ended = undefined
      return Promise.resolve(args.messageList)
    }
    return inProcessorSpan(args, async () => {
      await this.#outputResult(args)
      return args.messageList
    })
  }

  async #llmRequest({
    prompt,
    requestContext,
    state,
    stepNumber,
    writer,
    messageList,
  }: ProcessLLMRequestArgs): Promise<ProcessLLMRequestResult> {
    if (isInternal(requestContext)) return undefined
    const thread = await this.#host.threadOf(requestContext)
    if (thread === undefined) return undefined
    const run = state as RunState
    if (run.refused !== undefined) throw run.refused
    if (this.#host.readOnly(requestContext))
      return this.#readOnlyRequest(thread, prompt, requestContext, await runContextOf(messageList))
    run.ended = undefined
    // The run takes its thread here, at its first step (see processInput), or again when resumed.
    await this.#hold(run, thread, run.abortSignal)
    const runContext = await this.#runContext(run, messageList)
    this.#claim(run, messageList)
    if (run.threadId === undefined) {
      run.threadId = thread.id
      const transitions: MemoryTransitionData[] = []
      run.transitions = transitions
      run.stopListening = this.#host.onTransition((event) => {
        if (event.threadId === thread.id) transitions.push(memoryTransitionData(event.transition))
      })
    }
    await flushTransitions(run, writer)
    const system = await this.#systemOf(prompt, requestContext, false, thread, run)
    // What the provider receives besides the context: the agent's instructions and the step's tool
    // definitions. Under a budget they take their share.
    const alongside = [
      ...system.map((message) => (message.role === 'system' ? message.content : '')),
      run.toolDefinitions ?? '',
      contextText(runContext),
    ]
      .filter((text) => text.length > 0)
      .join('\n\n')
    // A run resumed after a tool approval starts past its first step with nothing stored yet: its
    // prompt holds the conversation the thread has stored up to the approved call. A first step that
    // Mastra runs again (an error processor retrying a failed model call) has stored its request
    // already: it is not the run's first store.
    // Bound before anything is stored: a thread another app bound to another resource is refused
    // (core's STRATA_INVALID_OPTIONS) with the request unstored.
    if (!run.requestStored) await this.#host.bind(thread, requestContext)
    await this.#store(
      thread,
      withoutContext(conversationOf(prompt), runContext),
      run,
      (stepNumber === 0 && !run.requestStored) || run.stored === undefined,
      alongside,
      // A run resumed in another process (an approval, a suspended tool) starts past its first step:
      // its prompt holds what the thread stored before it stopped.
      stepNumber > 0 ? 'auto' : undefined,
      inputIds(messageList),
    )
    run.requestStored = true
    const context = await thread.context({
      ...(this.#host.level === undefined ? {} : { level: this.#host.level }),
      ...(this.#host.system === undefined ? {} : { system: this.#host.system }),
      ...(alongside === '' ? {} : { alongside }),
    })
    const cap = this.#host.lastMessages(requestContext)
    return { prompt: [...system, ...withContext(capMessages(toPrompt(context.messages), cap), runContext)] }
  }

  async #outputStep({
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
    this.#claim(run, messageList)
    const thread = await this.#host.threadOf(requestContext)
    if (thread === undefined) return messageList
    // Stored before its tools run, as the model gave it: a scope tool's call stands before the scope
    // it opens or closes, and the next step's prompt finds it stored.
    const message = stepMessage(steps[stepNumber], toolCalls, text)
    if (message !== undefined) {
      await thread.append(withMastraId(message, responseId(run, messageList)))
      run.stored += 1
    }
    const inputTokens = count(usage?.inputTokens)
    const outputTokens = count(usage?.outputTokens)
    if (inputTokens !== undefined) {
      await thread.reportUsage({ inputTokens, ...(outputTokens === undefined ? {} : { outputTokens }) })
    }
    return messageList
  }

  /** The result phase: what the last step left, the transitions, a failure's mark, the thread's release. */
  async #outputResult({
    messageList,
    requestContext,
    state,
    writer,
    result,
  }: ResultPhaseArgs): Promise<void> {
    const run = state as RunState
    // A refused run stores nothing, also here; so does a read-only one.
    if (isInternal(requestContext) || run.refused !== undefined || this.#host.readOnly(requestContext)) return
    const requestStored = run.stored !== undefined
    try {
      const thread = await this.#host.threadOf(requestContext)
      if (thread === undefined) return
      // A stream's `error` part may come without the message list: then nothing is left to store.
      if (messageList !== undefined) {
        const prompt = await messageList.get.all.aiV5.llmPrompt()
        const runContext = await this.#runContext(run, messageList)
        this.#claim(run, messageList)
        await this.#store(
          thread,
          withoutContext(conversationOf(prompt), runContext),
          run,
          run.stored === undefined,
        )
      }
      await flushTransitions(run, writer)
      if (run.stored !== undefined && run.stored > 0) await this.#host.stored(thread.id)
      // A model call that failed after the request was stored: marked while the run holds the thread.
      // A Strata refusal is not a model failure (it stored nothing).
      const failed = result?.finishReason === 'error' || run.modelError !== undefined
      if (failed && requestStored && strataErrorOf(run.modelError?.error) === undefined) {
        await markRequestFailed(thread, run.modelError?.error)
      }
    } finally {
      run.modelError = undefined
      if (run.messageIds !== undefined) this.#host.claim(run.messageIds, requestStored ? 'stored' : false)
      // A run that goes on after its error part (a retried model call) claims its messages again.
      run.messageIds = undefined
      run.stopListening?.()
      run.threadId = undefined
      run.stopListening = undefined
      await this.#release(run)
    }
  }

  /**
   * A read-only step's prompt: the thread's context, then the run's messages the thread has not
   * stored (its input, its earlier steps), which take their share of the budget. Nothing is written.
   */
  async #readOnlyRequest(
    thread: Thread,
    prompt: MastraPrompt,
    requestContext: RequestContext | undefined,
    runContext: RunContext,
  ): Promise<ProcessLLMRequestResult> {
    const system = await this.#systemOf(prompt, requestContext, true, thread, {})
    const conversation = withoutContext(conversationOf(prompt), runContext) as ConversationMessage[]
    const { history } = this.#host
    // Told from the stored tail even for 'new': a read-only call Mastra makes inside a run (structured
    // output with `useAgent`) re-sends the run's input, which the run has stored. Only the compared
    // tail is read (a long thread's open sealed the rest), as appendUnseen reads it.
    const mode = history === 'full' ? 'full' : 'auto'
    const { unseen: fresh, aligned } = await thread.unseen(conversation, {
      history: mode,
      toMessage: fromPromptMessage,
    })
    // Refused as a writing request refuses it: showing such a list after the context would show the
    // stored conversation twice.
    if (!aligned) throw notContinuing(thread.id, mode, true)
    const alongside = [
      ...system.map((message) => (message.role === 'system' ? message.content : '')),
      ...fresh.map((message) => JSON.stringify(message.content)),
      contextText(runContext),
    ]
      .filter((text) => text.length > 0)
      .join('\n\n')
    const context = await thread.context({
      ...(this.#host.level === undefined ? {} : { level: this.#host.level }),
      ...(this.#host.system === undefined ? {} : { system: this.#host.system }),
      ...(alongside === '' ? {} : { alongside }),
    })
    const cap = this.#host.lastMessages(requestContext)
    const shown = capMessages([...toPrompt(context.messages), ...fresh], cap)
    return { prompt: [...system, ...withContext(shown, runContext)] }
  }

  /**
   * The prompt's system messages (the agent's instructions), then the working memory's and the
   * semantic recall's, when they are on (the recall computed once per request).
   */
  async #systemOf(
    prompt: MastraPrompt,
    requestContext: RequestContext | undefined,
    readOnly: boolean,
    thread: Thread,
    run: RunState,
  ) {
    const system = prompt.filter((message) => message.role === 'system')
    const request = requestText(prompt)
    if (run.recalled?.request !== request) {
      run.recalled = { request, text: await this.#host.recall(thread, requestContext, request) }
    }
    const working = await this.#host.workingMemory(requestContext, readOnly, thread)
    const added = [working, run.recalled.text].filter((text) => text !== undefined)
    return [...system, ...added.map((content) => ({ role: 'system' as const, content }))]
  }

  /** Takes the run's hold on its thread, once; an aborted run gives it back. */
  async #hold(run: RunState, thread: Thread, abortSignal: AbortSignal | undefined): Promise<void> {
    if (run.hold !== undefined) {
      await run.hold
      return
    }
    run.hold = holdThread(thread, this.#host.holdTtlMs)
    try {
      await run.hold
    } catch (error) {
      run.hold = undefined
      throw error
    }
    run.heldThreadId = thread.id
    this.#host.held(thread.id, true)
    abortSignal?.addEventListener('abort', () => void this.#release(run), { once: true })
  }

  /** Ends the run's hold (its last write is done, or it failed); a later step takes it again. */
  async #release(run: RunState): Promise<void> {
    const { hold, heldThreadId } = run
    run.hold = undefined
    run.heldThreadId = undefined
    await (await hold?.catch(() => undefined))?.release()
    if (heldThreadId !== undefined) await this.#host.held(heldThreadId, false)
  }

  /** Runs a step's work; when it throws, the run dies: its thread is given back. */
  async #failing<T>(state: Record<string, unknown>, work: () => Promise<T>): Promise<T> {
    try {
      return await work()
    } catch (error) {
      await this.#release(state as RunState)
      throw error
    }
  }

  /** The run's context messages (see `RunContext`), read once. */
  async #runContext(run: RunState, messageList: MessageList | undefined): Promise<RunContext> {
    run.context ??= await runContextOf(messageList)
    return run.context
  }

  /** Claims the run's messages Mastra may save itself while the run goes on. */
  #claim(run: RunState, messageList: MessageList | undefined) {
    if (messageList === undefined) return
    run.messageIds ??= new Set()
    const fresh = messageList.get.all
      .db()
      .map((message) => message.id)
      .filter((id) => !run.messageIds!.has(id) && !run.context?.ids.has(id))
    for (const id of fresh) run.messageIds.add(id)
    this.#host.claim(fresh, true, () => void this.#release(run))
  }

  /**
   * Stores what follows the stored part of the run's conversation. The request (the run's first
   * store) is refused with `STRATA_BUDGET_EXCEEDED`, storing nothing, when it cannot fit the budget
   * beside what is sent `alongside`; a later step's tool results are stored as they come (the fit
   * cuts them, and a refusal there would leave their calls unanswered).
   */
  async #store(
    thread: Thread,
    conversation: MastraPrompt,
    run: RunState,
    first: boolean,
    alongside = '',
    mode?: HistoryMode,
    userIds: readonly string[] = [],
  ) {
    const stored = first ? 0 : (run.stored ?? 0)
    const fresh = conversation.slice(stored)
    if (first) {
      const system = this.#host.system
      // After a failed request (its mark may be another process's), a 'new' run re-sending its
      // message is told from a new message as 'auto' does, so the retry stores it once.
      const { history } = this.#host
      const retry = history === 'new' && (await thread.failures()).length > 0
      // The request's user messages carry their Mastra ids: Mastra saves them again itself at times.
      const users = fresh.filter((message) => message.role === 'user')
      const ids = new Map<unknown, string | undefined>(
        users.map((message, index) => [message, userIds[index]]),
      )
      const toMessage = (message: ConversationMessage) =>
        withMastraId(fromPromptMessage(message), ids.get(message))
      await thread.appendUnseen(fresh as ConversationMessage[], {
        history: mode ?? (retry ? 'auto' : history),
        toMessage,
        fit: { ...(system === undefined ? {} : { system }), ...(alongside === '' ? {} : { alongside }) },
      })
    } else if (fresh.length > 0) {
      await thread.append(fresh.map((message) => fromPromptMessage(message as never)))
    }
    run.stored = conversation.length
  }
}
