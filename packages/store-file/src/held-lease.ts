import { statSync } from 'node:fs'
import { type FileVersion, sameVersion, versionOf } from './file-version'

/**
 * Trust ends this long before the lease's `expiresAt`: room for the clocks of hosts sharing the folder,
 * each of which judges the lease lapsed by its own clock.
 */
const EXPIRY_MARGIN_MS = 1_000

/**
 * A lease this store wrote on a thread (acquired or renewed under the thread's lock), as it wrote it.
 * While the lease file is still that very file (same inode, size and mtime: every lease change
 * replaces it by rename) and the lease has not lapsed, no other store can change the thread's log or
 * state: every write checks the lease under the thread's lock (`fence`) and is refused unless it names
 * the owner; a write that names it from another store replaces the lease file first (`fence` again);
 * `deleteThread` takes the lease file away with the folder. So once a refresh begun after the lease was
 * written found the thread settled, what this store cached is what is on disk: one stat of the lease
 * file replaces the stats of the log's files.
 */
export class HeldLease {
  /**
   * The thread's cache resets (ThreadFiles.resets) when a whole refresh, begun after this lease was
   * written, found the thread settled; undefined before. A reset since (lines found stale, a failed
   * append) means the cache is no longer the thread: trust ends until the next whole refresh.
   */
  refreshedAt: number | undefined

  constructor(
    readonly path: string,
    /** The lease file as written. */
    readonly version: FileVersion,
    readonly expiresAt: number,
  ) {}

  /** True when this lease file is the one written (`current`: its stat, when already taken). */
  isFile(current: FileVersion | undefined): boolean {
    return current !== undefined && sameVersion(this.version, current)
  }

  /** The thread lock's hold (ThreadFiles.lockHolds) in which the lease file was last seen unchanged. */
  seenInHold: number | undefined

  /**
   * True when the cache may be used as it is: refreshed under this lease and not reset since (`resets`:
   * ThreadFiles.resets now), the lease live and its file unchanged. `hold`: the thread lock's hold the caller runs in, if it holds it; a lease file seen
   * unchanged in that same hold (by the write's lease check) needs no second stat, as every change
   * of the file is made holding that lock.
   */
  trusted(resets: number, hold?: number): boolean {
    if (this.refreshedAt !== resets || Date.now() >= this.expiresAt - EXPIRY_MARGIN_MS) return false
    if (hold !== undefined && this.seenInHold === hold) return true
    const stats = statSync(this.path, { throwIfNoEntry: false })
    if (stats !== undefined && this.isFile(versionOf(stats))) return true
    this.refreshedAt = undefined
    return false
  }
}
