import type { Item, Thread, TransitionItem } from '@strata-memory/core'
import { CliError } from '../cli/cli-error'
import type { CommandContext } from '../cli/command-context'
import { contextMessageBlock, itemLine } from '../output/render-item'
import { shownThreadId } from '../store/open-store'

/** Checks `--level` against the memory's ladder. */
async function levelOption(context: CommandContext, level: string | undefined): Promise<string | undefined> {
  if (level === undefined) return undefined
  const { ladder } = await context.memory()
  if (!ladder.levels.includes(level)) {
    throw new CliError(
      `Unknown level '${level}': the ladder is ${ladder.levels.join(', ')} (--levels or --config to change it).`,
    )
  }
  return level
}

/**
 * `strata view <thread> [--level L]`: the level view, oldest first, each item coloured by its level. A
 * level narrower than the thread's, with no scope of it open, has an empty view by the normative rule
 * (its run ended at the transition): the command then shows the newest closed scope of that level,
 * read from the active log and the archive, and says so.
 */
export async function viewCommand(
  context: CommandContext,
  threadId: string,
  options: { level?: string },
): Promise<number> {
  const thread = await context.thread(threadId)
  const level = (await levelOption(context, options.level)) ?? thread.level
  const items = await thread.view(level)
  const { ladder } = await context.memory()
  const closed = items.length === 0 ? await lastClosedScope(context, thread, level) : undefined
  const shown = closed?.items ?? items
  context.output.result(
    { threadId, level, items: shown, ...(closed ? { closedScope: closed.transition } : {}) },
    () =>
      [
        context.output.colours.bold(
          closed
            ? `View of ${shownThreadId(threadId)} at ${level}: no ${level} scope open; the last one closed (${closed.transition.reason}) at seq ${closed.transition.seq}, seqs ${closed.transition.range.fromSeq}–${closed.transition.range.toSeq}: ${shown.length} items`
            : `View of ${shownThreadId(threadId)} at ${level}: ${items.length} items`,
        ),
        ...shown.map((item) => itemLine(item, context.output.colours, ladder.levels)),
      ].join('\n'),
  )
  return 0
}

/** The newest transition out of `level` in the active log, with the items of that level it closed. */
async function lastClosedScope(
  context: CommandContext,
  thread: Thread<string>,
  level: string,
): Promise<{ transition: TransitionItem<string>; items: Item<string>[] } | undefined> {
  const active = await thread.items()
  let transition: TransitionItem<string> | undefined
  for (let at = active.length - 1; at >= 0 && transition === undefined; at--) {
    const item = active[at]!
    if (item.type === 'transition' && item.fromLevel === level) transition = item
  }
  if (transition === undefined) return undefined
  const { fromSeq, toSeq } = transition.range
  const { store } = await context.store()
  const archived = await store.readArchive(thread.id, { fromSeq, toSeq })
  const inRange = active.filter((item) => item.seq >= fromSeq && item.seq <= toSeq)
  const items = [...archived, ...inRange]
    .filter((item) => item.level === level)
    .sort((a, b) => a.seq - b.seq) as Item<string>[]
  return { transition, items }
}

/**
 * `strata context <thread> [--level L]`: exactly what the model would be sent (read-only: a preview of
 * another level changes nothing), with its token count.
 */
export async function contextCommand(
  context: CommandContext,
  threadId: string,
  options: { level?: string },
): Promise<number> {
  const thread = await context.thread(threadId)
  const level = await levelOption(context, options.level)
  const { config } = await context.config()
  const built = await thread.context({
    ...(level !== undefined ? { level } : {}),
    ...(config.system !== undefined ? { system: config.system } : {}),
  })
  const { colours } = context.output
  context.output.result({ threadId, ...built }, () => {
    const { stats } = built
    return [
      ...built.messages.map((message) => contextMessageBlock(message, colours)),
      '',
      colours.bold(
        `${stats.messages} messages, ${stats.contextTokens} tokens at ${stats.level}${stats.inputBudget !== undefined ? ` (budget ${stats.inputBudget})` : ''}; thread ${stats.totalTokens} tokens, saved ${stats.savedTokens} (${Math.round(stats.savedRatio * 100)}%)`,
      ),
    ].join('\n')
  })
  return 0
}
