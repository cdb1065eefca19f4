export type {
  MemoryCompactionData,
  MemoryTransitionData,
  StrataDataTypes,
  StrataFailedRequest,
  StrataMessageMetadata,
  StrataUIMessage,
} from '../ui/memory-ui-parts'
export { type StrataChatRequestBody, sendLastMessage } from './send-last-message'
export { type StrataErrorInfo, strataErrorFromResponse } from './strata-error-from-response'
