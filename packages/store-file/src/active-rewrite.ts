import { readdir, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { ArchiveAppend } from './archive-files'
import { storeFailed } from './file-errors'
import { LogRewrite } from './log-rewrite'
import type { ThreadFiles, ThreadView } from './thread-files'

/** Bytes of the active log read at once by a rewrite. */
const WINDOW_BYTES = 8 * 1024 * 1024

export interface RewriteOptions {
  /** The seqs whose lines go to the archive; every other active line stays in the log. */
  moved?: ReadonlySet<number>
  durable: boolean
  /** Called just before the new log takes the old one's place. */
  beforeReplace?: () => void
}

/**
 * Holding the lock: rewrites the active log of `view` (every active line, without the lines it shares
 * with the archive), moving the lines of `moved` to the archive. The log is read a window at a time,
 * each line going on to the archive or to the new log as it comes: neither file is held whole, however
 * long the log. Archive first (appended, committed by its index line), active log second (a new file
 * renamed over it): after a crash in between the moved items are in both, which the recovery rule
 * reads as archived, never in neither. Returns how many lines went to the archive.
 *
 * Throws `StaleLines` when the log changed under the read (nothing committed then: run it again).
 */
export async function rewriteActive(
  thread: ThreadFiles,
  view: ThreadView,
  options: RewriteOptions,
): Promise<number> {
  const { moved, durable } = options
  const seqs = view.activeSeqs
  const path = thread.active.path
  let archive: ArchiveAppend | undefined
  if (moved !== undefined) {
    let bytes = 0
    for (let index = 0; index < seqs.length; index += 1)
      if (moved.has(seqs[index]!)) bytes += view.lineBytes(index)
    archive = await ArchiveAppend.create(thread.archive, bytes, durable)
  }
  let rewrite: LogRewrite | undefined
  try {
    await rewriting(path, () => removeLeftovers(path))
    rewrite = await rewriting(path, () => LogRewrite.create(path, durable))
    const kept: number[] = []
    let archived = 0
    for (const block of view.activeBlocks(Buffer.allocUnsafe(WINDOW_BYTES))) {
      for (let index = block.start; index < block.end; index += 1) {
        const seq = seqs[index]!
        const bytes = block.bytesOf(index)
        let wait: Promise<void> | undefined
        if (archive !== undefined && moved!.has(seq)) {
          archived += 1
          wait = archive.add(bytes, seq)
        } else {
          kept.push(seq)
          wait = rewrite.add(bytes)
        }
        if (wait !== undefined) await rewriting(path, () => wait)
      }
    }
    await archive?.commit()
    archive = undefined
    options.beforeReplace?.()
    const written = await rewriting(path, () => rewrite!.commit())
    rewrite = undefined
    thread.active.replaced(kept, written)
    return archived
  } finally {
    await archive?.abort()
    await rewrite?.abort()
  }
}

/**
 * Removes the temporary files of rewrites a crash cut short beside the log at `path` (as long as the
 * log, at worst). Only a rewrite writes them, holding the lock this one holds: none is in progress.
 */
async function removeLeftovers(path: string): Promise<void> {
  const directory = dirname(path)
  const prefix = `.${basename(path)}.`
  for (const name of await readdir(directory).catch(() => [] as string[])) {
    if (name.startsWith(prefix) && name.endsWith('.tmp')) await rm(join(directory, name), { force: true })
  }
}

/** Runs a step of the new log's writing, its failures as the store's (`STRATA_STORE_FAILED`). */
async function rewriting<T>(path: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step()
  } catch (error) {
    throw storeFailed('rewrite', path, error)
  }
}
