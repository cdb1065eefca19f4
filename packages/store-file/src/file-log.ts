import { fstatSync } from 'node:fs'
import { open } from 'node:fs/promises'
import {
  type ActivePagesOptions,
  type AppendOptions,
  type ArchiveOptions,
  assertSerializable,
  assertThreadId,
  type Item,
  jsonCopy,
  type ReadOptions,
  StrataError,
  type StrataStore,
  type ThreadHead,
  type UnsequencedItem,
} from '@strata-memory/core'
import {
  checkAppendItems,
  checkArchiveOptions,
  checkExpectedSeq,
  checkReadOptions,
  checkSeq,
  checkStoredSize,
  copyItem,
  seqRangeIndexes,
} from '@strata-memory/core/store-kit'
import { archivedLine, readArchivePage } from './archive-files'
import { syncDirectory, writeFully, writeFullySync } from './durable-fs'
import type { FileContext } from './file-context'
import { storeFailed } from './file-errors'
import { versionOf } from './file-version'
import { type PreparedLine, prepareLogLine, sequenceLogLine } from './line-format'
import { retryStale } from './log-lines'
import { writeMirrors } from './mirrors'
import { storedResend } from './resent-append'
import type { ThreadFiles } from './thread-files'

/**
 * The lines of an append before their seqs are known, and the copies `append` returns, after the
 * checks every store makes (see `checkAppendArguments`). An item of the common shape is checked and
 * copied in one pass (`copyItem`), its line made from the copy; anything else, or an item carrying a
 * `seq` of its own, is checked by `assertSerializable` (which names what cannot be stored) and copied
 * through JSON.
 */
function preparedItems(items: readonly UnsequencedItem[]): { prepared: PreparedLine[]; stored: Item[] } {
  checkAppendItems(items)
  const count = items.length
  const prepared = new Array<PreparedLine>(count)
  const stored = new Array<Item>(count)
  for (let index = 0; index < count; index++) {
    const item = items[index]!
    const copy = Object.hasOwn(item, 'seq') ? undefined : copyItem(item)
    if (copy === undefined) {
      assertSerializable(item, `items[${index}]`)
      prepared[index] = prepareLogLine(item)
      stored[index] = jsonCopy(item) as Item
      continue
    }
    const line = prepareLogLine(item, copy)
    checkStoredSize(line.wrapped ? line.json : line.body, item, index)
    prepared[index] = line
    stored[index] = copy as unknown as Item
  }
  return { prepared, stored }
}

/**
 * The lines as the bytes appended, each ending in a newline: encoded straight into one buffer, where a
 * joined string would first be copied whole and then encoded. The buffer is first sized for one byte a
 * character (every line of ASCII, the usual case, fits without measuring) and grown where a line does
 * not fit.
 */
function linesData(lines: readonly string[]): Buffer {
  let size = lines.length
  for (const line of lines) size += line.length
  let data = Buffer.allocUnsafe(size)
  let at = 0
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!
    const { read, written: fitted } = encoder.encodeInto(line, data.subarray(at))
    let written = fitted
    // A line that did not fit with its newline: the buffer grows to what is left at its longest (three
    // bytes a UTF-16 unit) and the rest of the line is encoded on.
    if (read < line.length || at + written >= data.length) {
      let rest = 0
      for (let next = index; next < lines.length; next++) rest += lines[next]!.length * 3 + 1
      const larger = Buffer.allocUnsafe(at + rest)
      data.copy(larger, 0, 0, at + written)
      data = larger
      written += encoder.encodeInto(line.slice(read), data.subarray(at + written)).written
    }
    at += written
    data[at++] = NEWLINE
  }
  return at === data.length ? data : data.subarray(0, at)
}

const encoder = new TextEncoder()

const NEWLINE = 0x0a

/** Appends up to this many bytes are written without the thread pool. */
const SYNC_WRITE_BYTES = 64 * 1024

/** Items a page of `readActivePages` holds when the log is cached already. */
const CACHED_PAGE_ITEMS = 2_000

/** The lease check every write makes under the thread's lock (see `fileLease`). */
type Fence = (thread: ThreadFiles, options: { lease?: string } | undefined, method: string) => Promise<void>

/**
 * The file store's log: appends (whole lines, synced before they are acknowledged), reads of the active
 * log, its counters, and the move to the archive (archive first, active log second).
 */
