import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { ContentRecord, Item } from '@strata-memory/core'
import { itemFromLogRecord } from '@strata-memory/store-file'
import { CliError } from '../cli/cli-error'
import type { CommandContext } from '../cli/command-context'
import { checkThreadId, requireThread } from '../store/open-store'
import { describeStoreTarget } from '../store/store-target'
import { readLogFile } from '../verify/file-log-reader'
import { itemJsonFromLine } from './item-json'

/** One item of a thread: its seq, the item as the store reads it, and its JSON. */
export interface ThreadEntry {
  seq: number
  item(): Item
  json(): string
}

/** An entry of an item already read (Redis). */
class ReadEntry implements ThreadEntry {
  readonly seq: number
  readonly #item: Item
  constructor(item: Item) {
    this.seq = item.seq
    this.#item = item
  }
  item(): Item {
    return this.#item
  }
  json(): string {
    return JSON.stringify(this.#item)
  }
}

/** An entry of a file store line: the JSON is cut from the line when it can be ({@link itemJsonFromLine}). */
class LineEntry implements ThreadEntry {
  readonly seq: number
  readonly #line: string
  readonly #record: Record<string, unknown>
  constructor(seq: number, line: string, record: Record<string, unknown>) {
    this.seq = seq
    this.#line = line
    this.#record = record
  }
  item(): Item {
    return itemFromLogRecord(this.#record)
  }
  json(): string {
    return itemJsonFromLine(this.#line, this.#record) ?? JSON.stringify(this.item())
  }
}

/** A thread's items as the store reads them, active and archived, and its content records. */
export interface ThreadItems {
  active: ThreadEntry[]
  archived: ThreadEntry[]
  lastSeq: number
  records: ContentRecord[]
}

/**
 * Reads a thread for an export. A file store thread is read from its files directly, read-only, with
 * the store's own line decoding (`itemFromLogRecord`): a torn tail is left out (it was never
 * acknowledged) and left where it is, and a corrupt line is an error pointing to `strata verify`.
 * A Redis thread is read through the store.
 */
export async function readThreadItems(
  context: CommandContext,
  threadId: string,
  { archive }: { archive: boolean },
): Promise<ThreadItems> {
  checkThreadId(threadId)
  const open = await context.store()
  const { store, target } = open
  if (target.kind === 'redis') {
    await requireThread(open, threadId)
    const [head, active, archived] = await Promise.all([
      store.head(threadId),
      store.read(threadId),
      archive ? store.readArchive(threadId) : Promise.resolve([]),
    ])
    return {
      active: active.map((item) => new ReadEntry(item)),
      archived: archived.map((item) => new ReadEntry(item)),
      lastSeq: head.lastSeq,
      records: await store.queryContent(threadId),
    }
  }
  const folder = join(target.dir, 'agents', threadId)
  if (!existsSync(folder)) {
    throw new CliError(
      `Thread '${threadId}' not found in ${describeStoreTarget(target)}: \`strata threads\` lists the threads there.`,
    )
  }
  const items: Record<'active' | 'archive', ThreadEntry[]> = { active: [], archive: [] }
  let lastSeq = 0
  let torn = false
  const sink = {
    report(kind: string, message: string) {
      if (kind === 'torn-tail') {
        torn = true
        return
      }
      throw new CliError(`${threadId}: ${message} Run \`strata verify ${threadId}\` for how to repair it.`)
    },
    add(source: 'active' | 'archive', seq: number, record: Record<string, unknown>, where: { text: string }) {
      items[source].push(new LineEntry(seq, where.text, record))
      if (seq > lastSeq) lastSeq = seq
    },
  }
  await readLogFile(sink, 'active', join(folder, 'raw_traces.jsonl'), 'raw_traces.jsonl')
  if (archive)
    await readLogFile(sink, 'archive', join(folder, 'raw_traces_archive.jsonl'), 'raw_traces_archive.jsonl')
  else {
    // The last seq is the newest line of either file: read the archive's only for it.
    await readLogFile(
      { report: sink.report, add: (_source, seq) => (lastSeq = Math.max(lastSeq, seq)) },
      'archive',
      join(folder, 'raw_traces_archive.jsonl'),
      'raw_traces_archive.jsonl',
    )
  }
  if (torn)
    context.output.note(
      `${threadId}: left out a torn tail (an append never acknowledged); see \`strata verify\`.`,
    )
  // A seq in both files (an archive interrupted) is archived, as the store reads it.
  const archivedSeqs = new Set(items.archive.map((item) => item.seq))
  const active =
    archivedSeqs.size === 0 ? items.active : items.active.filter((item) => !archivedSeqs.has(item.seq))
  return { active, archived: items.archive, lastSeq, records: await store.queryContent(threadId) }
}
