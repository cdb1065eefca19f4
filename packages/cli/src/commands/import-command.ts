import { readFile } from 'node:fs/promises'
import type { ContentRecord, Item, JsonObject, UnsequencedItem } from '@strata-memory/core'
import { CliError } from '../cli/cli-error'
import type { CommandContext } from '../cli/command-context'
import { checkThreadId, shownThreadId } from '../store/open-store'
import type { ParsedExport, ThreadExportHeader } from './thread-export-format'

const BATCH = 1_000

/**
 * `strata import <file> [--thread id]`: writes a JSONL export (made with `--archive`) into a thread
 * that has never been written, with the same seqs, archive, content and state.
 */
export async function importCommand(
  context: CommandContext,
  file: string,
  options: { thread?: string },
): Promise<number> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    throw new CliError(`Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`)
  }
  const parsed = parseExport(text, file)
  const threadId = options.thread ?? parsed.header.threadId
  checkThreadId(threadId)
  const { store } = await context.store({ create: true })
  const head = await store.head(threadId)
  if (head.lastSeq !== 0) {
    throw new CliError(
      `Thread '${shownThreadId(threadId)}' already has ${head.lastSeq} items: import into a new thread (--thread <id>).`,
    )
  }
  let lastSeq = 0
  for (let start = 0; start < parsed.items.length; start += BATCH) {
    const batch = parsed.items.slice(start, start + BATCH).map(withoutSeq)
    const written = await store.append(threadId, batch, { expectedSeq: lastSeq })
    lastSeq = written.at(-1)?.seq ?? lastSeq
  }
  const archivedSeqs = parsed.header.archived.flatMap((range) =>
    Array.from({ length: range.toSeq - range.fromSeq + 1 }, (_value, index) => range.fromSeq + index),
  )
  if (archivedSeqs.length > 0) await store.archive(threadId, { seqs: archivedSeqs, expectedSeq: lastSeq })
  if (parsed.records.length > 0) {
    if (!store.putContent)
      throw new CliError('This store keeps no content: the content records were not imported.')
    for (const record of parsed.records) await store.putContent(threadId, record)
  }
  // Last: the state names seqs (cursors, marks) that now exist, and the Mastra thread record, once
  // written, makes the thread visible to Mastra.
  if (parsed.state !== undefined) await store.setState(threadId, parsed.state)
  const { resourceId } = parsed.header
  if (resourceId !== undefined) {
    if (!store.setThreadResource || !store.touchResourceThread) {
      context.output.note(`This store keeps no resources: the thread was not bound to '${resourceId}'.`)
    } else {
      await store.setThreadResource(threadId, resourceId, { expected: undefined })
      const newest = parsed.items.reduce((latest, item) => Math.max(latest, item.ts ?? 0), 0)
      await store.touchResourceThread(resourceId, threadId, newest > 0 ? newest : Date.now())
    }
  }
  context.output.result(
    { threadId, items: parsed.items.length, archived: archivedSeqs.length, content: parsed.records.length },
    () =>
      `Imported ${parsed.items.length} items (${archivedSeqs.length} archived) and ${parsed.records.length} content records into ${shownThreadId(threadId)}.`,
  )
  return 0
}

function withoutSeq(item: Item): UnsequencedItem {
  const { seq: _seq, ...rest } = item
  return rest as UnsequencedItem
}

/** Parses and checks an export: a header, items numbered 1…n without a gap, then content records. */
export function parseExport(text: string, file: string): ParsedExport {
  const lines = text.split('\n').filter((line) => line.trim() !== '')
  const parse = (line: string, number: number): Record<string, unknown> => {
    try {
      const value = JSON.parse(line) as unknown
      if (typeof value === 'object' && value !== null && !Array.isArray(value))
        return value as Record<string, unknown>
    } catch {}
    throw new CliError(
      `${file}:${number}: not a JSON object; is this a \`strata export --format jsonl\` file?`,
    )
  }
  const header = parse(lines[0] ?? '{}', 1) as unknown as ThreadExportHeader
  if (header.format !== 'strata-thread' || header.version !== 1) {
    throw new CliError(`${file}: not a strata thread export (its first line must be the export header).`)
  }
  if (
    header.resourceId !== undefined &&
    (typeof header.resourceId !== 'string' || header.resourceId === '')
  ) {
    throw new CliError(`${file}:1: the header's resourceId must be a non-empty string.`)
  }
  const items: Item[] = []
  const records: ContentRecord[] = []
  let state: JsonObject | undefined
  lines.slice(1).forEach((line, index) => {
    const value = parse(line, index + 2)
    if (value.format === 'strata-state') {
      if (typeof value.state !== 'object' || value.state === null || Array.isArray(value.state)) {
        throw new CliError(`${file}:${index + 2}: the state line's state must be a JSON object.`)
      }
      state = value.state as JsonObject
      return
    }
    if (value.format === 'strata-content') {
      records.push(value.record as ContentRecord)
      return
    }
    const item = value as unknown as Item
    if (item.seq !== items.length + 1) {
      throw new CliError(
        header.withArchive
          ? `${file}:${index + 2}: seq ${String(item.seq)} where ${items.length + 1} was expected.`
          : `${file}: exported without --archive (archived items missing): export it again with --archive to import it.`,
      )
    }
    items.push(item)
  })
  return { header, items, records, state }
}
