import { type BaseMessage, RemoveMessage } from '@langchain/core/messages'

/** What the agent's graph state keeps of a thread (see `StrataMiddlewareOptions.state`). */
export type StateMode = 'full' | 'compact'

export const STATE_MODES: readonly StateMode[] = ['full', 'compact']

/**
 * The id of a `RemoveMessage` that clears LangGraph's messages channel before the messages that follow
 * it in the same update (LangGraph's `REMOVE_ALL_MESSAGES`; `@langchain/langgraph` is not a peer of
 * this package, so its value is written here).
 */
const REMOVE_ALL_MESSAGES = '__remove_all__'

/** How many threads' shown messages are kept waiting for their `afterModel` hook (a bound, not a knob). */
const MAX_PENDING = 10_000

/** What one model call was shown, and which of the state's messages its request held. */
interface Shown {
  messages: BaseMessage[]
  requestIds: Set<string>
}

/**
 * The messages each thread's last model call was shown (what this middleware handed the model, its
 * system message aside), from `wrapModelCall` to the `afterModel` hook of the same step. One request
 * holds a thread at a time, so one entry per thread.
 */
export class ShownMessages {
  readonly #threads = new Map<string, Shown>()

  /** The model call of `threadId` was sent `shown` for a request whose messages were `request`. */
  record(threadId: string, request: readonly BaseMessage[], shown: readonly BaseMessage[]): void {
    const requestIds = new Set<string>()
    for (const message of request) if (typeof message.id === 'string') requestIds.add(message.id)
    this.#threads.delete(threadId)
    this.#threads.set(threadId, { messages: [...shown], requestIds })
    if (this.#threads.size > MAX_PENDING) this.#threads.delete(this.#threads.keys().next().value!)
  }

  /** What the last model call of `threadId` was shown, once (undefined when none is waiting). */
  take(threadId: string): Shown | undefined {
    const shown = this.#threads.get(threadId)
    this.#threads.delete(threadId)
    return shown
  }

  forget(threadId: string): void {
    this.#threads.delete(threadId)
  }
}

/**
 * The state update of `state: 'compact'` after a model call: the state's messages become what the
 * model was shown (the thread's context: citations for offloaded results, summaries for compacted
 * turns), followed by what the step added after the request (the answer, as other middlewares left
 * it: an edited tool call, a structured response's messages). Through LangGraph's own reducer: a
 * `RemoveMessage` of every message, then the new list, so the checkpoint holds no more than the prompt.
 */
export function compactStateUpdate(shown: Shown, state: readonly BaseMessage[]): { messages: BaseMessage[] } {
  const added = state.filter((message) => typeof message.id !== 'string' || !shown.requestIds.has(message.id))
  return { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...shown.messages, ...added] }
}

/**
 * Whether a message of the state is one this middleware built from the thread's context (it carries
 * `additional_kwargs.memory_level`, which only such messages do): under `state: 'compact'` the state
 * holds them in place of what was stored, so they are the thread's own and are not compared with it.
 */
export function isShownMessage(message: BaseMessage): boolean {
  const kwargs = message.additional_kwargs as Record<string, unknown> | undefined
  return kwargs !== undefined && kwargs !== null && typeof kwargs.memory_level === 'string'
}
