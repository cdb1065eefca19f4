import type { CommandContext } from '../cli/command-context'
import { shownThreadId } from '../store/open-store'

/**
 * `strata compact <thread> [--force]`: compaction by hand with the config's policies; without a
 * policy in the config, a budget policy of `--budget` input tokens (8 000).
 */
export async function compactCommand(
  context: CommandContext,
  threadId: string,
  options: { force?: boolean; budget?: string },
): Promise<number> {
  const loaded = await context.config()
  if (loaded.config.compaction === undefined || options.budget !== undefined) {
    const inputTokens = options.budget !== undefined ? Number(options.budget) : 8_000
    loaded.config.compaction = { ...loaded.config.compaction, budget: { inputTokens } }
    context.output.note(`Compacting with a budget of ${inputTokens} input tokens (--budget to change it).`)
  }
  const thread = await context.thread(threadId)
  // The context's tokens as `strata status` counts them (with the config's system prompt), before and
  // after: the compaction record's own figures measure what its policy measured, which can differ.
  const contextTokens = async () =>
    (await thread.context(loaded.config.system !== undefined ? { system: loaded.config.system } : {})).stats
      .contextTokens
  const before = await thread.status()
  const tokensBefore = await contextTokens()
  await thread.compact({ force: options.force === true })
  const after = await thread.status()
  const tokensAfter = await contextTokens()
  const last = after.compaction.last
  const ran = last !== undefined && last.ts !== before.compaction.last?.ts
  const data = {
    threadId,
    compacted: ran,
    contextTokens: { before: tokensBefore, after: tokensAfter },
    last: ran ? last : null,
    lastSeq: after.lastSeq,
  }
  context.output.result(data, () => {
    if (!ran || last === undefined)
      return 'Nothing to compact (under the threshold: --force compacts anyway).'
    if (last.error) return context.output.colours.red(`Compaction failed: ${last.error}`)
    return `Compacted ${shownThreadId(threadId)}: context ${tokensBefore} → ${tokensAfter} tokens, ${last.itemsArchived} items archived, ${last.itemsWritten} written${last.skipped ? ` (skipped: ${last.skipped})` : ''}.`
  })
  return last?.error ? 1 : 0
}
