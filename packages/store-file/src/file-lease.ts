import { readFileSync, statSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
import {
  assertThreadId,
  type LeaseGrant,
  type LeaseOptions,
  type LeaseWriteOptions,
  type StoreLeaseMethods,
} from '@strata-memory/core'
import {
  checkLeaseOptions,
  checkLeaseOwner,
  leaseOfWrite,
  threadBusyError,
} from '@strata-memory/core/store-kit'
import { replaceFileSync } from './durable-fs'
import { isMissing, storeFailed } from './file-errors'
import { type FileVersion, sameVersion, versionOf } from './file-version'
import { HeldLease } from './held-lease'
import type { ThreadFiles } from './thread-files'
import { HOST, holderGone } from './thread-lock'

/** The lease file's name inside the thread folder. */
const LEASE_FILE = '.lease'

/** Lease files whose last read is kept (the least recently read are dropped beyond this). */
const REMEMBERED_LEASES = 256

/** What the lease file holds, one JSON object: the owner and how to tell that its lease is over. */
interface LeaseRecord {
  /** The holder's owner token. */
  owner: string
  /** The process that took the lease and renews it, and its host. */
  pid: number
  hostname: string
  /** Epoch ms when the lease lapses unless renewed. */
  expiresAt: number
}

/** What the lease needs from the file store. */
export interface FileLeaseContext {
  /** The thread's files (its folder), id checked. */
  threadFiles(threadId: string): ThreadFiles
  /** Runs `action` holding the thread's lock: every lease change, and every write's check, runs under it. */
  locked<T>(thread: ThreadFiles, action: () => Promise<T>): Promise<T>
}

/**
 * The file store's lease (store contract `v2`): `<thread folder>/.lease`, replaced atomically and read
 * and written only under the thread's lock, the same lock every append takes, so a write's check of
 * the lease and the write itself are one step. A lease lapses at its `expiresAt`, or at once when its
 * holder was a process of this host that no longer runs (killed, crashed): the lock files' own
 * recovery rule. A lease is no thread data: `listThreads` does not look at it.
 */
export function fileLease(context: FileLeaseContext): StoreLeaseMethods & {
  /** Under the thread's lock: refuses a write unless the thread has no live lease or `options.lease` owns it. */
  fence(thread: ThreadFiles, options: LeaseWriteOptions | undefined, method: string): Promise<void>
} {
  const { threadFiles, locked } = context
  const leasePath = (thread: ThreadFiles) => join(thread.directory, LEASE_FILE)

  /** The lease file as last read, by thread folder: read again only when its stat changed. */
  const lastRead = new Map<string, { version: FileVersion; record: LeaseRecord | undefined }>()
  const remember = (thread: ThreadFiles, version: FileVersion, record: LeaseRecord | undefined) => {
    lastRead.delete(thread.directory)
    if (lastRead.size >= REMEMBERED_LEASES) lastRead.delete(lastRead.keys().next().value!)
    lastRead.set(thread.directory, { version, record })
  }

  /**
   * The thread's live lease and its file's stat, or undefined (none, lapsed, its holder gone, or
   * unreadable). Read synchronously, as the lock is taken: every write checks it, and a missing or
   * tiny file is answered in microseconds, less than a round trip through the thread pool. A thread
   * without a lease (most) costs one stat that makes no exception (an exception's stack costs more);
   * a lease whose file has the stat it had when last read (every change replaces it by rename, so a
   * changed lease is another inode) costs that one stat too.
   */
  const liveLease = (thread: ThreadFiles): { record: LeaseRecord; version: FileVersion } | undefined => {
    const path = leasePath(thread)
    let version: FileVersion
    let record: LeaseRecord | undefined
    try {
      const stats = statSync(path, { throwIfNoEntry: false })
      if (stats === undefined) return undefined
      version = versionOf(stats)
      const seen = lastRead.get(thread.directory)
      if (seen !== undefined && sameVersion(seen.version, version)) record = seen.record
      else {
        record = parseLease(readFileSync(path, 'utf8'))
        remember(thread, version, record)
      }
    } catch (error) {
      if (isMissing(error)) return undefined
      throw storeFailed('read the lease', path, error)
    }
    if (record === undefined || record.expiresAt <= Date.now()) return undefined
    if (holderGone(record)) return undefined
    return { record, version }
  }

  /**
   * Holding the thread's lock: replaces the lease file with `record` (renamed over it, synchronously,
   * as the lock's own file; not synced: after a power cut every holder is gone anyway).
   */
  const replaceLease = (thread: ThreadFiles, record: LeaseRecord): FileVersion => {
    const path = leasePath(thread)
    try {
      const version = replaceFileSync(path, `${JSON.stringify(record)}\n`)
      remember(thread, version, record)
      return version
    } catch (error) {
      throw storeFailed('write the lease', path, error)
    }
  }

  const writeLease = (thread: ThreadFiles, { owner, ttlMs }: LeaseOptions): LeaseGrant => {
    const record: LeaseRecord = { owner, pid: process.pid, hostname: HOST, expiresAt: Date.now() + ttlMs }
    // No other store wrote between this write and the next refresh of this store (see HeldLease).
    thread.held = new HeldLease(leasePath(thread), replaceLease(thread, record), record.expiresAt)
    return { expiresAt: record.expiresAt }
  }

  const removeLease = (thread: ThreadFiles): void => {
    thread.held = undefined
    try {
      unlinkSync(leasePath(thread))
    } catch (error) {
      if (!isMissing(error)) throw storeFailed('remove the lease', leasePath(thread), error)
    }
  }

  const opened = (threadId: string): ThreadFiles => {
    assertThreadId(threadId)
    return threadFiles(threadId)
  }

  return {
    async fence(thread, options, method) {
      const lease = leaseOfWrite(options, method)
      const live = liveLease(thread)
      if (live === undefined) return
      const { record, version } = live
      if (record.owner !== lease) throw threadBusyError(thread.threadId, record.expiresAt)
      // A write under a lease another store wrote (its owner token passed on): the lease file is
      // replaced first, so the store that wrote it sees the change and refreshes (see HeldLease).
      const held = thread.held
      if (held?.isFile(version) === true) held.seenInHold = thread.lockHolds
      else replaceLease(thread, record)
    },

    async acquireLease(threadId, options) {
      const thread = opened(threadId)
      const checked = checkLeaseOptions(options, 'acquireLease')
      return locked(thread, async () => {
        const held = liveLease(thread)?.record
        if (held !== undefined && held.owner !== checked.owner)
          throw threadBusyError(threadId, held.expiresAt)
        return writeLease(thread, checked)
      })
    },

    async renewLease(threadId, options) {
      const thread = opened(threadId)
      const checked = checkLeaseOptions(options, 'renewLease')
      return locked(thread, async () => {
        const held = liveLease(thread)?.record
        if (held?.owner === checked.owner) return writeLease(thread, checked)
        thread.held = undefined
        return undefined
      })
    },

    async releaseLease(threadId, options) {
      const thread = opened(threadId)
      const owner = checkLeaseOwner(options, 'releaseLease')
      return locked(thread, async () => {
        const held = liveLease(thread)?.record
        if (held?.owner !== owner) return false
        removeLease(thread)
        return true
      })
    },

    async readLease(threadId) {
      const held = liveLease(opened(threadId))?.record
      return held === undefined ? undefined : { expiresAt: held.expiresAt }
    },
  }
}

function parseLease(text: string): LeaseRecord | undefined {
  try {
    const value = JSON.parse(text) as Partial<LeaseRecord>
    if (
      typeof value.owner === 'string' &&
      typeof value.pid === 'number' &&
      typeof value.hostname === 'string' &&
      typeof value.expiresAt === 'number'
    ) {
      return value as LeaseRecord
    }
  } catch {}
  // Written whole by rename, so never torn; anything else is no lease of ours.
  return undefined
}
