import type { Item } from '@strata-memory/core'
import { CliError } from '../cli/cli-error'
import type { CommandContext } from '../cli/command-context'
import { progress } from '../output/progress'
import { itemKind, itemText, seqRanges } from '../output/render-item'
import type { ContentLine, ThreadExportHeader } from './thread-export-format'
import { readThreadItems } from './thread-items'

const CHUNK = 2_000

/**
 * `strata export <thread> [--format jsonl|markdown] [--archive]`: the active log (and with `--archive`
 * the archived items, merged in seq order) on stdout. JSONL is what `strata import` reads back.
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
  const { active, archived, lastSeq, records } = await readThreadItems(context, threadId, {
    archive: options.archive === true,
  })
  const archivedSeqs = new Set(archived.map((item) => item.seq))
  const items = archived.length === 0 ? active : mergeBySeq(active, archived)
  const header: ThreadExportHeader = {
    format: 'strata-thread',
    version: 1,
    threadId,
    lastSeq,
    withArchive: options.archive === true,
    archived: seqRanges(archived.map((item) => item.seq)),
  }
  const bar = progress({ total: items.length, label: 'export', enabled: !context.output.json })
  const output = context.output
  if (format === 'jsonl') {
    output.write(`${JSON.stringify(header)}\n`)
    for (let start = 0; start < items.length; start += CHUNK) {
      let text = ''
      for (const entry of items.slice(start, start + CHUNK)) text += `${entry.json()}\n`
      if (!output.write(text)) await output.drain()
      bar.update(Math.min(items.length, start + CHUNK))
    }
    for (const record of records)
      output.write(`${JSON.stringify({ format: 'strata-content', record } satisfies ContentLine)}\n`)
  } else {
    output.write(
      `# Thread ${threadId}\n\n${items.length} items, last seq ${lastSeq}${options.archive ? `, ${archived.length} archived` : ''}.\n`,
    )
    for (let start = 0; start < items.length; start += CHUNK) {
      let text = ''
      for (const entry of items.slice(start, start + CHUNK))
        text += markdownItem(entry.item(), archivedSeqs.has(entry.seq))
      if (!output.write(text)) await output.drain()
      bar.update(Math.min(items.length, start + CHUNK))
    }
    if (records.length > 0) {
      output.write(
        `\n## Content\n\n${records.map((record) => `- \`${record.id}\` ${record.type}, ${record.size} bytes`).join('\n')}\n`,
      )
    }
  }
  bar.stop()
  await output.drain()
  return 0
}

function markdownItem(item: Item, archived: boolean): string {
  const scope = item.type === 'message' && item.scope ? ` — ${item.scope.title}` : ''
  return `\n## #${item.seq} · ${item.level} · ${itemKind(item)}${scope}${archived ? ' (archived)' : ''}\n\n${itemText(item)}\n`
}

/** Two seq-sorted lists as one; a seq in both (an archive interrupted) is taken once, as archived. */
export function mergeBySeq<T extends { seq: number }>(active: readonly T[], archived: readonly T[]): T[] {
  const merged: T[] = []
  let a = 0
  let b = 0
  while (a < active.length || b < archived.length) {
    const left = active[a]
    const right = archived[b]
    if (right === undefined || (left !== undefined && left.seq < right.seq)) {
      merged.push(left as T)
      a++
    } else {
      if (left !== undefined && left.seq === right.seq) a++
      merged.push(right)
      b++
    }
  }
  return merged
}