export function fileLog(
  context: FileContext,
  fence: Fence,
): Pick<StrataStore, 'append' | 'read' | 'readActivePages' | 'head' | 'archive' | 'readArchive'> {
  const {
    settings,
    durable,
    onEvent,
    agentsDirectory,
    threadFiles,
    locked,
    snapshot,
    repair,
    rewriteActive,
    appendHandles,
  } = context

  /**
   * Holding the lock, right after the log was refreshed: appends lines in one write, synced; on
   * failure the file is cut back. The log's handle stays open for the next append (see AppendHandles).
   */
  const appendLines = async (thread: ThreadFiles, lines: string[], seqs: number[]): Promise<void> => {
    const file = thread.active
    const created = file.missing
    const sizeBefore = file.size
    const data = linesData(lines)
    let handle = appendHandles.take(file)
    try {
      handle ??= await open(file.path, 'a')
      try {
        // A short append is written synchronously, as the lock's file: one call of microseconds costs
        // less than a round trip through the thread pool. A long one goes through the pool.
        if (data.length <= SYNC_WRITE_BYTES) writeFullySync(handle.fd, data)
        else await writeFully(handle, data)
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
      file.appended(seqs, data, stats, sizeBefore)
      const kept = handle
      handle = undefined
      await appendHandles.keep(file, kept, versionOf(stats))
    } catch (error) {
      file.reset()
      throw storeFailed('append to', file.path, error)
    } finally {
      await handle?.close()
    }
  }

  return {
    async append(
      threadId: string,
      items: readonly UnsequencedItem[],
      options: AppendOptions,
    ): Promise<Item[]> {
      assertThreadId(threadId)
      const expectedSeq = checkExpectedSeq(options?.expectedSeq, 'append', true)
      // Serialised and copied before the first await: later changes to the caller's objects are not
      // stored, and the copies become the items returned.
      const { prepared, stored } = preparedItems(items)
      const thread = threadFiles(threadId)
      // For a thread not seen yet (or no items), check without the lock first: a stale expectedSeq
      // then fails before a new thread's folder is made. Otherwise the check under the lock suffices.
      // The very same append already stored (a re-send after a lost reply or a time-out) is returned.
      if (prepared.length === 0 || (thread.active.missing && thread.archive.missing)) {
        const { resent, lastSeq } = await retryStale(async () => {
          const view = await snapshot(thread)
          return {
            lastSeq: view.lastSeq,
            resent:
              view.lastSeq === expectedSeq
                ? undefined
                : await storedResend(view, prepared, expectedSeq, (seq) => archivedLine(thread.archive, seq)),
          }
        })
        if (resent !== undefined) return resent
        checkSeq(threadId, expectedSeq, lastSeq)
        if (prepared.length === 0) return []
      }
      return locked(thread, async () => {
        // The lease is checked under the lock every write takes: no other owner's write slips between.
        await fence(thread, options, 'append')
        const resent = await retryStale(async () => {
          await repair(thread)
          const view = thread.view()
          return view.lastSeq === expectedSeq
            ? undefined
            : storedResend(view, prepared, expectedSeq, (seq) => archivedLine(thread.archive, seq))
        })
        if (resent !== undefined) return resent
        const { lastSeq } = thread.view()
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
      return retryStale(async () => {
        const view = await snapshot(thread)
        const [start, end] = seqRangeIndexes(view.activeSeqs, options)
        return view.activeItems(start, end)
      })
    },

    async *readActivePages(
      threadId: string,
      options: ActivePagesOptions = {},
    ): AsyncIterable<readonly Item[]> {
      assertThreadId(threadId)
      const thread = threadFiles(threadId)
      // A cold log is loaded a 4 MiB piece at a time, each piece parsed a small page at a time, and
      // each page goes out as it is parsed: the load parses the next once this one is taken (see
      // `LogFile.refresh`). The cache keeps where the lines are, not the items.
      const queue: Item[][] = []
      let wake: (() => void) | undefined
      /** Lets the load parse its next page: the consumer took the last one, or left. */
      let taken: (() => void) | undefined
      let left = false
      let finished = false
      let failure: unknown
      let streamed = false
      let given = 0
      let lastGiven = 0
      const loading = (
        thread.held?.trusted(thread.resets)
          ? Promise.resolve(false)
          : thread.active.refresh((items, { bytes, size }) => {
              if (left) return
              // The first page's lines against the log's bytes tell about how many items it holds.
              if (given === 0 && queue.length === 0)
                options.onCount?.(Math.round((items.length * size) / bytes))
              queue.push(items)
              wake?.()
              return new Promise<void>((resolve) => {
                taken = resolve
              })
            })
      )
        .then(
          (whole) => {
            streamed = whole
          },
          (error: unknown) => {
            failure = error
          },
        )
        .finally(() => {
          finished = true
          wake?.()
        })
      try {
        for (;;) {
          const page = queue.shift()
          if (page !== undefined) {
            given += page.length
            lastGiven = page.at(-1)!.seq
            yield page
            taken?.()
          } else if (finished) break
          else
            await new Promise<void>((resolve) => {
              wake = resolve
            })
        }
      } finally {
        // A consumer that stops early must not leave the load waiting for it.
        left = true
        taken?.()
      }
      await loading
      if (failure !== undefined && !StrataError.isInstance(failure, 'STRATA_CORRUPT_LOG')) throw failure
      // The rest of a read (the archive, a torn tail, an interrupted archive to mend) as `read` does it.
      const view = await snapshot(thread)
      if (!streamed && failure === undefined && given === 0) {
        // The cache was up to date (or held): its view, a page at a time.
        options.onCount?.(view.activeSeqs.length)
        for (let start = 0; start < view.activeSeqs.length; start += CACHED_PAGE_ITEMS)
          yield view.activeItems(start, Math.min(view.activeSeqs.length, start + CACHED_PAGE_ITEMS))
        return
      }
      const whole = view.activeSeqs.length === given && view.overlap.length === 0
      if (failure !== undefined || !whole || (view.activeSeqs.at(-1) ?? 0) !== lastGiven) {
        throw new StrataError({
          code: 'STRATA_SEQ_CONFLICT',
          message: `Thread '${threadId}' changed or needed mending while its active log was read a page at a time: the pages read are void; read it again.`,
          details: { threadId },
        })
      }
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
        return retryStale(async () => {
          await repair(thread)
          const view = thread.view()
          if (expectedSeq !== undefined) checkSeq(threadId, expectedSeq, view.lastSeq)
          if (!view.activeSeqs.some((seq) => wanted.has(seq))) return 0
          // The log read a window at a time, its moved lines to the archive (appended, never rewritten:
          // its size costs nothing here), the kept ones to the new log (see `rewriteActive`).
          return rewriteActive(thread, view, wanted)
        })
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
  }
}
