import { AsyncLocalStorage } from 'node:async_hooks'
import { StrataError } from '@strata-memory/core'
import { guardedMethods } from '@strata-memory/core/store-kit'

/** The deadline of one store call, seen by the code it runs (through AsyncLocalStorage). */
interface CallDeadline {
  /** The error the caller was given once the deadline passed. */
  expired: StrataError | undefined
  /** True once the call holds its folder lock and may write. */
  writing: boolean
}

const current = new AsyncLocalStorage<CallDeadline>()

/** Store methods that change nothing. */
const READS = new Set([
  'read',
  'head',
  'readArchive',
  'getState',
  'getSlot',
  'listThreads',
  'getContent',
  'queryContent',
  'readLease',
  'getThreadResource',
  'listResourceThreads',
  'getWorkingMemory',
  'getDocument',
  'listDocuments',
  'readVectors',
])

/** Writes made only while holding a folder lock: one that never got the lock wrote nothing. */
const LOCKED_WRITES = new Set([
  'append',
  'archive',
  'audit',
  'setState',
  'setSlot',
  'acquireLease',
  'renewLease',
  'releaseLease',
])

/** `STRATA_STORE_FAILED` with `details.reason: 'timeout'`, saying whether the write may still land. */
function timeoutError(method: string, timeoutMs: number, threadId: unknown, writing: boolean): StrataError {
  const thread = typeof threadId === 'string' ? ` of thread '${threadId}'` : ''
  const read = READS.has(method)
  const mayHaveLanded = !read && (writing || !LOCKED_WRITES.has(method))
  const outcome = read
    ? 'Nothing was changed.'
    : !mayHaveLanded
      ? 'Nothing was written, and nothing will be: the call gives up when it gets the lock. Retrying is safe.'
      : method === 'append'
        ? 'The append was being written and may still land. Retrying the very same append (same items and ids, same expectedSeq) is safe: an append already stored is recognised and returned, never written twice.'
        : 'The write was under way and may still land; it is safe to repeat.'
  return new StrataError({
    code: 'STRATA_STORE_FAILED',
    message: `The file store did not finish ${method}${thread} within ${timeoutMs} ms (timeoutMs): another process holds the folder's lock, or a file-system call hangs (a network mount, a full or failing disk). ${outcome}`,
    details: {
      reason: 'timeout',
      timeoutMs,
      command: method,
      mayHaveLanded,
      ...(typeof threadId === 'string' ? { threadId } : {}),
    },
  })
}

/**
 * Called holding a folder lock, before the work that may write: throws when the call's deadline has
 * passed (its caller was told it timed out, so nothing may be written now), else marks the call as
 * writing.
 */
export function enterLockedWork(): void {
  const deadline = current.getStore()
  if (deadline === undefined) return
  if (deadline.expired !== undefined) throw deadline.expired
  deadline.writing = true
}

/** True when the running call's deadline has passed: a lock wait gives up. */
export function deadlinePassed(): boolean {
  return current.getStore()?.expired !== undefined
}

/**
 * The store with a deadline on every call: a call not settled `timeoutMs` after it was made rejects
 * with `STRATA_STORE_FAILED` (`reason: 'timeout'`); its lock wait then gives up, and a write that had
 * not got its lock never happens. `Infinity` leaves the store as it is.
 */
export function guardedCalls<T extends object>(store: T, timeoutMs: number): T {
  if (!Number.isFinite(timeoutMs)) return store
  /** One call under the deadline. */
  const guard = (name: string, args: unknown[], run: () => unknown): Promise<unknown> => {
    const deadline: CallDeadline = { expired: undefined, writing: false }
    let timer: ReturnType<typeof setTimeout> | undefined
    const expired = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        deadline.expired = timeoutError(name, timeoutMs, args[0], deadline.writing)
        reject(deadline.expired)
      }, timeoutMs)
    })
    const call = current.run(deadline, async () => run())
    return Promise.race([call, expired]).finally(() => clearTimeout(timer))
  }
  return guardedMethods(store, guard, ['close'])
}
