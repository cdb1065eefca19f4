import { readFileSync, statSync } from 'node:fs'
import { unlink } from 'node:fs/promises'
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
import { writeFileAtomic } from './durable-fs'
import { isMissing, storeFailed } from './file-errors'
import type { ThreadFiles } from './thread-files'
import { HOST, holderGone } from './thread-lock'

/** The lease file's name inside the thread folder. */
const LEASE_FILE = '.lease'

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

  /**
   * The thread's live lease, or undefined (none, lapsed, its holder gone, or unreadable). Read
   * synchronously, as the lock is taken: every append checks it, and a missing or tiny file is
   * answered in microseconds, less than a round trip through the thread pool. A thread without a
   * lease (most) costs one stat that makes no exception: an exception's stack costs more than the stat.
   */
  const liveLease = async (thread: ThreadFiles): Promise<LeaseRecord | undefined> => {
    let text: string
    try {
      if (statSync(leasePath(thread), { throwIfNoEntry: false }) === undefined) return undefined
      text = readFileSync(leasePath(thread), 'utf8')
    } catch (error) {
      if (isMissing(error)) return undefined
      throw storeFailed('read the lease', leasePath(thread), error)
    }
    const record = parseLease(text)
    if (record === undefined || record.expiresAt <= Date.now()) return undefined
    if (holderGone(record)) return undefined
    return record
  }

  const writeLease = async (thread: ThreadFiles, { owner, ttlMs }: LeaseOptions): Promise<LeaseGrant> => {
    const record: LeaseRecord = { owner, pid: process.pid, hostname: HOST, expiresAt: Date.now() + ttlMs }
    try {
      // Not synced: after a power cut every holder is gone anyway.
      await writeFileAtomic(leasePath(thread), `${JSON.stringify(record)}\n`, false)
    } catch (error) {
      throw storeFailed('write the lease', leasePath(thread), error)
    }
    return { expiresAt: record.expiresAt }
  }

  const removeLease = async (thread: ThreadFiles): Promise<void> => {
    try {
      await unlink(leasePath(thread))
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
      const held = await liveLease(thread)
      if (held !== undefined && held.owner !== lease) throw threadBusyError(thread.threadId, held.expiresAt)
    },

    async acquireLease(threadId, options) {
      const thread = opened(threadId)
      const checked = checkLeaseOptions(options, 'acquireLease')
      return locked(thread, async () => {
        const held = await liveLease(thread)
        if (held !== undefined && held.owner !== checked.owner)
          throw threadBusyError(threadId, held.expiresAt)
        return writeLease(thread, checked)
      })
    },

    async renewLease(threadId, options) {
      const thread = opened(threadId)
      const checked = checkLeaseOptions(options, 'renewLease')
      return locked(thread, async () => {
        const held = await liveLease(thread)
        return held?.owner === checked.owner ? writeLease(thread, checked) : undefined
      })
    },

    async releaseLease(threadId, options) {
      const thread = opened(threadId)
      const owner = checkLeaseOwner(options, 'releaseLease')
      return locked(thread, async () => {
        const held = await liveLease(thread)
        if (held?.owner !== owner) return false
        await removeLease(thread)
        return true
      })
    },

    async readLease(threadId) {
      const held = await liveLease(opened(threadId))
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
