import type { Item, SummaryTier } from '../items'

/** What a summarizer is asked for. */
export interface SummarizeOptions {
  /** Which summary is being written. */
  tier: SummaryTier
  /** The summary this one extends or replaces, when there is one. */
  previousSummary?: string
  /** Aborts a running summary (time-out, shutdown). */
  signal?: AbortSignal
  /**
   * Facts the thread already holds (and recalls into every context): an LLM summarizer should not
   * extract them again. A re-extracted one is still stored once (compared ignoring case and spacing).
   */
  knownFacts?: readonly string[]
  /** For scope summaries: the scope's title and how it ended. */
  scope?: { title?: string; level: string; outcome: 'complete' | 'cancelled' | 'aborted' }
}

/** A semantic fact a summarizer extracted. */
export interface SummarizedFact {
  text: string
  tags?: string[]
  /** 0..1 */
  confidence?: number
  /** 0..1 */
  salience?: number
}

/** What a summarizer returns. */
export interface SummarizeResult {
  summary: string
  facts: SummarizedFact[]
}

/**
 * Turns items into a summary (and optionally facts). The pattern summarizer is the offline default;
 * each adapter ships an LLM summarizer on its framework's model type.
 */
export interface Summarizer {
  /** A short name for status and events. */
  readonly name: string
  summarize(items: readonly Item[], options: SummarizeOptions): Promise<SummarizeResult>
}
