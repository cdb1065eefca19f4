import type { CommandContext } from '../cli/command-context'
import { seqRanges } from '../output/render-item'
import { table } from '../output/table'
import { shownThreadId } from '../store/open-store'

/**
 * `strata status <thread>`: current level and open scopes, items by level and type, tokens (whole
 * thread, context, saved), summaries, facts, archived ranges, the last compaction and any retry.
 */
export async function statusCommand(context: CommandContext, threadId: string): Promise<number> {
  const thread = await context.thread(threadId)
  const { store } = await context.store()
  const { config } = await context.config()
  const status = await thread.status()
  const { stats } = await thread.context(config.system !== undefined ? { system: config.system } : {})
  const archivedRanges = seqRanges((await store.readArchive(threadId)).map((item) => item.seq))
  const data = {
    ...status,
    context: {
      level: stats.level,
      tokens: stats.contextTokens,
      savedTokens: stats.savedTokens,
      savedRatio: stats.savedRatio,
      messages: stats.messages,
      itemsVisible: stats.itemsVisible,
      ...(stats.inputBudget !== undefined ? { inputBudget: stats.inputBudget } : {}),
    },
    archivedRanges,
  }
  const { colours } = context.output
  context.output.result(data, () => {
    const lines = [
      `${colours.bold('Thread')} ${shownThreadId(status.threadId)}  ${colours.dim(`(${status.store.name} store, last seq ${status.lastSeq}, ${status.turnId})`)}`,
      `${colours.bold('Level')} ${status.level}${status.mode ? ` (mode ${status.mode})` : ''}`,
      `${colours.bold('Open scopes')} ${
        status.scopes.length === 0
          ? 'none'
          : status.scopes.map((scope) => `${scope.level}: ${scope.title} (#${scope.seq})`).join(' › ')
      }`,
      `${colours.bold('Items')} ${status.items.active} active, ${status.items.archived} archived`,
      `  by level: ${formatCounts(status.items.byLevel)}`,
      `  by type:  ${formatCounts(status.items.byType)}`,
      `${colours.bold('Tokens')} thread ${status.tokens.total}, context ${stats.contextTokens} (${stats.level}), saved ${stats.savedTokens} (${Math.round(stats.savedRatio * 100)}%)  ${colours.dim(status.tokens.counter)}`,
      '',
      table(
        ['summaries', 'count', 'tokens'],
        Object.entries(status.compaction.summaries).map(([tier, value]) => [tier, value.count, value.tokens]),
      ),
      '',
      `${colours.bold('Facts')} ${status.compaction.facts}`,
      `${colours.bold('Archived')} ${archivedRanges.length === 0 ? 'nothing' : archivedRanges.map((range) => (range.fromSeq === range.toSeq ? `#${range.fromSeq}` : `#${range.fromSeq}–${range.toSeq}`)).join(', ')}`,
    ]
    const last = status.compaction.last
    lines.push(
      `${colours.bold('Last compaction')} ${
        last === undefined
          ? 'none'
          : `${last.trigger} at ${new Date(last.ts).toISOString()}: tokens ${last.tokensBefore} → ${last.tokensAfter}, ${last.itemsArchived} archived, ${last.itemsWritten} written${last.skipped ? `, skipped (${last.skipped})` : ''}${last.error ? colours.red(`, failed: ${last.error}`) : ''}`
      }`,
    )
    const retryAt = status.compaction.retryAt ?? last?.retryAt
    if (retryAt !== undefined)
      lines.push(
        colours.yellow(`Retry: automatic compaction tries again at ${new Date(retryAt).toISOString()}`),
      )
    if (status.compaction.budgetRequested)
      lines.push(`Budget compaction requested (${status.compaction.budgetRequested})`)
    return lines.join('\n')
  })
  return 0
}

function formatCounts(counts: Record<string, number>): string {
  const entries = Object.entries(counts)
  return entries.length === 0 ? 'none' : entries.map(([key, count]) => `${key} ${count}`).join(', ')
}
