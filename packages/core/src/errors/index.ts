export { invalidOptions, shownValue } from './invalid-options'
export { StrataError, type StrataErrorCode, type StrataErrorOptions } from './strata-error'
export type { StrataErrorDetails } from './strata-error-details'
