export { type PatternSummarizerOptions, patternSummarizer } from './pattern-summarizer'
export type { SummarizedFact, SummarizeOptions, SummarizeResult, Summarizer } from './summarizer'
