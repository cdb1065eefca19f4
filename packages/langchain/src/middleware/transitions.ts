import type { Memory, TransitionEvent } from '@strata-memory/core'
import {
  type TransitionEventData,
  transitionEventData,
  withThreadTransitions,
} from '@strata-memory/core/adapter-kit'

/**
 * What a transition writes to LangGraph's custom stream (`streamMode: 'custom'`): the transition's id,
 * thread, levels, reason, title, user-facing text (`null` when hidden from people), the scope summary
 * that replaces the scope and the transition item's seq (core's `TransitionEventData`).
 */
export interface MemoryTransitionEvent extends TransitionEventData {
  type: 'memory-transition'
}

/** A transition event as the custom stream event {@link MemoryTransitionEvent}. */
export function memoryTransitionEvent(event: TransitionEvent): MemoryTransitionEvent {
  return { type: 'memory-transition', ...transitionEventData(event) }
}

/** Runs `work` while the thread's transitions are written to `writer` (when there is one). */
export async function withTransitions<T>(
  memory: Memory,
  threadId: string,
  writer: ((chunk: unknown) => void) | undefined,
  work: () => Promise<T>,
): Promise<T> {
  if (typeof writer !== 'function') return work()
  return withThreadTransitions(memory, threadId, (event) => writer(memoryTransitionEvent(event)), work)
}
