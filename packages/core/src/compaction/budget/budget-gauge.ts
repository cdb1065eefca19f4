import { shownMemoryItems } from '../../context/render-context'
import type { PolicyState } from '../compaction-policy'
import type { BudgetCompaction } from './budget-options'

/**
 * The budget as a thread measures against it: the input budget less what the provider counts beyond
 * the memory's counter (calibrated by usage reports, and by the last one stored with the thread when
 * it is opened anew), and the thread's own estimate of its current context.
 */
export class BudgetGauge<L extends string> {
  readonly #state: PolicyState<L, BudgetCompaction>
  /**
   * What the provider counts beyond the counter (tool definitions, its message framing, a tokenizer that
   * counts more): the last usage report's input tokens less the counter's tokens of the context it was for.
   */
  #overhead = 0
  /** The tokens of the last context's system prompt, counted into the estimate after a write. */
  systemTokens = 0

  constructor(state: PolicyState<L, BudgetCompaction>) {
    this.#state = state
  }

  /**
   * The budget in the counter's tokens: the input budget less what the provider counted beyond the
   * counter in the last usage report (a counter that counts more than the provider is kept as is).
   */
  effectiveBudget(): number {
    const { budget } = this.#state.deps.compaction
    if (budget === false) return Number.POSITIVE_INFINITY
    return Math.max(0, budget.inputBudget - this.#overhead)
  }

  /**
   * Takes the calibration of a usage report stored with the thread (`lastUsage`: the provider's input
   * tokens and the counter's tokens of the context they were for); anything else is ignored.
   */
  calibrate(lastUsage: unknown) {
    if (typeof lastUsage !== 'object' || lastUsage === null) return
    const { inputTokens, estimatedTokens } = lastUsage as Record<string, unknown>
    const count = (value: unknown) => typeof value === 'number' && Number.isFinite(value) && value >= 0
    if (count(inputTokens) && count(estimatedTokens))
      this.observe(inputTokens as number, estimatedTokens as number)
  }

  /**
   * Takes in a usage report: what the provider counted beyond the counter's tokens of the context it was
   * for (`estimatedTokens`, when known) is kept free from then on.
   */
  observe(inputTokens: number, estimatedTokens?: number) {
    if (estimatedTokens !== undefined) this.#overhead = Math.max(0, inputTokens - estimatedTokens)
  }

  /** A provider's count in the counter's tokens: less what the provider counts beyond the counter. */
  counted(inputTokens: number): number {
    return inputTokens - this.#overhead
  }

  /** How the estimate of the current level's context stands against the (calibrated) budget. */
  urgency(estimate = this.estimate()): 'none' | 'early' | 'hard' {
    const { budget } = this.#state.deps.compaction
    if (budget === false) return 'none'
    const effective = this.effectiveBudget()
    if (estimate > effective) return 'hard'
    return estimate > budget.compactionRatio * effective ? 'early' : 'none'
  }

  /**
   * The counter's tokens of the current level's context as stored (citations as citations): the system
   * prompt of the last context, the memory slots and the level view with the turn's request.
   */
  estimate(): number {
    const state = this.#state
    const text = (value: string) => state.countTokens({ content: [{ type: 'text', text: value }] })
    let total = this.systemTokens
    for (const item of shownMemoryItems(state.log.memoryItems)) {
      if (item.type === 'summary' || item.type === 'fact') total += text(item.text)
    }
    for (const item of state.contextView(state.level)) {
      if (item.type === 'message') total += state.logMessageTokens(item)
      else if (item.type === 'transition') total += text(item.agentFacingMessage)
      else if (item.type === 'summary' || item.type === 'fact') total += text(item.text)
    }
    return total
  }
}
