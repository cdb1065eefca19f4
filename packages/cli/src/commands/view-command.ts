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

/** `strata view <thread> [--level L]`: the level view, oldest first, each item coloured by its level. */
export async function viewCommand(
  context: CommandContext,
  threadId: string,
  options: { level?: string },
): Promise<number> {
  const thread = await context.thread(threadId)
  const level = (await levelOption(context, options.level)) ?? thread.level
  const items = await thread.view(level)
  const { ladder } = await context.memory()
  context.output.result({ threadId, level, items }, () =>
    [
      context.output.colours.bold(`View of ${shownThreadId(threadId)} at ${level}: ${items.length} items`),
      ...items.map((item) => itemLine(item, context.output.colours, ladder.levels)),
    ].join('\n'),
  )
  return 0
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
