import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { ContentRecord, Item, JsonObject } from '@strata-memory/core'
import { itemFromLogRecord } from '@strata-memory/store-file'
import { CliError } from '../cli/cli-error'
import type { CommandContext } from '../cli/command-context'
import { checkThreadId, requireThread, shownThreadId } from '../store/open-store'
import { describeStoreTarget } from '../store/store-target'
import { archivedLines, archiveSize } from '../verify/file-archive-reader'
import { type CommittedLine, committedLines, readLogText } from '../verify/file-log-reader'
import type { ProblemKind } from '../verify/verify-problem'
import { itemJsonFromLine } from './item-json'

/** One item of a thread, active or archived: its seq, the item as the store reads it, and its JSON. */
export interface ThreadEntry {
  seq: number
  archived: boolean
  item(): Item
  json(): string
}

/** An entry of an item already read (Redis). */
class ReadEntry implements ThreadEntry {
  readonly seq: number
  readonly archived: boolean
  readonly #item: Item
  constructor(item: Item, archived: boolean) {
    this.seq = item.seq
    this.archived = archived
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
  readonly archived: boolean
  readonly #line: CommittedLine
  constructor(line: CommittedLine, archived: boolean) {
    this.seq = line.seq
    this.archived = archived
    this.#line = line
  }
  item(): Item {
    return itemFromLogRecord(this.#line.record)
  }
  json(): string {
    return itemJsonFromLine(this.#line.text, this.#line.record) ?? JSON.stringify(this.item())
  }
}

/** A thread's items in seq order, active and archived (a seq in both is archived), and its content. */
export interface ThreadItems {
  entries: Iterable<ThreadEntry>
  /** Characters (file store) or items (Redis) the entries cover, for a progress bar. */
  size: number
  records: ContentRecord[]
  /** The thread's state object (core's cursors and marks, an adapter's thread record), if it has one. */
  state: JsonObject | undefined
}

/**
 * Two seq-ordered sequences as one sequence of entries; a seq in both (an archive interrupted) is
 * taken once, from the archive.
 */
function* mergeBySeq<T extends { seq: number }>(
  active: Iterator<T>,
  archive: Iterator<T>,
  entry: (value: T, archived: boolean) => ThreadEntry,
): Generator<ThreadEntry> {
  let left = active.next()
  let right = archive.next()
  while (!left.done || !right.done) {
    if (right.done || (!left.done && left.value.seq < right.value.seq)) {
      yield entry(left.value as T, false)
      left = active.next()
      continue
    }
    if (!left.done && left.value.seq === right.value.seq) left = active.next()
    yield entry(right.value, true)
    right = archive.next()
  }
}

/**
 * Reads a thread for an export. A file store thread is read from its files directly, read-only, line
 * by line with the store's own decoding (`itemFromLogRecord`): a torn tail is left out (it was never
 * acknowledged) and left where it is, and a corrupt line is an error pointing to `strata verify`.
 * A Redis thread is read through the store.
 */
export async function readThreadItems(
  context: CommandContext,
  threadId: string,
  { progress = () => undefined }: { progress?: (done: number, total: number) => void } = {},
): Promise<ThreadItems> {
  checkThreadId(threadId)
  const open = await context.store()
  const { store, target } = open
  if (target.kind === 'redis') {
    await requireThread(open, threadId)
    const [active, archived, records, state] = await Promise.all([
      store.read(threadId),
      store.readArchive(threadId),
      store.queryContent(threadId),
      store.getState(threadId),
    ])
    const total = active.length + archived.length
    const merged = mergeBySeq(
      active.values(),
      archived.values(),
      (item, isArchived) => new ReadEntry(item, isArchived),
    )
    const entries = (function* () {
      let done = 0
      for (const entry of merged) {
        if (++done % 16_384 === 0) progress(done, total)
        yield entry
      }
    })()
    return { entries, size: active.length + archived.length, records, state }
  }
  const folder = join(target.dir, 'agents', threadId)
  if (!existsSync(folder)) {
    throw new CliError(
      `Thread '${shownThreadId(threadId)}' not found in ${describeStoreTarget(target)}: \`strata threads\` lists the threads there.`,
    )
  }
  const activeText = (await readLogText(join(folder, 'raw_traces.jsonl'))) ?? ''
  // The archive is read a part at a time (see verify/file-archive-reader), never as one string.
  const archiveBytes = archiveSize(folder)
  const report = (kind: ProblemKind, message: string) => {
    if (kind === 'torn-tail') {
      context.output.note(
        `${shownThreadId(threadId)}: left out a torn tail (an append never acknowledged): ${message}`,
      )
      return
    }
    throw new CliError(
      `${shownThreadId(threadId)}: ${message} Run \`strata verify ${threadId}\` for how to repair it.`,
    )
  }
  const total = activeText.length + archiveBytes
  // Both files are read side by side: the characters read of each add up to how far the export is.
  let activeRead = 0
  let archiveRead = 0
  const entries = mergeBySeq(
    committedLines(activeText, 'raw_traces.jsonl', report, (characters) => {
      activeRead = characters
      progress(activeRead + archiveRead, total)
    }),
    archivedLines(folder, report, (bytes) => {
      archiveRead = bytes
      progress(activeRead + archiveRead, total)
    }),
    (line, archived) => new LineEntry(line, archived),
  )
  return {
    entries,
    size: total,
    records: await store.queryContent(threadId),
    state: await store.getState(threadId),
  }
}
