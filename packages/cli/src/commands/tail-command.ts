import type { Item } from '@strata-memory/core'
import { CliError } from '../cli/cli-error'
import type { CommandContext } from '../cli/command-context'
import { itemLine } from '../output/render-item'
import { requireThread } from '../store/open-store'

/**
 * `strata tail <thread> [--lines N] [--interval ms]`: prints the last N items, then follows new items
 * as they are written (polling the store's head) until interrupted. With `--json`, one JSON item
 * per line.
 */
export async function tailCommand(
  context: CommandContext,
  threadId: string,
  options: { lines?: string; interval?: string; signal?: AbortSignal },
): Promise<number> {
  const lines = Number(options.lines ?? 10)
  const interval = Number(options.interval ?? 500)
  if (!Number.isInteger(lines) || lines < 0)
    throw new CliError(`Bad --lines '${options.lines}': a whole number.`)
  if (!Number.isFinite(interval) || interval < 10)
    throw new CliError(`Bad --interval '${options.interval}': at least 10 ms.`)
  const open = await context.store()
  await requireThread(open, threadId)
  const { store } = open
  const { config } = await context.config()
  const levels = config.levels ?? ['global', 'project', 'task']
  const print = (item: Item) =>
    context.output.write(
      `${context.output.json ? JSON.stringify(item) : itemLine(item, context.output.colours, levels)}\n`,
    )
  let lastSeq = (await store.head(threadId)).lastSeq
  for (const item of await store.read(threadId, { fromSeq: Math.max(1, lastSeq - lines + 1) })) print(item)
  const signal = options.signal ?? stopSignal()
  while (!signal.aborted) {
    await new Promise((resolve) => setTimeout(resolve, interval))
    const head = await store.head(threadId)
    if (head.lastSeq <= lastSeq) continue
    // Items appended and archived between two polls are in the archive: read both.
    const fresh = [
      ...(await store.read(threadId, { fromSeq: lastSeq + 1 })),
      ...(await store.readArchive(threadId, { fromSeq: lastSeq + 1 })),
    ]
    fresh.sort((left, right) => left.seq - right.seq)
    for (const item of fresh) print(item)
    lastSeq = head.lastSeq
  }
  return 0
}

/** Aborted by Ctrl-C or SIGTERM. */
function stopSignal(): AbortSignal {
  const controller = new AbortController()
  const stop = () => controller.abort()
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  return controller.signal
}
