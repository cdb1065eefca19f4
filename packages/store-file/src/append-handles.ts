import type { FileHandle } from 'node:fs/promises'
import type { FileVersion } from './file-version'
import type { LogFile } from './log-file'

/** Logs kept open for appending; the least recently written beyond this are closed. */
const OPEN_LOGS = 16

/**
 * Windows cannot rename or remove a folder that holds an open file, which another process's
 * `deleteThread` does: there every append opens and closes its log.
 */
const KEEPS_LOGS_OPEN = process.platform !== 'win32'

/**
 * A kept log is closed after this long without an append: a store the app dropped without `close()`
 * (one made per request) has closed its files soon after, rather than leaving them to the garbage
 * collector, which closes a `FileHandle` with a warning (and, Node says, an error in a later version).
 */
export const IDLE_CLOSE_MS = 2_000

interface OpenLog {
  handle: FileHandle
  dev: number
  ino: number
  /** Closes it after `idleMs` without an append (unref'd: it keeps no process alive). */
  idle: ReturnType<typeof setTimeout>
}

/**
 * The active logs a store appended to last, kept open (`O_APPEND`), so that the next append to the
 * same thread is one write and one fsync, with no open and close around them.
 *
 * A handle is used only for the very file now at its path: the caller passes its cache, refreshed
 * holding the thread's lock, and a handle on another inode (the log was replaced by an archive, or
 * the thread deleted, by this process or another) is closed instead. While the handle is open its
 * inode cannot be freed, so the same device and inode are the same file.
 */
export class AppendHandles {
  private readonly logs = new Map<string, OpenLog>()
  /** Set once the store is closed: an append still under way then closes its handle. */
  private closed = false

  /** @param idleMs how long a kept log stays open without an append (see {@link IDLE_CLOSE_MS}). */
  constructor(private readonly idleMs = IDLE_CLOSE_MS) {}

  /** The open handle on the file `file` now describes (refreshed holding the lock), else undefined. */
  take(file: LogFile): FileHandle | undefined {
    const log = this.logs.get(file.path)
    if (log === undefined) return undefined
    const current = file.identity
    if (current === undefined || log.dev !== current.dev || log.ino !== current.ino) {
      this.drop(file.path)
      return undefined
    }
    this.logs.delete(file.path)
    clearTimeout(log.idle)
    return log.handle
  }

  /** Keeps `handle` (open on the file `version` describes, just appended to by `file`), or closes it. */
  async keep(file: LogFile, handle: FileHandle, version: FileVersion): Promise<void> {
    if (!KEEPS_LOGS_OPEN || this.closed) return handle.close()
    this.drop(file.path)
    const idle = setTimeout(() => {
      if (this.logs.get(file.path)?.handle === handle) this.drop(file.path)
    }, this.idleMs)
    idle.unref?.()
    this.logs.set(file.path, { handle, dev: version.dev, ino: version.ino, idle })
    if (this.logs.size > OPEN_LOGS) this.drop(this.logs.keys().next().value!)
  }

  /** Closes the handle kept for `path`, if any: its file is about to be replaced or removed. */
  drop(path: string): void {
    const log = this.logs.get(path)
    if (log === undefined) return
    this.logs.delete(path)
    clearTimeout(log.idle)
    closeQuietly(log.handle)
  }

  /** Closes every handle, and from now on keeps none: the store is closed. Resolves once they are. */
  async dropAll(): Promise<void> {
    this.closed = true
    const handles = [...this.logs.values()].map((log) => {
      clearTimeout(log.idle)
      return log.handle
    })
    this.logs.clear()
    await Promise.all(handles.map((handle) => handle.close().catch(() => {})))
  }
}

/** A close loses nothing (every append's write was complete, and synced with `fsync`); a failure is no one's concern. */
function closeQuietly(handle: FileHandle): void {
  handle.close().catch(() => {})
}
