import { StrataError } from '../errors'
import type { Item, JsonObject, SeqRange } from '../items'
import { indexAfterSeq } from '../items/seq-search'
import { readArchivePages } from '../stores/archive-pages'
import type { StrataStoreBase } from '../stores/store'
import { type TelemetryTracer, traced } from '../telemetry'
import type { TokenCounter } from '../tokens'
import { readDigest } from './digest-slot'
import type { ArchiveRangeReader } from './item-index'
import type { SealOptions } from './sealed-items'
import { ThreadLog } from './thread-log'

/** Options of {@link loadThreadLog}. */
export interface LoadOptions<L extends string = string> {
  /**
   * The thread's state, when the caller reads it anyway (it holds the digest on a store without slots,
   * and on a thread written before them); read here otherwise, only when needed.
   */
  state?: Promise<JsonObject | undefined> | JsonObject | undefined
  /** Reports the open as a `strata.thread.open` span. */
  tracer?: TelemetryTracer | undefined
  /**
   * Seals what no view can show again (see `ThreadLog.seal`): the items of long-closed scopes are held
   * as stubs and read back from the store by the paths that need them.
   */
  seal?: Omit<SealOptions<L>, 'read'> | undefined
}

/**
 * Opens a thread's log from the active log and the digest (see `LogDigest`: in its slot, or the state),
 * which stands for every item up to its seq, so none of the archive is read, except items archived above the
 * digest's seq (read a page at a time) and, for a thread without a usable digest, the whole archive once,
 * a page at a time. Items are taken in seq order (archived and active items interleave), so scopes,
 * turns and totals come out as a replay of everything would give them.
 */
export function loadThreadLog<L extends string>(
  store: StrataStoreBase,
  threadId: string,
  counter: TokenCounter,
  options: LoadOptions<L> = {},
): Promise<ThreadLog<L>> {
  return traced(options.tracer, 'strata.thread.open', { 'strata.thread.id': threadId }, async (span) => {
    // A store that streams its active log gives it a page at a time, sealed as it comes (a thread
    // without an archive; any other opens as below).
    if (options.seal !== undefined && typeof store.readActivePages === 'function') {
      const streamed = await streamedLog<L>(store, threadId, counter, options.seal)
      if (streamed !== undefined) {
        span?.setAttributes({
          'strata.open.path': 'stream',
          'strata.open.items_read': streamed.items,
          'strata.open.active_items': streamed.items,
          'strata.open.archive_items_read': 0,
          'strata.open.archived_items': 0,
          'strata.open.sealed_items': streamed.sealed,
        })
        return streamed.log
      }
    }
    // The active log first, then the counters: a store that reads its files for every call (the file
    // store) then serves `head` from what it just read; an archive that grows in between is counted
    // as more than was read, which only makes the open read the archive above the digest.
    let active = await store.read(threadId)
    let head = await store.head(threadId)
    const read: ArchiveRangeReader = (range) => store.readArchive(threadId, range)
    // Read after the counters, and only for a thread with an archive (it grows with the archive).
    const digest =
      head.archivedCount === 0
        ? undefined
        : await readDigest<L>(store, threadId, counter, () => options.state ?? store.getState(threadId))
    if (digest !== undefined && digest.throughSeq > head.lastSeq) {
      // Stored after the counters were read (another writer appended and archived meanwhile): the
      // log is read again, once, rather than the whole archive replayed.
      active = await store.read(threadId)
      head = await store.head(threadId)
    }
    let log: ThreadLog<L>
    let path: 'active' | 'digest' | 'replay'
    let start = 0
    /** Where the archive is read from (none: nothing to read). */
    let fromSeq: number | undefined
    if (head.archivedCount === 0) {
      path = 'active'
      log = new ThreadLog<L>(counter, read)
    } else {
      const through = digest === undefined || digest.throughSeq > head.lastSeq ? 0 : digest.throughSeq
      const activeBelow = indexAfterSeq(active, through)
      const archivedAbove = head.archivedCount - (through - activeBelow)
      if (digest !== undefined && through > 0 && archivedAbove >= 0) {
        path = 'digest'
        log = new ThreadLog<L>(counter, read, { digest, filter: digest.filter.clone(), through })
        for (let index = 0; index < activeBelow; index++) log.take(active[index] as Item<L>, false, false)
        log.archivedCount = through - activeBelow
        start = activeBelow
        if (archivedAbove > 0) fromSeq = through + 1
      } else {
        path = 'replay'
        log = new ThreadLog<L>(counter, read)
        fromSeq = 1
      }
    }
    // Archived and active items interleave: each archive page is merged in as it comes, so the open
    // holds one page of the archive at a time.
    let b = start
    let archivedRead = 0
    if (fromSeq !== undefined) {
      for await (const page of readArchivePages(store, threadId, { fromSeq })) {
        for (const item of page) {
          while (b < active.length && active[b]!.seq < item.seq) log.take(active[b++] as Item<L>, false)
          log.take(item as Item<L>, true)
        }
        archivedRead += page.length
      }
      log.digestDue = archivedRead > 0
    }
    while (b < active.length) log.take(active[b++] as Item<L>, false)
    const sealed =
      options.seal === undefined ? 0 : log.seal({ ...options.seal, read: sealedReader(store, threadId) })
    span?.setAttributes({
      'strata.open.path': path,
      'strata.open.items_read': active.length + archivedRead,
      'strata.open.active_items': active.length,
      'strata.open.archive_items_read': archivedRead,
      'strata.open.archived_items': head.archivedCount,
      'strata.open.sealed_items': sealed,
    })
    return log
  })
}

