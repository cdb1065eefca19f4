export { type BudgetOptions, type ResolvedBudget, resolveBudget, threadInputBudget } from './budget-options'
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
} from './budget-plan'
export { budgetPolicy } from './budget-policy'
