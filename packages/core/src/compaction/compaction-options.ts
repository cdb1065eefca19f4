import { invalidOptions } from '../errors'
import type { ThreadDependencies, ThreadState } from '../thread/thread-state'
import type { MiddleLimits, NarrowestLimits } from './auto-transition/auto-transition-plan'
import { type InputBudgetOptions, inputBudget } from './budget/budget-plan'
import { CHUNK_ITEMS } from './budget/chunk-plan'
import { modelLimits } from './model-limits'
import type { RetryBackoffOptions } from './retry-backoff'

/**
 * Options of automatic transitions: when the current scope grows past a limit, the thread closes the
 * part of it seen so far (a transition with reason `size-limit`, `time-limit` or `token-budget`, and a
 * scope summary at the enclosing scope's level) and reopens the same scope, so the application stays at its level.
 * Checked as each message is stored, so a task worked inside one request closes too; never between a
 * tool call and its result, and idle time counts only when a new request arrives.
 */
export interface AutoTransitionsOptions {
  /** Limits of the narrowest level; false turns them off. @default { items: 20, toolActions: 10 } */
  narrowest?: NarrowestLimits | false
  /** Limits of the middle levels; false turns them off. @default { items: 50, requests: 30, idleMs: 3_600_000 } */
  middle?: MiddleLimits | false
  /** Close a scope whose items reach this many tokens (reason `token-budget`). @default off */
  maxScopeTokens?: number
  /**
   * Closed scopes (transitions and their scope summaries) a context of the broadest level shows; older
   * ones stay in the log and reachable, but leave the context.
   * @default 10
   */
  keepScopes?: number
}

/** Options of the waterfall: short-term and long-term summaries behind an immediate window. */
export interface WaterfallOptions {
  /**
   * History items kept in full at the end of the context.
   * @default 64
   */
  window?: number
  /**
   * History items between two compactions after the first (which runs at `2 × window + 1`).
   * @default 64
   */
  every?: number
}

/**
 * Options of the token budget: no context is over the input budget, from the first call (counted with
 * the memory's token counter, then calibrated by the usage the provider reports), and token-budget
 * compaction into episodic summaries and semantic facts keeps the thread under it. Give the input
 * budget as `inputTokens`, or the model's limits (`model`, or `maxContextTokens` and `maxOutputTokens`).
 */
export interface BudgetOptions {
  /**
   * The most tokens a context (the prompt of one call) may hold. The plain way to give the budget;
   * instead of `model`, `maxContextTokens`, `maxOutputTokens` and `safetyMargin`, which compute it as
   * `maxContextTokens − maxOutputTokens − safetyMargin`.
   */
  inputTokens?: number
  /**
   * The model the budget is for: its published context window and max output (from `MODEL_LIMITS`)
   * become the defaults of `maxContextTokens` and `maxOutputTokens`. An unknown id needs both given.
   */
  model?: string
  /**
   * The model's context window, in tokens.
   * @default the model's, else 200_000
   */
  maxContextTokens?: number
  /**
   * The most the model may write in one response; it is kept free of input. Required unless `model`
   * names a known model.
   * @default the model's
   */
  maxOutputTokens?: number
  /**
   * Tokens kept free besides the output.
   * @default 2_000
   */
  safetyMargin?: number
  /**
   * Compaction is requested when the provider-reported prompt of the last call exceeds this share of
   * the input budget.
   * @default 0.8
   */
  compactionRatio?: number
  /**
   * Whole turns kept raw before the current turn.
   * @default 4
   */
  rawTailTurns?: number
  /**
   * A first compaction of a long history (more than twice this many items to compact) runs as a
   * series of steps of about this many items each, one summary and one archive per step, in the
   * background: appends and contexts go on between two steps.
   * @default 4096
   */
  chunkItems?: number
}

/** The `compaction` option of `createMemory`: each policy is an options object, or false (off). */
export interface CompactionOptions {
  /** @default false */
  autoTransitions?: AutoTransitionsOptions | false
  /** @default false */
  waterfall?: WaterfallOptions | false
  /** @default false */
  budget?: BudgetOptions | false
  /**
   * How long one summarizer call may take before it is abandoned (the log stays untouched).
   * @default 60_000
   */
  summarizerTimeoutMs?: number
  /**
   * After a summarizer failure or time-out, automatic compaction waits `initialMs` before it tries
   * again, doubling after each further failure up to `maxMs`, so a model that is down does not make
   * every turn wait for it. `thread.compact()` by hand always runs at once.
   * @default { initialMs: 30_000, maxMs: 600_000 }
   */
  retry?: RetryBackoffOptions
}

/** Compaction options with defaults applied and checked. */
export interface ResolvedCompaction {
  autoTransitions:
    | {
        narrowest: NarrowestLimits | false
        middle: MiddleLimits | false
        maxScopeTokens?: number
        keepScopes: number
      }
    | false
  waterfall: Required<WaterfallOptions> | false
  budget: { inputBudget: number; compactionRatio: number; rawTailTurns: number; chunkItems: number } | false
  summarizerTimeoutMs: number
  retry: Required<RetryBackoffOptions>
}

const wholeNumber = (value: number, name: string, minimum: number) => {
  if (!Number.isSafeInteger(value) || value < minimum) {
    invalidOptions(
      `compaction: ${name} must be a whole number of at least ${minimum} (got ${String(value)}).`,
    )
  }
}

const definedOnly = <T extends object>(value: T): Partial<T> =>
  Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>

