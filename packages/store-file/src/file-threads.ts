import { randomBytes } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import { readdir, rename, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import {
  assertThreadId,
  isValidThreadId,
  type JsonObject,
  type LeaseWriteOptions,
  type StrataStore,
} from '@strata-memory/core'
import { checkState } from '@strata-memory/core/store-kit'
import { isContentFileName } from './content-files'
import { replaceFileSync, writeFileAtomic } from './durable-fs'
import type { FileContext } from './file-context'
import { isMissing, storeFailed } from './file-errors'
import { sameVersion, versionOf } from './file-version'
import { parseJsonObject } from './json-file'
import { ACTIVE_FILE, INDEX_FILE, LEGACY_ARCHIVE_FILE, STATE_FILE, type ThreadFiles } from './thread-files'

/** What the thread methods need of the lease and the resources: the write check and the unbinding. */
export interface FileThreadsParts {
  fence(thread: ThreadFiles, options: LeaseWriteOptions | undefined, method: string): Promise<void>
  /** Holding the thread's lock: removes its entry from its resource's index. */
  forgetThread(thread: ThreadFiles): Promise<void>
}

/** True when a thread folder holds items, an archive, state or content. */
async function hasData(directory: string): Promise<boolean> {
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

/**
 * The text of a thread's `state.json`, undefined when there is none. Read synchronously (a small file,
 * as the lease's), and only when its stat differs from the version this store last read or wrote:
 * every write replaces it by rename, so a changed file is another inode.
 */
function readState(thread: ThreadFiles): string | undefined {
  const path = thread.statePath
  try {
    const stats = statSync(path, { throwIfNoEntry: false })
    if (stats === undefined) {
      thread.stateSeen = undefined
      return undefined
    }
    const version = versionOf(stats)
    const seen = thread.stateSeen
    if (seen !== undefined && sameVersion(seen.version, version)) return seen.text
    const text = readFileSync(path, 'utf8')
    thread.stateSeen = { version, text }
    return text
  } catch (error) {
    if (isMissing(error)) return undefined
    throw storeFailed('read', path, error)
  }
}

/** The file store's thread state (`state.json`), the thread list (the `agents/` folder) and deletion. */
export function fileThreads(
  context: FileContext,
  { fence, forgetThread }: FileThreadsParts,
): Pick<StrataStore, 'getState' | 'setState' | 'listThreads' | 'deleteThread'> {
  const { durable, agentsDirectory, threadFiles, locked, forget } = context

  return {
    async getState(threadId: string): Promise<JsonObject | undefined> {
      assertThreadId(threadId)
      const thread = threadFiles(threadId)
      const text = readState(thread)
      return text === undefined
        ? undefined
        : (parseJsonObject(text, thread.statePath, STATE_FILE) as JsonObject)
    },

    async setState(threadId: string, state: JsonObject, options?: LeaseWriteOptions): Promise<void> {
      assertThreadId(threadId)
      checkState(state)
      const text = `${JSON.stringify(state, null, 2)}\n`
      const thread = threadFiles(threadId)
      const path = thread.statePath
      await locked(thread, async () => {
        await fence(thread, options, 'setState')
        // The state it holds already (the text this store last read or wrote, and a stat that shows
        // the file is still that one): no write.
        if (thread.stateSeen?.text === text && readState(thread) === text) return
        try {
          // No mkdir: the thread's lock file, in this folder, made it.
          if (durable) {
            await writeFileAtomic(path, text, durable)
            // Replaced by rename under the lock: this stat is of the file just written.
            thread.stateSeen = { version: versionOf(statSync(path)), text }
          } else {
            thread.stateSeen = { version: replaceFileSync(path, text), text }
          }
        } catch (error) {
          thread.stateSeen = undefined
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
      forget(threadId)
    },
  }
}
