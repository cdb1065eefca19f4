/**
 * `@strata-memory/core/prompt-summarizer`: an LLM summarizer from one `complete` function, with
 * Strata's summary prompt and the parser of its sectioned answer. Each adapter builds its summarizer on
 * it; an app on an adapter never imports this. Kept off the root so that an app importing
 * `createMemory` does not carry the prompt texts.
 */
export type { CompleteInput, PromptSummarizerOptions, Summarizer } from '../summarizers'
export { promptSummarizer } from '../summarizers'
