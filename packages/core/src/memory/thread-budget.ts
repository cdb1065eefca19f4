import { type ResolvedCompaction, threadInputBudget } from '../compaction/policy-registry'
import { invalidOptions } from '../errors'

/**
 * The `budget` option of `memory.thread(id, { budget })`: the thread's own input budget, or `'memory'`
 * for the memory's `compaction.budget` again.
 */
export type ThreadBudgetOption = { inputTokens: number } | 'memory'

/** Checks a thread's `budget` option (`STRATA_INVALID_OPTIONS` saying what it takes). */
export function checkThreadBudget(threadId: string, option: unknown): asserts option is ThreadBudgetOption {
  if (option === 'memory') return
  const inputTokens = (option as { inputTokens?: unknown } | null)?.inputTokens
  if (
    typeof option !== 'object' ||
    option === null ||
    Object.keys(option).some((key) => key !== 'inputTokens') ||
    !(Number.isSafeInteger(inputTokens) && (inputTokens as number) >= 1)
  ) {
    invalidOptions(
      `memory.thread('${threadId}', { budget }): budget must be { inputTokens } (a whole number of tokens, at least 1) or 'memory' (the memory's compaction.budget); got ${JSON.stringify(option)}.`,
      { threadId },
    )
  }
}

/**
 * A thread's own input budget, when it has one: its contexts are fitted to it and budget compaction
 * keeps the thread under it. Under the memory's `compaction.budget` the smaller of the two holds (the
 * memory's is the model's limit); without one, the thread gets budget compaction with its defaults.
 */
export class ThreadBudget {
  #inputTokens: number | undefined
  #resolved: { from: ResolvedCompaction; to: ResolvedCompaction } | undefined

  /** Told when the thread gets a budget of its own: budget compaction reads every item (see `ThreadLog.seal`). */
  onBudget: (() => Promise<void>) | undefined

  async set(option: ThreadBudgetOption): Promise<void> {
    const inputTokens = option === 'memory' ? undefined : option.inputTokens
    if (inputTokens !== this.#inputTokens) this.#resolved = undefined
    this.#inputTokens = inputTokens
    if (inputTokens !== undefined) await this.onBudget?.()
  }

  /** The memory's compaction options with this thread's budget in them. */
  compaction(memory: ResolvedCompaction): ResolvedCompaction {
    const inputTokens = this.#inputTokens
    if (inputTokens === undefined) return memory
    if (this.#resolved?.from === memory) return this.#resolved.to
    const to = { ...memory, budget: threadInputBudget(memory.budget, inputTokens) }
    this.#resolved = { from: memory, to }
    return to
  }
}
