import { readAppThreadId } from '@strata-memory/core'
import type { CommandContext } from '../cli/command-context'
import { table } from '../output/table'

/** One row of `strata threads`. */
export interface ThreadRow {
  /** The store's thread id. */
  threadId: string
  /** The app's own thread id (LangGraph's `thread_id`), when it was mapped onto `threadId`; else `threadId`. */
  appThreadId: string
  items: number
  active: number
  archived: number
  lastSeq: number
  tokens: number
  /** The newest item's time, ISO 8601. */
  lastWrite: string | null
}

/** `strata threads`: every thread with its item counts, tokens and last write. */
export async function threadsCommand(context: CommandContext): Promise<number> {
  const { store } = await context.store()
  const memory = await context.memory()
  const rows: ThreadRow[] = []
  for (const threadId of await memory.listThreads()) {
    const head = await store.head(threadId)
    const thread = await memory.thread(threadId)
    const status = await thread.status()
    const newest =
      (await store.read(threadId, { fromSeq: head.lastSeq }))[0] ??
      (await store.readArchive(threadId, { fromSeq: head.lastSeq }))[0]
    rows.push({
      threadId,
      appThreadId: await readAppThreadId(store, threadId),
      items: head.activeCount + head.archivedCount,
      active: head.activeCount,
      archived: head.archivedCount,
      lastSeq: head.lastSeq,
      tokens: status.tokens.total,
      lastWrite: newest ? new Date(newest.ts).toISOString() : null,
    })
  }
  context.output.result({ store: context.target, threads: rows }, () =>
    rows.length === 0
      ? 'No threads.'
      : table(
          ['thread', 'items', 'active', 'archived', 'tokens', 'last write'],
          rows.map((row) => [
            row.appThreadId,
            row.items,
            row.active,
            row.archived,
            row.tokens,
            row.lastWrite ?? '',
          ]),
        ),
  )
  return 0
}
