import type { Memory, TransitionEvent } from '@strata-memory/core'

/** What a transition writes to LangGraph's custom stream (`streamMode: 'custom'`). */
export interface MemoryTransitionEvent {
  type: 'memory-transition'
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

/** A transition event as the custom stream event {@link MemoryTransitionEvent}. */
export function memoryTransitionEvent(event: TransitionEvent): MemoryTransitionEvent {
  const { transition } = event
  return {
    type: 'memory-transition',
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

/** Runs `work` while the thread's transitions are written to `writer` (when there is one). */
export async function withTransitions<T>(
  memory: Memory,
  threadId: string,
  writer: ((chunk: unknown) => void) | undefined,
  work: () => Promise<T>,
): Promise<T> {
  if (typeof writer !== 'function') return work()
  const stop = memory.on('transition', (event) => {
    if (event.threadId === threadId) writer(memoryTransitionEvent(event))
  })
  try {
    return await work()
  } finally {
    stop()
  }
}
