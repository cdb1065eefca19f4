import { StrataError } from '@strata-memory/core'
import { guardedMethods } from '@strata-memory/core/store-kit'

/** Store methods that change nothing: a read that timed out has nothing left to land. */
const READS = new Set([
  'audit',
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

/**
 * `STRATA_STORE_FAILED` with `details.reason: 'timeout'`: Redis did not answer `method` within
 * `timeoutMs`. A write may still land (its commands were sent or sit in the client's queue until the
 * server answers); every write of this store is safe to repeat, an append being recognised by its item
 * ids.
 */
export function timeoutError(method: string, timeoutMs: number, threadId: unknown): StrataError {
  const thread = typeof threadId === 'string' ? ` of thread '${threadId}'` : ''
  const read = READS.has(method)
  const outcome = read
    ? 'Nothing was changed; retry when Redis is reachable.'
    : method === 'append'
      ? 'The append may still land when Redis answers (it was sent, or is queued in the client). Retrying the very same append (same items and ids, same expectedSeq) is safe: an append already stored is recognised by its item ids and returned, never written twice.'
      : 'The write may still land when Redis answers (it was sent, or is queued in the client); it is safe to repeat.'
  return new StrataError({
    code: 'STRATA_STORE_FAILED',
    message: `Redis did not answer ${method}${thread} within ${timeoutMs} ms (timeoutMs): the server is down, unreachable or overloaded. ${outcome}`,
    details: {
      reason: 'timeout',
      timeoutMs,
      command: method,
      mayHaveLanded: !read,
      ...(typeof threadId === 'string' ? { threadId } : {}),
    },
  })
}

/** A call waiting for its result or its deadline, linked in the order the calls were made. */
interface Waiting {
  deadline: number
  expire(): void
  previous: Waiting | undefined
  next: Waiting | undefined
}

/**
 * The deadlines of a store's calls, all `timeoutMs` long, so that they fall due in the order the calls
 * were made: one timer serves them all, due at the oldest's deadline. Calls join and leave a linked list
 * (O(1) each); the timer is set again only when it fires, and holds the process open only while a call
 * waits. A call costs no timer of its own: setting and clearing one per call took about a microsecond of
 * a one-item append (issue 30).
 */
function deadlineQueue(timeoutMs: number) {
  let oldest: Waiting | undefined
  let newest: Waiting | undefined
  let timer: ReturnType<typeof setTimeout> | undefined

  const expireDue = (): void => {
    timer = undefined
    const now = performance.now()
    while (oldest !== undefined && oldest.deadline <= now) {
      const due = oldest
      leave(due)
      due.expire()
    }
    if (oldest !== undefined) timer = setTimeout(expireDue, oldest.deadline - now)
  }

  const leave = (waiting: Waiting): void => {
    if (waiting.previous === undefined) oldest = waiting.next
    else waiting.previous.next = waiting.next
    if (waiting.next === undefined) newest = waiting.previous
    else waiting.next.previous = waiting.previous
    // Nothing waits: the timer stays set for the next call, but keeps no process alive meanwhile.
    if (oldest === undefined) timer?.unref()
  }

  return {
    /** Enters a call; `expire` runs at its deadline unless `leave` ran first. */
    join(expire: () => void): Waiting {
      const waiting: Waiting = {
        deadline: performance.now() + timeoutMs,
        expire,
        previous: newest,
        next: undefined,
      }
      if (newest === undefined) {
        oldest = waiting
        if (timer === undefined) timer = setTimeout(expireDue, timeoutMs)
        else timer.ref()
      } else {
        newest.next = waiting
      }
      newest = waiting
      return waiting
    },
    leave,
  }
}

/**
 * The store with a deadline on every call: a method whose promise has not settled `timeoutMs` after
 * the call rejects with {@link timeoutError} (the work under way is not cancelled: Redis cannot take a
 * sent command back; `Infinity`: no deadline). `alongside()`, when it returns a promise, runs beside
 * the call (the first call's persistence check) and the call settles once both have; its failure is
 * ignored.
 */
export function guardedCalls<T extends object>(
  store: T,
  {
    timeoutMs,
    alongside,
    late,
  }: {
    timeoutMs: number
    alongside: () => Promise<void> | undefined
    /**
     * A call that succeeded after its deadline had rejected it: its caller was told it failed, so
     * what it did is undone here when nobody else would (a lease taken late is released).
     */
    late?: (name: string, args: unknown[], result: unknown) => void
  },
): T {
  const queue = Number.isFinite(timeoutMs) ? deadlineQueue(timeoutMs) : undefined
  /** One call under the deadline, beside what `alongside` runs first. */
  const guard = (name: string, args: unknown[], run: () => unknown): Promise<unknown> => {
    const beside = name === 'close' || name === 'persistence' ? undefined : alongside()
    let call: Promise<unknown>
    try {
      call = Promise.resolve(run())
    } catch (error) {
      call = Promise.reject(error)
    }
    if (beside !== undefined)
      call = Promise.all([beside.catch(() => undefined), call]).then(([, result]) => result)
    // close() keeps its own deadline: past it, the client it owns is destroyed, not left running.
    if (queue === undefined || name === 'close') return call
    return new Promise((resolve, reject) => {
      let settled = false
      const waiting = queue.join(() => {
        settled = true
        reject(timeoutError(name, timeoutMs, args[0]))
      })
      call.then(
        (result) => {
          if (settled) {
            late?.(name, args, result)
            return
          }
          queue.leave(waiting)
          resolve(result)
        },
        (error: unknown) => {
          if (settled) return
          queue.leave(waiting)
          reject(error)
        },
      )
    })
  }
  return guardedMethods(store, guard)
}
