import { join } from 'node:path'
import { StrataError } from '@strata-memory/core'
import { rewriteActive as rewriteLog } from './active-rewrite'
import { AppendHandles } from './append-handles'
import { migrateLegacy, trimArchiveData } from './archive-files'
import { directoryLocks } from './directory-locks'
import { storeFailed } from './file-errors'
import type { FileStoreEvent, ResolvedFileStoreOptions } from './file-store-options'
import type { HeldLease } from './held-lease'
import { retryStale } from './log-lines'
import { ACTIVE_FILE, ThreadFiles, type ThreadView } from './thread-files'
import { tornTailMover } from './torn-tail'

/** Threads whose parsed logs stay cached; the least recently used beyond this are dropped. */
const CACHED_THREADS = 256

/**
 * What the parts of the file store share (as `redisContext` is for the Redis store): the options, the
 * folders, the cache of thread files, the folder locks, and the reads that repair what a crash left
 * behind. One per store.
 */
export interface FileContext {
  readonly settings: ResolvedFileStoreOptions
  /** Sync writes before they are acknowledged (the `fsync` option). */
  readonly durable: boolean
  readonly onEvent: (event: FileStoreEvent) => void
  /** `<dir>/agents`: one folder per thread. */
  readonly agentsDirectory: string
  /** `<dir>/resources`: one folder per resource. */
  readonly resourcesDirectory: string
  /** The active logs kept open for the next append (closed when a log is replaced or forgotten). */
  readonly appendHandles: AppendHandles
  /** The cached files of a thread (the least recently used are dropped beyond 256). */
  threadFiles(threadId: string): ThreadFiles
  /** Drops a thread's cached files (deleted). */
  forget(threadId: string): void
  /** Drops every thread's cached files and closes the logs kept open: the store is closed. */
  close(): Promise<void>
  /** Runs `action` holding the lock of a thread's folder, or of a resource's (`resources/<id>/`). */
  lockedDirectory<T>(directory: string, action: () => Promise<T>): Promise<T>
  /** Runs `action` holding the thread's lock. */
  locked<T>(thread: ThreadFiles, action: () => Promise<T>): Promise<T>
  /**
   * The thread as it is now, read without the lock; anything a crash may have left (a pending tail,
   * items in both files, a line that does not parse) is looked at again, and repaired, holding the lock.
   */
  snapshot(thread: ThreadFiles): Promise<ThreadView>
  /** Holding the lock (taken by `locked`): brings both files up to date and repairs what a crash left behind. */
  repair(thread: ThreadFiles): Promise<void>
  /**
   * Holding the lock: rewrites the thread's active log as `view` shows it, the lines of `moved` going
   * to the archive (see `rewriteActive`). Returns how many did.
   */
  rewriteActive(thread: ThreadFiles, view: ThreadView, moved?: ReadonlySet<number>): Promise<number>
}

