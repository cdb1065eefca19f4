export { type PatternSummarizerOptions, patternSummarizer } from './pattern-summarizer'
export {
  type CompleteInput,
  type PromptSummarizerOptions,
  promptSummarizer,
} from './prompt-summarizer'
export type { SummarizedFact, SummarizeOptions, SummarizeResult, Summarizer } from './summarizer'
export {
  buildSummaryPrompt,
  type ParseSummaryOptions,
  parseSummaryResponse,
  SUMMARY_SECTIONS,
  type SummaryPrompt,
  type SummaryPromptOptions,
} from './summary-prompt'
export { type SummarizerFailureReason, type WithTimeoutOptions, withTimeout } from './with-timeout'
