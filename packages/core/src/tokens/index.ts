export {
  countMessageTokens,
  countPartTokens,
  MESSAGE_OVERHEAD_TOKENS,
} from './count-message'
export { counterIdentity, sameCounts, type TokenCounter } from './token-counter'
export { type TokenEstimatorOptions, tokenEstimator } from './token-estimator'
