import type { TransitionEvent } from '../events'
import type { Memory } from '../memory'

/** A `transition` event in the words of a UI or a framework's stream: a scope closed. */
export interface TransitionEventData {
  /** The transition item's id. */
  id: string
  threadId: string
  /** The level of the closed scope. */
  fromLevel: string
  /** The level the thread returned to. */
  level: string
  /** Why the scope ended (`task-complete`, `cancelled`, `size-limit`, …). */
  reason: string
  /** The title of the closed scope. */
  title: string
  /** The transition's user-facing text (`null` when it is hidden from people). */
  text: string | null
  /** The scope summary that replaces the scope in the broader view. */
  summary: string
  /** The transition item's seq in the thread's log. */
  seq: number
}

/**
 * What a `transition` event tells a UI, flat: every adapter maps it onto its framework's stream part
 * (the AI SDK's `data-memory-transition` chunk, LangGraph's custom stream event) from this.
 *
 * @example
 * memory.on('transition', (event) => writer(transitionEventData(event)))
 */
export function transitionEventData(event: TransitionEvent): TransitionEventData {
  const { transition } = event
  return {
    id: transition.id,
    threadId: event.threadId,
    fromLevel: transition.fromLevel,
    level: transition.level,
    reason: transition.reason,
    title: event.title,
    text: transition.userFacingMessage,
    summary: event.summary.text,
    seq: transition.seq,
  }
}

/**
 * Runs `work` while the `transition` events of one store thread go to `listener`; the listener is
 * removed when the work ends, however it ends.
 */
export async function withThreadTransitions<T>(
  memory: Pick<Memory<string>, 'on'>,
  threadId: string,
  listener: (event: TransitionEvent) => void,
  work: () => Promise<T>,
): Promise<T> {
  const stop = memory.on('transition', (event) => {
    if (event.threadId === threadId) listener(event)
  })
  try {
    return await work()
  } finally {
    stop()
  }
}
