import type { ContextStats } from '../context'
import type { SummaryItem, TransitionItem } from '../items'

/** Emitted when a scope closes: the transition and the scope summary written at the parent level. */
export interface TransitionEvent {
  threadId: string
  transition: TransitionItem
  summary: SummaryItem
  /** The title of the closed scope. */
  title: string
  /** The summarizer that wrote the summary (`explicit` when the caller passed one). */
  summarizer: string
  /** Set when the configured summarizer failed and the pattern summarizer stood in. */
  summarizerError?: unknown
}

/** Emitted each time a context is built. */
export interface ContextEvent {
  threadId: string
  level: string
  stats: ContextStats
}

/** Event names and their payloads. */
export interface MemoryEvents {
  transition: TransitionEvent
  context: ContextEvent
}

export type MemoryEventName = keyof MemoryEvents
export type MemoryEventListener<E extends MemoryEventName> = (event: MemoryEvents[E]) => void
