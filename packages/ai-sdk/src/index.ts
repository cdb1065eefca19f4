export { type StrataChatRequestBody, sendLastMessage } from './client/send-last-message'
export { type StrataErrorInfo, strataErrorFromResponse } from './client/strata-error-from-response'
export {
  type AiSdkPartMeta,
  type CoreMessage,
  fromProviderMessage,
  fromProviderPrompt,
  fromResponseContent,
  type ResponseMeta,
  type SplitPrompt,
  toProviderPrompt,
} from './messages/provider-prompt'
export { readCallOptions, type StrataCallOptions, type ToolApprovalRecord } from './middleware/call-options'
export { type StrataMiddlewareOptions, strataMiddleware } from './middleware/strata-middleware'
export { type ChatRequest, type OpenChatRequestOptions, openChatRequest } from './route/chat-request'
export {
  type StoreFinalToolResultsOptions,
  storeFinalToolResults,
} from './route/final-tool-results'
export { strataErrorResponse, strataErrorStatus, strataOnError } from './route/route-errors'
export { type AiSdkSummarizerOptions, aiSdkSummarizer } from './summarizer/ai-sdk-summarizer'
export {
  memoryToolSchemas,
  type StrataResourceTools,
  type StrataScopeTools,
  type StrataTools,
  type StrataToolsOptions,
  strataTools,
} from './tools/strata-tools'
export type { StrataMiddlewareTelemetry } from './tracing/tracer'
export { type LoadUIMessagesOptions, loadUIMessages } from './ui/load-ui-messages'
export {
  contextStatsMetadata,
  type MemoryCompactionData,
  type MemoryTransitionData,
  memoryCompactionChunk,
  memoryTransitionChunk,
  type StrataDataTypes,
  type StrataFailedRequest,
  type StrataMessageMetadata,
  type StrataUIMessage,
  type WriteMemoryPartsOptions,
  writeMemoryParts,
} from './ui/memory-ui-parts'
export { type WriteMissedTransitionsOptions, writeMissedTransitions } from './ui/missed-transitions'
