export { strataErrorOf } from './errors/strata-error-of'
export { type StrataMastraOptions, StrataMemory, type StrataMemoryOptions } from './memory/strata-memory'
export { INTERNAL_CALL_KEY } from './memory/strata-processor'
export { type MemoryTransitionData, type StrataMessageMetadata, toDBMessages } from './messages/db-messages'
export {
  fromPromptMessage,
  type MastraPartMeta,
  type MastraPrompt,
  toPrompt,
} from './messages/prompt-messages'
export { type MastraSummarizerOptions, mastraSummarizer } from './summarizer/mastra-summarizer'
export {
  escapeThreadId,
  isHashedThreadId,
  resolveStrataThreadId,
  toStrataThreadId,
  unescapeThreadId,
} from './threads/thread-id-mapping'
export { type MastraThreadRecord, THREAD_STATE_KEY } from './threads/thread-record'
