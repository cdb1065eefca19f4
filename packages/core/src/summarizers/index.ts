export { type PatternSummarizerOptions, patternSummarizer } from './pattern-summarizer'
export {
  type CompleteInput,
  type PromptSummarizerOptions,
  promptSummarizer,
} from './prompt-summarizer'
export type { SummarizedFact, SummarizeOptions, SummarizeResult, Summarizer } from './summarizer'
export { type SummarizerFailureReason, type WithTimeoutOptions, withTimeout } from './with-timeout'
