import type { ContextStats } from '../context'
import type { Item, SummaryItem, TransitionItem } from '../items'

/** Emitted when a scope closes: the transition and the scope summary written at the enclosing scope's level. */
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

/** What started a compaction. */
export type CompactionTrigger = 'waterfall' | 'budget' | 'manual'

/** Emitted when a compaction starts. */
export interface CompactionStartEvent {
  threadId: string
  trigger: CompactionTrigger
  /** Tokens of the active log's history before the compaction. */
  tokensBefore: number
}

/** Emitted when a compaction ends, whether it committed, failed or found nothing to do. */
export interface CompactionEndEvent extends CompactionStartEvent {
  /**
   * Tokens after it (equal to `tokensBefore` when nothing changed). Budget and manual compactions count
   * the active log's messages; the waterfall counts what its contexts draw on: the messages it has not
   * summarized yet plus its latest short- and long-term summaries.
   */
  tokensAfter: number
  /** Items moved to the archive. */
  itemsArchived: number
  /** Summary and fact items written. */
  itemsWritten: number
  /** Items the summarizer read (a budget or manual compaction; a memory roll-up's inputs included). */
  itemsRead?: number
  /** Summaries written: the step's episodic one, and a memory roll-up's long-term one. */
  summariesWritten?: number
  /** Fact items written: new facts, and facts a memory roll-up merged. */
  factsWritten?: number
  /** Memory items (summaries and facts the context draws on) in the active log after it. */
  memoryItems?: number
  /**
   * A long first compaction runs as a series of steps, each ending with its own event: the chunks left
   * after this one (absent on the last).
   */
  chunksLeft?: number
  durationMs: number
  /** Set when the compaction did nothing: 'nothing-to-compact', or 'superseded' (another writer compacted first). */
  skipped?: string
  /** What the application should change, e.g. a system prompt that alone fills the budget. */
  warning?: string
  /** The summarizer's failure: the log is untouched and the compaction is tried again later. */
  error?: unknown
  /** After a failure: epoch ms from which automatic compaction tries again (`compaction.retry`). */
  retryAt?: number
  /**
   * The episodic summary a budget or manual compaction wrote, as stored (its seq, and its
   * `compaction` record with the figures above): a chat places the compaction by it.
   */
  summary?: SummaryItem
}

/**
 * Emitted when `thread.rewind()` moved the items after a point to the archive (a regenerated answer,
 * an edited message): a UI can mark the replaced messages; they stay readable in the archive.
 */
export interface RewindEvent {
  threadId: string
  /** Every item with a seq above this one left the active log, except the kept summaries and facts. */
  afterSeq: number
  /** The items moved to the archive, oldest first. */
  archived: Item[]
}

/** Event names and their payloads. */
export interface MemoryEvents {
  transition: TransitionEvent
  context: ContextEvent
  'compaction-start': CompactionStartEvent
  'compaction-end': CompactionEndEvent
  rewind: RewindEvent
}

export type MemoryEventName = keyof MemoryEvents
export type MemoryEventListener<E extends MemoryEventName> = (event: MemoryEvents[E]) => void
