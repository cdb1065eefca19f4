import type { ThreadDependencies, ThreadState } from '../thread-state/thread-state'
import {
  type AutoTransitionsOptions,
  autoTransitionPolicy,
  type ResolvedAutoTransitions,
  resolveAutoTransitions,
} from './auto-transition'
import { type BudgetOptions, budgetPolicy, type ResolvedBudget, resolveBudget } from './budget'
import {
  type ResolvedSharedCompaction,
  resolveSharedCompaction,
  type SharedCompactionOptions,
} from './compaction-options'
import { CompactionPolicies } from './compaction-policies'
import type { PolicyDefinition, PolicyParts } from './compaction-policy'
import { type ResolvedWaterfall, resolveWaterfall, type WaterfallOptions, waterfallPolicy } from './waterfall'

// The one file of compaction/ that knows the built-in policies: their options in `createMemory`, their
// resolvers, and the list each thread runs. Every policy lives in its own folder (auto-transition/,
// waterfall/, budget/) and meets the thread only through the contract of `compaction-policy.ts`.

/** The `compaction` option of `createMemory`: each policy is an options object, or false (off). */
export interface CompactionOptions extends SharedCompactionOptions {
  /** @default false */
  autoTransitions?: AutoTransitionsOptions | false
  /** @default false */
  waterfall?: WaterfallOptions | false
  /** @default false */
  budget?: BudgetOptions | false
}

/** Compaction options with defaults applied and checked. */
export interface ResolvedCompaction extends ResolvedSharedCompaction {
  autoTransitions: ResolvedAutoTransitions
  waterfall: ResolvedWaterfall
  budget: ResolvedBudget
}

/** Applies the defaults and validates: `STRATA_INVALID_OPTIONS` with what to change. */
export function resolveCompaction(options: CompactionOptions = {}): ResolvedCompaction {
  const shared = resolveSharedCompaction(options)
  const waterfall = resolveWaterfall(options.waterfall)
  const budget = resolveBudget(options.budget)
  const autoTransitions = resolveAutoTransitions(options.autoTransitions)
  return { autoTransitions, waterfall, budget, ...shared }
}

/** A thread's shared state with the resolved compaction options of every built-in policy. */
export type CompactionState<L extends string> = ThreadState<L, ResolvedCompaction>

/** A thread's dependencies with the resolved compaction options. */
export type CompactionDependencies<L extends string> = ThreadDependencies<L, ResolvedCompaction>

/**
 * The policies each thread runs, in the order it calls them at each moment: the automatic transitions
 * (before an append's messages), the waterfall, then the budget (whose compaction by hand runs after
 * the waterfall's).
 */
const policies: PolicyDefinition<ResolvedCompaction>[] = [autoTransitionPolicy, waterfallPolicy, budgetPolicy]

/**
 * @internal A test hook, not exported from the package: adds a policy to the list threads opened from
 * now on run, after the built-in ones. Returns the function that takes it out again.
 */
export function registerCompactionPolicy(definition: PolicyDefinition): () => void {
  policies.push(definition)
  return () => {
    const index = policies.indexOf(definition)
    if (index >= 0) policies.splice(index, 1)
  }
}

/** The compaction policies of one thread object, made from the registry's list. */
export function threadPolicies<L extends string>(
  parts: PolicyParts<L, ResolvedCompaction>,
): CompactionPolicies<L> {
  return new CompactionPolicies(policies.map((definition) => definition.create(parts)))
}

// The policies' plans and option types, for the folder's entry (`index.ts`).
export {
  type AutoTransitionOptions,
  type AutoTransitionPlan,
  type AutoTransitionsOptions,
  type MiddleLimits,
  type NarrowestLimits,
  planAutoTransition,
} from './auto-transition'
export {
  type BudgetOptions,
  type BudgetPlan,
  type BudgetPlanOptions,
  type BudgetTurn,
  type CompactionUrgency,
  type InputBudgetOptions,
  inputBudget,
  planBudgetCompaction,
  type ShouldCompactOptions,
  shouldCompact,
  threadInputBudget,
} from './budget'
export {
  planWaterfall,
  type WaterfallOptions,
  type WaterfallPlan,
  type WaterfallPlanOptions,
  waterfallTrigger,
} from './waterfall'