/**
 * The log of a thread without an archive, taken from `readActivePages` a page at a time and sealed as
 * it comes; undefined when the thread has an archive or changed under the read (then it opens whole).
 */
async function streamedLog<L extends string>(
  store: StrataStoreBase,
  threadId: string,
  counter: TokenCounter,
  seal: Omit<SealOptions<L>, 'read'>,
): Promise<{ log: ThreadLog<L>; items: number; sealed: number } | undefined> {
  const log = new ThreadLog<L>(counter, (range) => store.readArchive(threadId, range))
  // The store may say how long the log is: a long one is sealed from its first page.
  const pages: unknown = store.readActivePages!(threadId, { onCount: (count) => log.expectCount(count) })
  // A wrapper that made the method async (a promise, not pages): the log is read whole.
  if (typeof (pages as Partial<AsyncIterable<unknown>> | null)?.[Symbol.asyncIterator] !== 'function')
    return undefined
  log.beginSealing({ ...seal, read: sealedReader(store, threadId) })
  let items = 0
  try {
    for await (const page of pages as AsyncIterable<readonly Item[]>) {
      for (let index = 0; index < page.length; index++) log.take(page[index] as Item<L>, false)
      items += page.length
    }
  } catch (error) {
    if (StrataError.isInstance(error, 'STRATA_SEQ_CONFLICT')) return undefined
    throw error
  }
  const head = await store.head(threadId)
  if (head.archivedCount > 0 || head.lastSeq !== log.lastSeq || head.activeCount !== log.activeCount)
    return undefined
  return { log, items, sealed: await log.endSealing() }
}

/**
 * Reads sealed items back: the store's active log for their range, and the archive for any that
 * another writer archived since (an item is in one or the other, never gone). A seq in neither is
 * history the store lost.
 */
function sealedReader(store: StrataStoreBase, threadId: string) {
  return async ({ fromSeq, toSeq }: SeqRange): Promise<readonly Item[]> => {
    const wanted = toSeq - fromSeq + 1
    const active = await store.read(threadId, { fromSeq, toSeq })
    if (active.length === wanted) return active
    const archived = await store.readArchive(threadId, { fromSeq, toSeq })
    const items = [...active, ...archived].sort((left, right) => left.seq - right.seq)
    if (items.length < wanted) {
      throw new StrataError({
        code: 'STRATA_THREAD_LOST',
        message: `Thread '${threadId}' lost history: items between seq ${fromSeq} and ${toSeq} this process read on open are in neither its active log nor its archive. The store lost data or the thread was deleted; restore the store, or delete the thread and open it again.`,
        details: { threadId },
      })
    }
    return items
  }
}
