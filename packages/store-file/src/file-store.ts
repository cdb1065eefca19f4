import { randomBytes } from 'node:crypto'
import { fstatSync } from 'node:fs'
import { type FileHandle, mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import {
  type AppendOptions,
  type ArchiveOptions,
  assertSerializable,
  assertThreadId,
  type ContentQuery,
  type ContentRecord,
  type Item,
  isValidThreadId,
  type JsonObject,
  jsonCopy,
  type LeaseWriteOptions,
  type ReadOptions,
  type StoreLeaseMethods,
  type StoreResourceMethods,
  StrataError,
  type StrataStore,
  type ThreadHead,
  type UnsequencedItem,
} from '@strata-memory/core'
import {
  checkAppendArguments,
  checkArchiveOptions,
  checkContentQuery,
  checkContentRecord,
  checkReadOptions,
  checkSeq,
  checkState,
  compareContentNewestFirst,
  matchesContentQuery,
} from '@strata-memory/core/store-kit'
import {
  appendToArchive,
  archivedLine,
  migrateLegacy,
  readArchivePage,
  trimArchiveData,
} from './archive-files'
import { guardedCalls } from './call-deadline'
import {
  isContentFileName,
  readAllContentRecords,
  readContentRecord,
  writeContentRecord,
} from './content-files'
import { directoryLocks } from './directory-locks'
import { linesToChunks, syncDirectory, writeFileAtomic, writeFully } from './durable-fs'
import { fileAudit } from './file-audit'
import { isMissing, storeFailed } from './file-errors'
import { fileLease } from './file-lease'
import { fileResources } from './file-resources'
import { type FileStoreOptions, resolveFileStoreOptions } from './file-store-options'
import { readJsonObject } from './json-file'
import { itemFromLogLine, prepareLogLine, sequenceLogLine, withoutBatchEnd } from './line-format'
import type { LogFile } from './log-file'
import { writeMirrors } from './mirrors'
import { storedResend } from './resent-append'
import { rangeOf } from './store-arguments'
import {
  ACTIVE_FILE,
  INDEX_FILE,
  LEGACY_ARCHIVE_FILE,
  STATE_FILE,
  ThreadFiles,
  type ThreadView,
} from './thread-files'
import { tornTailMover } from './torn-tail'

/** Threads whose parsed logs stay cached; the least recently used beyond this are dropped. */
const CACHED_THREADS = 256

/**
 * The JSONL file store: the embedded default. Every thread is a folder
 * `<dir>/agents/<threadId>/` holding `raw_traces.jsonl` (the active log, one item per line, the
 * source of truth), `raw_traces_archive.jsonl`, `state.json` and `content/<id>.json`, plus readable
 * mirrors (`episodic.jsonl`, `semantic.jsonl`, `summaries/recent-*.md`), and, for resources, the
 * thread's binding (`resource.json`) and vectors (`vectors.json`); a resource is a folder
 * `<dir>/resources/<resourceId>/` (see `fileResources`). Appends are whole lines,
 * synced before they are acknowledged; archives replace files by rename; a per-thread lock file and
 * the seq check make several processes on one folder safe. See the package README for the format.
 *
 * @example
 * const memory = createMemory({ store: fileStore({ dir: './memory' }) })
 */
export function fileStore(
  options: FileStoreOptions = {},
): StrataStore & StoreLeaseMethods & StoreResourceMethods {
  const settings = resolveFileStoreOptions(options)
  const { fsync: durable, onEvent } = settings
  const agentsDirectory = join(settings.dir, 'agents')
  const resourcesDirectory = join(settings.dir, 'resources')
  const threads = new Map<string, ThreadFiles>()

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

  /** Runs `action` holding the lock of a thread's folder, or of a resource's (`resources/<id>/`). */
  const lockedDirectory = directoryLocks(settings, resourcesDirectory)
  const locked = <T>(thread: ThreadFiles, action: () => Promise<T>): Promise<T> =>
    lockedDirectory(thread.directory, action)

  const { fence, ...leaseMethods } = fileLease({ threadFiles, locked })
  const { forgetThread, ...resourceMethods } = fileResources({
    resourcesDirectory,
    threadFiles,
    lockedDirectory,
    durable,
  })

  /**
   * The thread as it is now, read without the lock. A pending tail (a write in progress, or a torn
   * one), items in both files (an archive in progress, or an interrupted one) or a line that does not
   * parse are looked at again holding the lock: only then is it certain that no writer is busy, so a
   * torn tail can be moved aside, an interrupted archive finished and corruption reported.
   */
  const snapshot = async (thread: ThreadFiles): Promise<ThreadView> => {
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
    if (settled && thread.archive.legacyParts.length === 0) return thread.view()
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

  /** Holding the lock: brings both files up to date and repairs what a crash left behind. */
  const repair = async (thread: ThreadFiles): Promise<void> => {
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
    const { overlap, activeLines, activeSeqs } = thread.view()
    if (overlap.length > 0) {
      await replaceLog(thread.active, [...activeLines], [...activeSeqs])
      onEvent({
        type: 'archive-repaired',
        threadId: thread.threadId,
        seqs: [...overlap],
        message: `Finished an interrupted archive of thread '${thread.threadId}': seqs ${overlap.join(', ')} were in both the archive and the active log; they stay archived.`,
      })
    }
  }

  const moveTornTail = tornTailMover(durable, onEvent)

  /**
   * Holding the lock: replaces the active log with `lines` atomically, written a chunk of lines at a
   * time (never one string of the whole log).
   */
  const replaceLog = async (file: LogFile, lines: string[], seqs: number[]): Promise<void> => {
    const clean = lines.map(withoutBatchEnd)
    const chunks = linesToChunks(clean)
    try {
      await writeFileAtomic(file.path, chunks, durable)
      file.replaced(clean, seqs, chunks, await stat(file.path))
    } catch (error) {
      throw storeFailed('rewrite', file.path, error)
    }
  }

  /** Holding the lock: appends lines in one write, synced; on failure the file is cut back. */
  const appendLines = async (thread: ThreadFiles, lines: string[], seqs: number[]): Promise<void> => {
    const file = thread.active
    const created = file.missing
    const sizeBefore = file.size
    const data = Buffer.from(`${lines.join('\n')}\n`)
    let handle: FileHandle | undefined
    try {
      handle = await open(file.path, 'a')
      try {
        await writeFully(handle, data)
        if (durable) await handle.sync()
      } catch (error) {
        // All or nothing: what was written of a failed append is cut off again.
        await handle.truncate(sizeBefore).catch(() => {})
        throw error
      }
      const stats = fstatSync(handle.fd)
      if (created && durable) {
        await syncDirectory(thread.directory)
        await syncDirectory(agentsDirectory)
        await syncDirectory(settings.dir)
      }
      file.appended(lines, seqs, data, stats)
    } catch (error) {
      file.reset()
      throw storeFailed('append to', file.path, error)
    } finally {
      await handle?.close()
    }
  }

  const readLines = (
    seqs: readonly number[],
    lines: readonly string[],
    options: ReadOptions,
    file: LogFile,
  ): Item[] => {
    const [start, end] = rangeOf(seqs, options)
    const items: Item[] = []
    // The file's own lines (not a copy filtered after an interrupted archive): their items line up.
    const parsed = lines === file.lines
    for (let index = start; index < end; index += 1) {
      items.push((parsed ? file.takeItem(index) : undefined) ?? itemFromLogLine(lines[index]!))
    }
    return items
  }

  const hasData = async (directory: string): Promise<boolean> => {
    const sizes = await Promise.all(
      [ACTIVE_FILE, LEGACY_ARCHIVE_FILE, INDEX_FILE, STATE_FILE].map((name) =>
        stat(join(directory, name)).then(
          (stats) => (name === STATE_FILE ? 1 : stats.size),
          () => 0,
        ),
      ),
    )
    if (sizes.some((size) => size > 0)) return true
    const names = await readdir(join(directory, 'content')).catch(() => [] as string[])
    return names.some(isContentFileName)
  }

  return guardedCalls(
    {
      specificationVersion: 'v2',
      name: 'file',
      flags: { persistent: true, shared: true, leases: true, resources: true, audit: true },
      ...leaseMethods,
      ...resourceMethods,
      audit: fileAudit({
        agentsDirectory,
        threadFiles,
        mend: (thread) => locked(thread, () => repair(thread)),
      }),

      async append(
        threadId: string,
        items: readonly UnsequencedItem[],
        options: AppendOptions,
      ): Promise<Item[]> {
        assertThreadId(threadId)
        const expectedSeq = checkAppendArguments(items, options)
        // Serialised and copied before the first await: later changes to the caller's objects are not
        // stored, and the copies become the items returned.
        const prepared = items.map(prepareLogLine)
        const stored = items.map((item) => jsonCopy(item) as Item)
        const thread = threadFiles(threadId)
        // For a thread not seen yet (or no items), check without the lock first: a stale expectedSeq
        // then fails before a new thread's folder is made. Otherwise the check under the lock suffices.
        // The very same append already stored (a re-send after a lost reply or a time-out) is returned.
        if (prepared.length === 0 || (thread.active.missing && thread.archive.missing)) {
          const view = await snapshot(thread)
          const resent =
            view.lastSeq === expectedSeq
              ? undefined
              : await storedResend(view, prepared, expectedSeq, (seq) => archivedLine(thread.archive, seq))
          if (resent !== undefined) return resent
          checkSeq(threadId, expectedSeq, view.lastSeq)
          if (prepared.length === 0) return []
        }
        return locked(thread, async () => {
          // The lease is checked under the lock every write takes: no other owner's write slips between.
          await fence(thread, options, 'append')
          await repair(thread)
          const { lastSeq } = thread.view()
          const resent =
            lastSeq === expectedSeq
              ? undefined
              : await storedResend(thread.view(), prepared, expectedSeq, (seq) =>
                  archivedLine(thread.archive, seq),
                )
          if (resent !== undefined) return resent
          checkSeq(threadId, expectedSeq, lastSeq)
          const batchEnd = prepared.length > 1 ? lastSeq + prepared.length : undefined
          const seqs = prepared.map((_, index) => lastSeq + index + 1)
          const lines = prepared.map((line, index) => sequenceLogLine(line, seqs[index]!, batchEnd))
          await appendLines(thread, lines, seqs)
          stored.forEach((item, index) => {
            item.seq = seqs[index]!
          })
          if (settings.mirrors) {
            await writeMirrors(thread.directory, stored, lines, (file, error) =>
              onEvent({
                type: 'mirror-failed',
                threadId,
                file,
                error,
                message: `Could not write the mirror ${file} of thread '${threadId}' (${String(error)}); raw_traces.jsonl has the items.`,
              }),
            )
          }
          return stored
        })
      },

      async read(threadId: string, options: ReadOptions = {}): Promise<Item[]> {
        assertThreadId(threadId)
        checkReadOptions(options, 'read')
        const thread = threadFiles(threadId)
        const view = await snapshot(thread)
        return readLines(view.activeSeqs, view.activeLines, options, thread.active)
      },

      async head(threadId: string): Promise<ThreadHead> {
        assertThreadId(threadId)
        const view = await snapshot(threadFiles(threadId))
        return {
          lastSeq: view.lastSeq,
          activeCount: view.activeSeqs.length,
          archivedCount: view.archivedCount,
        }
      },

      async archive(threadId: string, options: ArchiveOptions): Promise<number> {
        assertThreadId(threadId)
        const { seqs, expectedSeq } = checkArchiveOptions(options)
        const wanted = new Set(seqs)
        const thread = threadFiles(threadId)
        const ahead = await snapshot(thread)
        if (expectedSeq !== undefined) checkSeq(threadId, expectedSeq, ahead.lastSeq)
        if (!ahead.activeSeqs.some((seq) => wanted.has(seq))) return 0
        return locked(thread, async () => {
          await fence(thread, options, 'archive')
          await repair(thread)
          const view = thread.view()
          if (expectedSeq !== undefined) checkSeq(threadId, expectedSeq, view.lastSeq)
          const kept = { lines: [] as string[], seqs: [] as number[] }
          const moved = { lines: [] as string[], seqs: [] as number[] }
          view.activeSeqs.forEach((seq, index) => {
            const target = wanted.has(seq) ? moved : kept
            target.lines.push(view.activeLines[index]!)
            target.seqs.push(seq)
          })
          if (moved.seqs.length === 0) return 0
          // Archive first (appended, committed by its index line), active log second: after a crash in
          // between, the moved items are in both, which the recovery rule reads as archived. Never in
          // neither. The archive is appended to, never rewritten: its size costs nothing here.
          await appendToArchive(thread.archive, moved.lines, moved.seqs, durable)
          await replaceLog(thread.active, kept.lines, kept.seqs)
          return moved.seqs.length
        })
      },

      async readArchive(threadId: string, options: ReadOptions = {}): Promise<Item[]> {
        assertThreadId(threadId)
        checkReadOptions(options, 'readArchive')
        const thread = threadFiles(threadId)
        await snapshot(thread)
        // A page at a time: only the parts of the archive that can hold the range are read.
        return readArchivePage(thread.archive, options)
      },

      async putContent(threadId: string, record: ContentRecord): Promise<void> {
        assertThreadId(threadId)
        checkContentRecord(record)
        assertSerializable(record, 'record')
        await writeContentRecord(threadFiles(threadId).contentDirectory, record, durable)
      },

      async getContent(threadId: string, id: string): Promise<ContentRecord | undefined> {
        assertThreadId(threadId)
        if (typeof id !== 'string' || id === '') return undefined
        return readContentRecord(threadFiles(threadId).contentDirectory, id)
      },

      async queryContent(threadId: string, query: ContentQuery = {}): Promise<ContentRecord[]> {
        assertThreadId(threadId)
        checkContentQuery(query)
        const records = await readAllContentRecords(threadFiles(threadId).contentDirectory)
        const matches = records.filter((record) => matchesContentQuery(record, query))
        matches.sort(compareContentNewestFirst)
        return matches.slice(0, query.limit ?? matches.length)
      },

      async getState(threadId: string): Promise<JsonObject | undefined> {
        assertThreadId(threadId)
        return (await readJsonObject(threadFiles(threadId).statePath, 'state.json')) as JsonObject | undefined
      },

      async setState(threadId: string, state: JsonObject, options?: LeaseWriteOptions): Promise<void> {
        assertThreadId(threadId)
        checkState(state)
        const text = `${JSON.stringify(state, null, 2)}\n`
        const thread = threadFiles(threadId)
        const path = thread.statePath
        await locked(thread, async () => {
          await fence(thread, options, 'setState')
          try {
            await mkdirFor(path)
            await writeFileAtomic(path, text, durable)
          } catch (error) {
            throw storeFailed('write', path, error)
          }
        })
      },

      async listThreads(): Promise<string[]> {
        let names: string[]
        try {
          names = await readdir(agentsDirectory)
        } catch (error) {
          if (isMissing(error)) return []
          throw storeFailed('list', agentsDirectory, error)
        }
        const candidates = names.filter((name) => isValidThreadId(name))
        const present = await Promise.all(candidates.map((name) => hasData(join(agentsDirectory, name))))
        return candidates.filter((_, index) => present[index]).sort()
      },

      async deleteThread(threadId: string): Promise<void> {
        assertThreadId(threadId)
        const thread = threadFiles(threadId)
        const exists = await stat(thread.directory).then(
          () => true,
          () => false,
        )
        if (exists) {
          // Renamed away holding the lock, so no append lands in a folder being removed; a writer
          // waiting for the lock starts the thread afresh.
          const trash = join(agentsDirectory, `.deleted-${threadId}-${randomBytes(6).toString('hex')}`)
          const moved = await locked(thread, async () => {
            // Its resource's index entry first: a crash in between leaves the thread, still bound.
            await forgetThread(thread)
            return rename(thread.directory, trash).then(
              () => true,
              (error: unknown) => {
                if (isMissing(error)) return false
                throw storeFailed('delete', thread.directory, error)
              },
            )
          })
          if (moved) await rm(trash, { recursive: true, force: true })
        }
        threads.delete(threadId)
      },

      async close(): Promise<void> {
        threads.clear()
      },
    },
    settings.timeoutMs,
  )
}

async function mkdirFor(path: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
}