/** The shared part of one file store. */
export function fileContext(settings: ResolvedFileStoreOptions): FileContext {
  const { fsync: durable, onEvent } = settings
  const agentsDirectory = join(settings.dir, 'agents')
  const resourcesDirectory = join(settings.dir, 'resources')
  const threads = new Map<string, ThreadFiles>()
  const appendHandles = new AppendHandles()

  const threadFiles = (threadId: string): ThreadFiles => {
    let thread = threads.get(threadId)
    if (thread === undefined) {
      thread = new ThreadFiles(threadId, join(agentsDirectory, threadId))
      if (threads.size >= CACHED_THREADS) threads.delete(threads.keys().next().value!)
    } else {
      threads.delete(threadId)
    }
    threads.set(threadId, thread)
    return thread
  }

  const lockedDirectory = directoryLocks(settings, resourcesDirectory)
  const locked = <T>(thread: ThreadFiles, action: () => Promise<T>): Promise<T> =>
    lockedDirectory(thread.directory, () => {
      thread.lockHolds++
      return action()
    })

  const moveTornTail = tornTailMover(durable, onEvent)

  const rewriteActive = (thread: ThreadFiles, view: ThreadView, moved?: ReadonlySet<number>) =>
    rewriteLog(thread, view, {
      ...(moved === undefined ? {} : { moved }),
      durable,
      // The file at the path is about to be another: a handle on the old one would hold its space.
      beforeReplace: () => appendHandles.drop(thread.active.path),
    })

  /**
   * After a whole refresh that began with `held` the thread's lease (so after it was written) and
   * `resets` its cache's resets: the cache is the thread on disk, unless the lease changed or the cache
   * forgot everything meanwhile (then the next whole refresh says so).
   */
  const trustFrom = (thread: ThreadFiles, held: HeldLease | undefined, resets: number) => {
    if (held !== undefined && thread.held === held && thread.resets === resets) held.refreshedAt = resets
  }

  const repair = async (thread: ThreadFiles): Promise<void> => {
    // This store's lease, refreshed under it and unchanged: nothing on disk differs from the cache.
    const held = thread.held
    const resets = thread.resets
    if (held?.trusted(resets, thread.lockHolds)) return
    await retryStale(() => repairOnce(thread))
    // Repaired holding the lock, after the lease was written: the cache is the thread on disk.
    trustFrom(thread, held, resets)
  }

  const repairOnce = async (thread: ThreadFiles): Promise<void> => {
    const { active, archive } = thread
    await active.refresh()
    await archive.refresh()
    if (active.pending !== undefined) {
      await moveTornTail(thread, active.path, active.pending, (stats) => active.truncated(stats))
    }
    if (archive.pending !== undefined) {
      await moveTornTail(thread, archive.indexPath, archive.pending, (stats) => archive.truncated(stats))
    }
    if (archive.legacyPending !== undefined) {
      await moveTornTail(thread, archive.legacyPath, archive.legacyPending, () => archive.legacyTruncated())
      await archive.refresh()
    }
    try {
      await trimArchiveData(archive)
      // A thread of the first layout: its archive file's parts go into the index, once.
      await migrateLegacy(archive, durable)
    } catch (error) {
      throw storeFailed('repair the archive of', thread.directory, error)
    }
    const view = thread.view()
    if (view.overlap.length > 0) {
      await rewriteActive(thread, view)
      onEvent({
        type: 'archive-repaired',
        threadId: thread.threadId,
        seqs: [...view.overlap],
        message: `Finished an interrupted archive of thread '${thread.threadId}': seqs ${view.overlap.join(', ')} were in both the archive and the active log; they stay archived.`,
      })
    }
  }

  /**
   * A pending tail (a write in progress, or a torn one), items in both files (an archive in progress,
   * or an interrupted one) or a line that does not parse are looked at again holding the lock: only
   * then is it certain that no writer is busy, so a torn tail can be moved aside, an interrupted
   * archive finished and corruption reported.
   */
  const snapshot = async (thread: ThreadFiles): Promise<ThreadView> => {
    const held = thread.held
    const resets = thread.resets
    if (held?.trusted(resets)) return thread.view()
    let settled = true
    try {
      // Active log first, archive second: an archive commits to the archive before it replaces the
      // active log, so an item being archived meanwhile shows up in both (archived), never in neither.
      await thread.active.refresh()
      await thread.archive.refresh()
      settled =
        thread.active.pending === undefined &&
        thread.archive.pending === undefined &&
        thread.archive.legacyPending === undefined &&
        thread.view().overlap.length === 0 &&
        !thread.archive.hasLeftovers()
    } catch (error) {
      if (!StrataError.isInstance(error, 'STRATA_CORRUPT_LOG')) throw error
      settled = false
    }
    if (settled && thread.archive.legacyParts.length === 0) {
      // Refreshed whole after this store's lease was written (see HeldLease).
      trustFrom(thread, held, resets)
      return thread.view()
    }
    const repaired = locked(thread, async () => {
      await repair(thread)
      return thread.view()
    })
    if (!settled) return repaired
    // Only a first-layout archive not yet in the index: recorded now, so no later open scans it again.
    // Where that cannot be written (a read-only folder), the thread is read as it is.
    return repaired.catch((error: unknown) => {
      if (StrataError.isInstance(error, 'STRATA_STORE_FAILED')) return thread.view()
      throw error
    })
  }

  return {
    settings,
    durable,
    onEvent,
    agentsDirectory,
    resourcesDirectory,
    appendHandles,
    threadFiles,
    forget(threadId) {
      threads.delete(threadId)
      appendHandles.drop(join(agentsDirectory, threadId, ACTIVE_FILE))
    },
    close() {
      threads.clear()
      return appendHandles.dropAll()
    },
    lockedDirectory,
    locked,
    snapshot,
    repair,
    rewriteActive,
  }
}
