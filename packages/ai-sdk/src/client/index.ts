export { type StrataChatRequestBody, sendLastMessage } from './send-last-message'
export { type StrataErrorInfo, strataErrorFromResponse } from './strata-error-from-response'
