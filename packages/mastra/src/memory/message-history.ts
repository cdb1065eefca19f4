import { invalidOptions, StrataError } from '@strata-memory/core'

/**
 * Mastra's `messageHistory` of the memory and of a call (the call's wins): `maxTokens`, the token
 * budget of the whole prompt (system messages, history and the current turn), becomes the thread's
 * input budget; undefined when it is not given (`false` or `null` turn it off). A `maxTokens` that is
 * not a whole number ≥ 1 is `STRATA_INVALID_OPTIONS`; so is `atMaxRemoveTokens`, which Strata has no
 * use for (it compacts old turns into summaries rather than dropping a share of them).
 */
export function resolveMessageHistory(
  memoryLevel: unknown,
  callLevel: unknown,
  where: string,
): { maxTokens: number } | undefined {
  const value = callLevel !== undefined ? callLevel : memoryLevel
  if (value === undefined || value === false || value === null) return undefined
  const { maxTokens, atMaxRemoveTokens, ...rest } = (typeof value === 'object' ? value : {}) as Record<
    string,
    unknown
  >
  if (typeof value !== 'object' || !(Number.isSafeInteger(maxTokens) && (maxTokens as number) >= 1)) {
    invalidOptions(
      `${where}: messageHistory must be { maxTokens } with a whole number of tokens, at least 1 (got ${JSON.stringify(value)}).`,
      { messageHistory: value },
    )
  }
  if (atMaxRemoveTokens !== undefined) {
    throw new StrataError({
      code: 'STRATA_INVALID_OPTIONS',
      message: `${where}: messageHistory.atMaxRemoveTokens has no Strata equivalent: Strata does not drop old messages, it compacts old turns into summaries and facts once the prompt passes 80% of maxTokens (compaction.budget.compactionRatio in createMemory). Leave atMaxRemoveTokens out. Nothing was stored.`,
      details: { options: ['messageHistory.atMaxRemoveTokens'], reason: 'unsupported' },
    })
  }
  const unknown = Object.keys(rest)
  if (unknown.length > 0) {
    invalidOptions(`${where}: messageHistory takes maxTokens only (got ${unknown.join(', ')}).`, {
      messageHistory: value,
    })
  }
  return { maxTokens: maxTokens as number }
}

/**
 * The `budget` a run opens its thread with: its `messageHistory.maxTokens`, or the memory's own budget
 * (`'memory'`) without one. A bad `messageHistory` leaves the thread's budget as it is (the run is
 * refused for it before anything is stored).
 */
export function threadBudgetOf(
  memoryLevel: unknown,
  callLevel: unknown,
): { inputTokens: number } | 'memory' | undefined {
  try {
    const history = resolveMessageHistory(memoryLevel, callLevel, 'agent.generate()')
    return history === undefined ? 'memory' : { inputTokens: history.maxTokens }
  } catch {
    return undefined
  }
}
