export {
  type AutoTransitionsOptions,
  type ResolvedAutoTransitions,
  resolveAutoTransitions,
} from './auto-transition-options'
export {
  type AutoTransitionOptions,
  type AutoTransitionPlan,
  type MiddleLimits,
  type NarrowestLimits,
  planAutoTransition,
} from './auto-transition-plan'
export { autoTransitionPolicy } from './auto-transition-policy'
