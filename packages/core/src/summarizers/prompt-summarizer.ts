import { invalidOptions, shownValue } from '../errors'
import type { Item } from '../items'
import type { SummarizeOptions, SummarizeResult, Summarizer } from './summarizer'
import { buildSummaryPrompt, DEFAULT_MAX_FACTS, parseSummaryResponse } from './summary-prompt'
import { withTimeout } from './with-timeout'

/** What {@link PromptSummarizerOptions.complete} receives. */
export interface CompleteInput {
  /** The rules and the output format. */
  system: string
  /** The tier, the previous summary and the rendered items. */
  prompt: string
  /** Aborts on the caller's signal or the time-out; pass it to the model call. */
  signal: AbortSignal
}

/** Options of {@link promptSummarizer}. */
export interface PromptSummarizerOptions {
  /** A short name for status and events, e.g. `'ai-sdk:gpt-4o-mini'`. */
  name: string
  /** Sends the prompt to a model and resolves with its text answer. */
  complete: (input: CompleteInput) => Promise<string>
  /**
   * Milliseconds before the model call is aborted and the summary fails (`Infinity`: never).
   * @default 60_000
   */
  timeoutMs?: number
  /**
   * The most facts asked for and kept.
   * @default 8
   */
  maxFacts?: number
}

/**
 * An LLM summarizer from one `complete` function: builds Strata's prompt ({@link buildSummaryPrompt}),
 * calls the model, and parses the sectioned answer ({@link parseSummaryResponse}). Time-outs, aborts
 * and failures reject with `STRATA_SUMMARIZER_FAILED` (see {@link withTimeout}), so compaction leaves
 * the log untouched and retries later. Each adapter builds its summarizer on this.
 *
 * @example
 * const summarizer = promptSummarizer({
 *   name: 'my-model',
 *   complete: async ({ system, prompt, signal }) => (await model.generate({ system, prompt, signal })).text,
 * })
 */
export function promptSummarizer({
  name,
  complete,
  timeoutMs = 60_000,
  maxFacts = DEFAULT_MAX_FACTS,
}: PromptSummarizerOptions): Summarizer {
  if (typeof complete !== 'function') {
    invalidOptions(
      'promptSummarizer(): complete must be a function that sends { system, prompt, signal } to a model.',
      { name },
    )
  }
  if (!Number.isInteger(maxFacts) || maxFacts < 0) {
    invalidOptions(
      `promptSummarizer(): maxFacts must be a whole number of at least 0 (got ${shownValue(maxFacts)}).`,
      { maxFacts },
    )
  }
  const inner: Summarizer = {
    name,
    async summarize(items: readonly Item[], options: SummarizeOptions): Promise<SummarizeResult> {
      const { system, prompt } = buildSummaryPrompt(items, { ...options, maxFacts })
      // withTimeout always passes a signal; the fallback only satisfies the type.
      const signal = options.signal ?? new AbortController().signal
      const text = await complete({ system, prompt, signal })
      return parseSummaryResponse(text, { maxFacts })
    },
  }
  return withTimeout(inner, { timeoutMs })
}