/** The input budget from a model's limits: `maxContextTokens − maxOutputTokens − safetyMargin`. */
function budgetFromLimits(model: string | undefined, given: Partial<InputBudgetOptions>): number {
  const limits = model === undefined ? undefined : modelLimits(model)
  if (model !== undefined && limits === undefined && given.maxOutputTokens === undefined) {
    invalidOptions(
      `compaction: budget.model '${model}' is not in MODEL_LIMITS; give budget.maxOutputTokens (and maxContextTokens) for it.`,
    )
  }
  if (model === undefined && given.maxOutputTokens === undefined) {
    invalidOptions(
      'compaction: budget needs inputTokens (the input budget), maxOutputTokens (the model\'s max output) or a known model, e.g. budget: { inputTokens: 8_000 } or budget: { model: "gpt-4o" }.',
    )
  }
  const sizes = { ...limits, ...definedOnly(given) } as InputBudgetOptions
  return inputBudget(sizes)
}

/** Applies the defaults and validates: `STRATA_INVALID_OPTIONS` with what to change. */
export function resolveCompaction({
  autoTransitions = false,
  waterfall = false,
  budget = false,
  summarizerTimeoutMs = 60_000,
  retry = {},
}: CompactionOptions = {}): ResolvedCompaction {
  if (!(summarizerTimeoutMs > 0))
    invalidOptions('compaction: summarizerTimeoutMs must be a positive number of ms.')
  if (typeof retry !== 'object' || retry === null)
    invalidOptions('compaction: retry must be { initialMs?, maxMs? }.')
  const { initialMs = 30_000, maxMs = 600_000, ...unknown } = retry
  for (const key of Object.keys(unknown))
    invalidOptions(`compaction: retry.${key} is not an option; use initialMs, maxMs.`)
  wholeNumber(initialMs, 'retry.initialMs', 0)
  wholeNumber(maxMs, 'retry.maxMs', initialMs)
  let resolvedWaterfall: ResolvedCompaction['waterfall'] = false
  if (waterfall !== false) {
    const { window = 64, every = 64 } = waterfall
    wholeNumber(window, 'waterfall.window', 1)
    wholeNumber(every, 'waterfall.every', 1)
    resolvedWaterfall = { window, every }
  }
  let resolvedBudget: ResolvedCompaction['budget'] = false
  if (budget !== false) {
    if (typeof budget !== 'object' || budget === null)
      invalidOptions('compaction: budget must be an options object, e.g. { inputTokens: 8_000 }, or false.')
    const {
      compactionRatio = 0.8,
      rawTailTurns = 4,
      chunkItems = CHUNK_ITEMS,
      model,
      inputTokens,
      ...given
    } = budget
    if (!(compactionRatio > 0 && compactionRatio <= 1))
      invalidOptions('compaction: budget.compactionRatio must be in (0, 1].')
    wholeNumber(rawTailTurns, 'budget.rawTailTurns', 0)
    wholeNumber(chunkItems, 'budget.chunkItems', 1)
    if (inputTokens !== undefined) {
      const limitsGiven = [...(model === undefined ? [] : ['model']), ...Object.keys(definedOnly(given))]
      if (limitsGiven.length > 0) {
        invalidOptions(
          `compaction: budget.inputTokens is the input budget itself; leave out ${limitsGiven.join(', ')}, or give the model's limits without inputTokens.`,
          { inputTokens, given: limitsGiven },
        )
      }
      wholeNumber(inputTokens, 'budget.inputTokens', 1)
    }
    resolvedBudget = {
      inputBudget: inputTokens ?? budgetFromLimits(model, given),
      compactionRatio,
      rawTailTurns,
      chunkItems,
    }
  }
  let resolvedAuto: ResolvedCompaction['autoTransitions'] = false
  if (autoTransitions !== false) {
    const { narrowest = {}, middle = {}, maxScopeTokens, keepScopes = 10 } = autoTransitions
    for (const [name, limits, known] of [
      ['narrowest', narrowest, ['items', 'toolActions']],
      ['middle', middle, ['items', 'requests', 'idleMs']],
    ] as const) {
      if (limits === false) continue
      if (typeof limits !== 'object' || limits === null)
        invalidOptions(`compaction: autoTransitions.${name} must be an object of limits or false.`)
      for (const [key, value] of Object.entries(limits)) {
        if (!(known as readonly string[]).includes(key))
          invalidOptions(
            `compaction: autoTransitions.${name}.${key} is not a limit; use ${known.join(', ')}.`,
          )
        if (value !== undefined) wholeNumber(value, `autoTransitions.${name}.${key}`, 1)
      }
    }
    if (maxScopeTokens !== undefined) wholeNumber(maxScopeTokens, 'autoTransitions.maxScopeTokens', 1)
    wholeNumber(keepScopes, 'autoTransitions.keepScopes', 1)
    resolvedAuto = {
      narrowest,
      middle,
      keepScopes,
      ...(maxScopeTokens === undefined ? {} : { maxScopeTokens }),
    }
  }
  return {
    autoTransitions: resolvedAuto,
    waterfall: resolvedWaterfall,
    budget: resolvedBudget,
    summarizerTimeoutMs,
    retry: { initialMs, maxMs },
  }
}

/** A thread's shared state as the compaction policies see it: with their resolved options. */
export type CompactionState<L extends string> = ThreadState<L, ResolvedCompaction>

/** A thread's dependencies with the resolved compaction options. */
export type CompactionDependencies<L extends string> = ThreadDependencies<L, ResolvedCompaction>
