export {
  StrataChatMessageHistory,
  type StrataChatMessageHistoryOptions,
} from './history/strata-chat-message-history'
export {
  type CoreMessage,
  fromLangChainMessage,
} from './messages/from-langchain'
export type { LangChainMessageMeta, LangChainPartMeta } from './messages/langchain-meta'
export {
  type StrataKwargs,
  type StrataMessageKind,
  type ToLangChainOptions,
  toLangChainMessage,
  toLangChainMessages,
} from './messages/to-langchain'
export { type DeleteAgentThreadOptions, deleteAgentThread } from './middleware/delete-agent-thread'
export {
  type StrataHoldOptions,
  type StrataMiddlewareOptions,
  strataMiddleware,
} from './middleware/strata-middleware'
export { type MemoryTransitionEvent, memoryTransitionEvent } from './middleware/transitions'
export {
  type StrataGraphStore,
  type StrataGraphStoreOptions,
  strataGraphStore,
} from './store/strata-graph-store'
export {
  type LangchainSummarizerOptions,
  langchainSummarizer,
  SUMMARIZER_TAGS,
} from './summarizer/langchain-summarizer'
export { memoryToolSchemas } from './tools/memory-tool-schemas'
export { type StrataToolsOptions, strataTools } from './tools/strata-tools'
export { langchainTracing, STRATA_RUN_TAG } from './tracing/tracer'
