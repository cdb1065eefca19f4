export { type FactLike, isRecalledFact, mergeFacts, normalizeFactText } from '../items/facts'
export {
  type AutoTransitionOptions,
  type AutoTransitionPlan,
  type MiddleLimits,
  type NarrowestLimits,
  planAutoTransition,
} from './auto-transition/auto-transition-plan'
export {
  type BudgetPlan,
  type BudgetPlanOptions,
  type BudgetTurn,
  type CompactionUrgency,
  type InputBudgetOptions,
  inputBudget,
  planBudgetCompaction,
  type ShouldCompactOptions,
  shouldCompact,
} from './budget/budget-plan'
export {
  type AutoTransitionsOptions,
  type BudgetOptions,
  type CompactionOptions,
  type ResolvedCompaction,
  resolveCompaction,
  type WaterfallOptions,
} from './compaction-options'
export { MODEL_LIMITS, type ModelLimits, modelLimits } from './model-limits'
export { type RetryBackoff, type RetryBackoffOptions, retryBackoff } from './retry-backoff'
export {
  renderSnapshot,
  SNAPSHOT_LIMITS,
  type SnapshotInput,
  type SnapshotTurn,
  snapshotTurns,
} from './snapshot'
export { type TurnBoundaries, type TurnSpan, turnBoundaries } from './turn-boundaries'
export {
  planWaterfall,
  type WaterfallPlan,
  type WaterfallPlanOptions,
  waterfallTrigger,
} from './waterfall/waterfall-plan'
