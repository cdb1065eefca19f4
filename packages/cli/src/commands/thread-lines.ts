import type { ContentRecord, Item, JsonObject } from '@strata-memory/core'
import type { AuditOptions } from '@strata-memory/core/store-kit'
import { CliError } from '../cli/cli-error'
import type { CommandContext } from '../cli/command-context'
import { SeqLines, type SeqLinesResult } from '../output/seq-lines'
import { checkThreadId, requireThread, shownThreadId } from '../store/open-store'
import { describeStoreTarget } from '../store/store-target'

/** How an item becomes its line of the export: its JSON as the store hands it over, or a rendering. */
export type ItemLine = 'json' | ((item: Item, archived: boolean) => string)

/** A thread's items as lines in seq order, active and archived (a seq in both is archived), and its content. */
export interface ThreadLines {
  lines: SeqLinesResult
  records: ContentRecord[]
  /** The thread's state object (core's cursors and marks, an adapter's thread record), if it has one. */
  state: JsonObject | undefined
}

/**
 * Reads the thread's items with the store's audit (`flags.audit`), read-only, each handed to `onItem`
 * or `onItemJson` as the store reads it: a torn tail is left out (it was never acknowledged) and left
 * where it is, and a corrupt line is an error pointing to `strata verify`.
 */
async function auditRead(
  context: CommandContext,
  threadId: string,
  options: Pick<AuditOptions, 'onItem' | 'onItemJson' | 'onProgress'>,
): Promise<void> {
  // Only the format's problems stop an export (the checks across items are verify's): no more is read.
  const open = await context.store()
  const { store } = open
  if (!(await store.listThreads()).includes(threadId)) {
    throw new CliError(
      `Thread '${shownThreadId(threadId)}' not found in ${describeStoreTarget(open.target)}: \`strata threads\` lists the threads there.`,
    )
  }
  const report = await store.audit!(threadId, { ...options, checks: 'format' })
  for (const entry of report.entries) {
    if (entry.code === 'torn-tail') {
      context.output.note(
        `${shownThreadId(threadId)}: left out a torn tail (an append never acknowledged): ${entry.message}`,
      )
    } else if (entry.code === 'corrupt-line' || entry.code === 'seq-order') {
      throw new CliError(
        `${shownThreadId(threadId)}: ${entry.message} Run \`strata verify ${threadId}\` for how to repair it.`,
      )
    }
  }
}

/**
 * Reads a thread for an export: one line per item (`line`; with `withArchive` false, archived items are
 * counted but get no line) in seq order, its content records and its state. A store without the audit
 * is read through `read`/`readArchive`.
 */
export async function readThreadLines(
  context: CommandContext,
  threadId: string,
  {
    line,
    withArchive,
    progress = () => undefined,
  }: { line: ItemLine; withArchive: boolean; progress?: (done: number, total: number) => void },
): Promise<ThreadLines> {
  checkThreadId(threadId)
  const lines = new SeqLines()
  const open = await context.store()
  const { store } = open
  const add = (item: Item, archived: boolean) =>
    lines.add(
      item.seq,
      archived,
      archived && !withArchive ? undefined : line === 'json' ? JSON.stringify(item) : line(item, archived),
    )
  if (typeof store.audit !== 'function') {
    await requireThread(open, threadId)
    const [active, archived] = await Promise.all([store.read(threadId), store.readArchive(threadId)])
    for (const item of archived) add(item, true)
    for (const item of active) add(item, false)
  } else if (line === 'json') {
    await auditRead(context, threadId, {
      onItemJson: (seq, source, json) => {
        const archived = source === 'archive'
        lines.add(seq, archived, archived && !withArchive ? undefined : json)
      },
      onProgress: progress,
    })
  } else {
    await auditRead(context, threadId, {
      onItem: (item, source) => add(item, source === 'archive'),
      onProgress: progress,
    })
  }
  const [records, state] = await Promise.all([store.queryContent(threadId), store.getState(threadId)])
  return { lines: lines.finish(), records, state }
}
