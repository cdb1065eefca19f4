import type { MemoryEventListener, MemoryEventName, MemoryEvents } from './memory-events'

/** A minimal typed emitter (core runs in edge runtimes, so no `node:events`). */
export interface MemoryEventEmitter {
  /** Adds a listener; returns a function that removes it. */
  on<E extends MemoryEventName>(event: E, listener: MemoryEventListener<E>): () => void
  emit<E extends MemoryEventName>(event: E, payload: MemoryEvents[E]): void
}

export function createEventEmitter(): MemoryEventEmitter {
  const listeners = new Map<MemoryEventName, Set<(payload: never) => void>>()
  return {
    on(event, listener) {
      let set = listeners.get(event)
      if (set === undefined) {
        set = new Set()
        listeners.set(event, set)
      }
      const entry = listener as (payload: never) => void
      set.add(entry)
      return () => set.delete(entry)
    },
    emit(event, payload) {
      for (const listener of listeners.get(event) ?? []) {
        // A listener's failure must not fail the write that has already happened.
        try {
          ;(listener as (payload: unknown) => void)(payload)
        } catch (error) {
          console.error(`[strata] a '${event}' listener threw:`, error)
        }
      }
    },
  }
}
