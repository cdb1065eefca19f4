export type {
  AutoTransitionsOptions,
  BudgetOptions,
  CompactionOptions,
  MiddleLimits,
  ModelLimits,
  NarrowestLimits,
  RetryBackoffOptions,
  WaterfallOptions,
} from './compaction'
export { MODEL_LIMITS, modelLimits } from './compaction'
export * from './content'
export * from './context'
export * from './errors'
export * from './events'
export * from './items'
export * from './levels'
export * from './memory'
export type { DivergencePoint, RewindRefusal } from './rewind'
export * from './scopes'
export * from './stores'
export * from './summarizers'
export * from './tokens'
export * from './views'
