import { mergeFacts } from '../compaction'
import type { CompactionPolicies } from '../compaction/compaction-policies'
import type { CompactionReport, LastCompaction } from '../compaction/compaction-report'
import type { CompactionState } from '../compaction/policy-registry'
import { invalidOptions } from '../errors'
import type { FactItem, Item, JsonObject, SummaryTier } from '../items'
import { isSealed, type LogEntry } from '../items/sealed-item'
import { turnIdOf } from '../thread-state/thread-log'
import type { WritePath } from '../thread-state/write-path'
import type { TokenCounter } from '../tokens'
import type { ContextAssembly } from './context-assembly'
import { openFailures } from './request-failures'
import type { ThreadStatus, UsageReport } from './thread-types'

/** What `reportUsage` and `status` read and write. */
export interface ThreadStatusParts<L extends string> {
  state: CompactionState<L>
  writes: WritePath<L>
  contexts: ContextAssembly<L>
  policies: CompactionPolicies<L>
  report: CompactionReport<L>
}

/**
 * Records a provider's usage report and tells the compaction policies (the budget is calibrated by it,
 * against the tokens the last context counted, and over its threshold a compaction starts).
 */
export async function reportUsage<L extends string>(
  { state, writes, contexts, policies }: ThreadStatusParts<L>,
  usage: UsageReport,
): Promise<void> {
  const valid = (value: unknown) => typeof value === 'number' && Number.isInteger(value) && value >= 0
  if (!valid(usage?.inputTokens) || (usage.outputTokens !== undefined && !valid(usage.outputTokens))) {
    invalidOptions(
      'reportUsage() needs { inputTokens } (and optional outputTokens) as non-negative integers.',
      {
        usage,
      },
    )
  }
  return writes.exclusive(async () => {
    const lastUsage: JsonObject = { inputTokens: usage.inputTokens, ts: state.deps.clock() }
    if (usage.outputTokens !== undefined) lastUsage.outputTokens = usage.outputTokens
    if (contexts.lastContextTokens !== undefined) lastUsage.estimatedTokens = contexts.lastContextTokens
    policies.onUsage({ inputTokens: usage.inputTokens, estimatedTokens: contexts.lastContextTokens })
    await writes.updateState({ lastUsage })
  })
}

/** Counts, open scopes, tokens, compaction progress and the last reported usage. */
export function threadStatus<L extends string>({
  state,
  writes,
  policies,
  report,
}: ThreadStatusParts<L>): Promise<ThreadStatus<L>> {
  return writes.exclusive(async () => {
    await writes.refresh()
    const { log, deps } = state
    const byLevel: Record<string, number> = {}
    const byType: Record<string, number> = {}
    // Counts only: a sealed entry keeps its level and its item's type, so nothing is read back.
    const entries = log.entries
    const summaryEntries: LogEntry<L>[] = []
    for (const entry of entries) {
      const type = isSealed(entry) ? entry.itemType : entry.type
      byLevel[entry.level] = (byLevel[entry.level] ?? 0) + 1
      byType[type] = (byType[type] ?? 0) + 1
      if (type === 'summary') summaryEntries.push(entry)
    }
    // Summaries are counted in tokens: the sealed ones are read back (their range, for this call).
    const summaries = await log.whole(summaryEntries)
    const stored = await deps.store.getState(state.id)
    const status: ThreadStatus<L> = {
      threadId: state.id,
      level: state.level,
      mode: state.mode,
      scopes: log.scopes.map((scope) => ({ ...scope })),
      lastSeq: log.lastSeq,
      turnId: turnIdOf(log.currentTurn),
      items: { active: entries.length, archived: log.archivedCount, byLevel, byType },
      tokens: { total: log.rawTokens, counter: deps.tokenCounter.name },
      failures: openFailures(state, stored),
      store: {
        name: deps.store.name,
        persistent: deps.store.flags.persistent,
        shared: deps.store.flags.shared,
      },
      compaction: {
        summaries: summaryCounts(summaries, deps.tokenCounter),
        // The same fact written again with a later confidence is one fact.
        facts: mergeFacts(
          log.memoryItems.filter((item): item is FactItem<L> => item.type === 'fact'),
          [],
        ).length,
        waterfall: log.waterfallCursor,
        // What each policy adds (the budget: a compaction it asked for and has not run yet).
        ...(policies.status() as Partial<ThreadStatus<L>['compaction']>),
        ...(report.retry.retryAt === undefined ? {} : { retryAt: report.retry.retryAt }),
      },
    }
    if (stored?.lastUsage !== undefined) status.lastUsage = stored.lastUsage as ThreadStatus['lastUsage']
    const last = report.last ?? (stored?.lastCompaction as LastCompaction | undefined)
    if (last !== undefined) status.compaction.last = last
    return status
  })
}

/** Summary items of the active log by tier, with their text's tokens. */
function summaryCounts(items: readonly Item[], counter: TokenCounter) {
  const counts: Record<SummaryTier, { count: number; tokens: number }> = {
    scope: { count: 0, tokens: 0 },
    'short-term': { count: 0, tokens: 0 },
    'long-term': { count: 0, tokens: 0 },
    episodic: { count: 0, tokens: 0 },
  }
  for (const item of items) {
    if (item.type !== 'summary') continue
    counts[item.tier].count++
    counts[item.tier].tokens += counter.count(item.text)
  }
  return counts
}
