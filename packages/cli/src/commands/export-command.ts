import type { Item } from '@strata-memory/core'
import { CliError } from '../cli/cli-error'
import type { CommandContext } from '../cli/command-context'
import { type Progress, progress } from '../output/progress'
import { itemKind, itemText, seqRanges } from '../output/render-item'
import { shownThreadId } from '../store/open-store'
import type { ContentLine, StateLine, ThreadExportHeader } from './thread-export-format'
import { readThreadLines } from './thread-lines'

/**
 * `strata export <thread> [--format jsonl|markdown] [--archive]`: the active log (and with `--archive`
 * the archived items, merged in seq order) on stdout. JSONL is what `strata import` reads back: the
 * items, the content records and the thread's state.
 */
export async function exportCommand(
  context: CommandContext,
  threadId: string,
  options: { format?: string; archive?: boolean },
): Promise<number> {
  const format = options.format ?? 'jsonl'
  if (format !== 'jsonl' && format !== 'markdown') {
    throw new CliError(`Unknown --format '${format}': use jsonl or markdown.`)
  }
  const withArchive = options.archive === true
  let bar: Progress | undefined
  // The items are read (and rendered) first, the header (which names the last seq and the archived
  // ranges) then goes before them: a corrupt line found on the way fails the export before anything
  // is written.
  const { lines, records, state } = await readThreadLines(context, threadId, {
    line: format === 'jsonl' ? 'json' : markdownItem,
    withArchive,
    progress: (done, total) => {
      bar ??= progress({ total, label: 'export', enabled: !context.output.json })
      bar.update(done)
    },
  })
  bar?.stop()
  const { chunks, count, lastSeq, archivedSeqs } = lines
  const output = context.output
  if (format === 'jsonl') {
    const { store } = await context.store()
    const resourceId = store.getThreadResource ? await store.getThreadResource(threadId) : undefined
    const header: ThreadExportHeader = {
      format: 'strata-thread',
      version: 1,
      threadId,
      lastSeq,
      withArchive,
      archived: seqRanges(archivedSeqs),
      ...(resourceId !== undefined ? { resourceId } : {}),
    }
    output.write(`${JSON.stringify(header)}\n`)
  } else {
    output.write(
      `# Thread ${shownThreadId(threadId)}\n\n${count} items, last seq ${lastSeq}${withArchive ? `, ${archivedSeqs.length} archived` : ''}.\n`,
    )
  }
  for (const text of chunks) if (!output.write(text)) await output.drain()
  if (format === 'jsonl') {
    for (const record of records)
      output.write(`${JSON.stringify({ format: 'strata-content', record } satisfies ContentLine)}\n`)
    if (state !== undefined)
      output.write(`${JSON.stringify({ format: 'strata-state', state } satisfies StateLine)}\n`)
  } else if (records.length > 0) {
    output.write(
      `\n## Content\n\n${records.map((record) => `- \`${record.id}\` ${record.type}, ${record.size} bytes`).join('\n')}\n`,
    )
  }
  await output.drain()
  return 0
}

/** An item's section of the Markdown export (its line: the export ends each with a newline). */
function markdownItem(item: Item, archived: boolean): string {
  const scope = item.type === 'message' && item.scope ? ` — ${item.scope.title}` : ''
  return `\n## #${item.seq} · ${item.level} · ${itemKind(item)}${scope}${archived ? ' (archived)' : ''}\n\n${itemText(item)}`
}
