import { invalidOptions } from '../../errors'
import { modelLimits } from '../model-limits'
import { definedOnly, wholeNumber } from '../option-checks'
import { type InputBudgetOptions, inputBudget } from './budget-plan'
import { CHUNK_ITEMS } from './chunk-plan'

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

/** The budget's options with defaults applied and checked, or false (off). */
export type ResolvedBudget =
  | { inputBudget: number; compactionRatio: number; rawTailTurns: number; chunkItems: number }
  | false

/** What the budget policy reads of a thread's resolved compaction options. */
export interface BudgetCompaction {
  budget: ResolvedBudget
}

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

/** Applies the budget's defaults and validates: `STRATA_INVALID_OPTIONS` with what to change. */
export function resolveBudget(budget: BudgetOptions | false = false): ResolvedBudget {
  if (budget === false) return false
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
  return {
    inputBudget: inputTokens ?? budgetFromLimits(model, given),
    compactionRatio,
    rawTailTurns,
    chunkItems,
  }
}

/**
 * The budget of a thread with its own input budget (`memory.thread(id, { budget })`): under the
 * memory's budget the smaller of the two holds (the memory's is the model's limit); without one, the
 * budget's defaults with the thread's.
 */
export function threadInputBudget(memory: ResolvedBudget, inputTokens: number): ResolvedBudget {
  return memory === false
    ? resolveBudget({ inputTokens })
    : { ...memory, inputBudget: Math.min(memory.inputBudget, inputTokens) }
}
