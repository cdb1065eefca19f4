import type { ContentRecord, Item, JsonObject } from '@strata-memory/core'
import { CliError } from '../cli/cli-error'
import type { CommandContext } from '../cli/command-context'
import { checkThreadId, requireThread, shownThreadId } from '../store/open-store'
import { describeStoreTarget } from '../store/store-target'

/** One item of a thread, active or archived: its seq, the item as the store reads it, and its JSON. */
export interface ThreadEntry {
  seq: number
  archived: boolean
  item(): Item
  json(): string
}

/** An item read, with its JSON when the store hands it over (cut from the store's own text). */
interface Read {
  item: Item
  json?: () => string
}

/** An entry of an item already read. */
class ReadEntry implements ThreadEntry {
  readonly seq: number
  readonly archived: boolean
  readonly #read: Read
  constructor(read: Read, archived: boolean) {
    this.seq = read.item.seq
    this.archived = archived
    this.#read = read
  }
  item(): Item {
    return this.#read.item
  }
  json(): string {
    return this.#read.json?.() ?? JSON.stringify(this.#read.item)
  }
}

/** A thread's items in seq order, active and archived (a seq in both is archived), and its content. */
export interface ThreadItems {
  entries: Iterable<ThreadEntry>
  /** Items the entries cover, for a progress bar. */
  size: number
  records: ContentRecord[]
  /** The thread's state object (core's cursors and marks, an adapter's thread record), if it has one. */
  state: JsonObject | undefined
}

/**
 * Two seq-ordered lists as one sequence of entries; a seq in both (an archive interrupted) is taken
 * once, from the archive.
 */
function* mergeBySeq(active: readonly Read[], archive: readonly Read[]): Generator<ThreadEntry> {
  let left = 0
  let right = 0
  while (left < active.length || right < archive.length) {
    if (
      right >= archive.length ||
      (left < active.length && active[left]!.item.seq < archive[right]!.item.seq)
    ) {
      yield new ReadEntry(active[left++]!, false)
      continue
    }
    if (left < active.length && active[left]!.item.seq === archive[right]!.item.seq) left++
    yield new ReadEntry(archive[right++]!, true)
  }
}

/**
 * The thread's active and archived items, read by the store's audit (`flags.audit`), read-only: a
 * torn tail is left out (it was never acknowledged) and left where it is, and a corrupt line is an
 * error pointing to `strata verify`. A store without the audit is read through `read`/`readArchive`.
 */
async function readItems(
  context: CommandContext,
  threadId: string,
  progress: (done: number, total: number) => void,
): Promise<{ active: Read[]; archived: Read[] }> {
  const open = await context.store()
  const { store } = open
  if (typeof store.audit !== 'function') {
    await requireThread(open, threadId)
    const [active, archived] = await Promise.all([store.read(threadId), store.readArchive(threadId)])
    const reads = (items: Item[]) => items.map((item) => ({ item }))
    return { active: reads(active), archived: reads(archived) }
  }
  if (!(await store.listThreads()).includes(threadId)) {
    throw new CliError(
      `Thread '${shownThreadId(threadId)}' not found in ${describeStoreTarget(open.target)}: \`strata threads\` lists the threads there.`,
    )
  }
  const active: Read[] = []
  const archived: Read[] = []
  const report = await store.audit(threadId, {
    onItem: (item, source, json) => (source === 'active' ? active : archived).push({ item, json }),
    onProgress: progress,
  })
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
  // The audit hands items over in no particular order (a store reads its archive a part at a time).
  const bySeq = (left: Read, right: Read) => left.item.seq - right.item.seq
  return { active: active.sort(bySeq), archived: archived.sort(bySeq) }
}

/** Reads a thread for an export: its items in seq order, its content records and its state. */
export async function readThreadItems(
  context: CommandContext,
  threadId: string,
  { progress = () => undefined }: { progress?: (done: number, total: number) => void } = {},
): Promise<ThreadItems> {
  checkThreadId(threadId)
  const { active, archived } = await readItems(context, threadId, progress)
  const { store } = await context.store()
  const [records, state] = await Promise.all([store.queryContent(threadId), store.getState(threadId)])
  return { entries: mergeBySeq(active, archived), size: active.length + archived.length, records, state }
}
