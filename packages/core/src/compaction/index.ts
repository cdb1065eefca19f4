export { type FactLike, isRecalledFact, mergeFacts, normalizeFactText } from '../items/facts'
export { MODEL_LIMITS, type ModelLimits, modelLimits } from './model-limits'
export {
  type AutoTransitionOptions,
  type AutoTransitionPlan,
  type AutoTransitionsOptions,
  type BudgetOptions,
  type BudgetPlan,
  type BudgetPlanOptions,
  type BudgetTurn,
  type CompactionOptions,
  type CompactionUrgency,
  type InputBudgetOptions,
  inputBudget,
  type MiddleLimits,
  type NarrowestLimits,
  planAutoTransition,
  planBudgetCompaction,
  planWaterfall,
  type ResolvedCompaction,
  resolveCompaction,
  type ShouldCompactOptions,
  shouldCompact,
  type WaterfallOptions,
  type WaterfallPlan,
  type WaterfallPlanOptions,
  waterfallTrigger,
} from './policy-registry'
export { type RetryBackoff, type RetryBackoffOptions, retryBackoff } from './retry-backoff'
export {
  renderSnapshot,
  SNAPSHOT_LIMITS,
  type SnapshotInput,
  type SnapshotTurn,
  snapshotTurns,
} from './snapshot'
export { type TurnBoundaries, type TurnSpan, turnBoundaries } from './turn-boundaries'
