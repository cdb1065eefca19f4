import { StrataError } from '@strata-memory/core'

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

/**
 * The store with a deadline on every call: a method whose promise has not settled `timeoutMs` after
 * the call rejects with {@link timeoutError} (the work under way is not cancelled: Redis cannot take a
 * sent command back; `Infinity`: no deadline). `alongside()`, when it returns a promise, runs beside
 * the call (the first call's persistence check) and the call settles once both have; its failure is
 * ignored.
 */
export function guardedCalls<T extends object>(
  store: T,
  { timeoutMs, alongside }: { timeoutMs: number; alongside: () => Promise<void> | undefined },
): T {
  const limited = Number.isFinite(timeoutMs)
  const guarded: Record<string, unknown> = { ...(store as Record<string, unknown>) }
  for (const [name, value] of Object.entries(store)) {
    if (typeof value !== 'function') continue
    const method = value as (...args: unknown[]) => Promise<unknown>
    guarded[name] = (...args: unknown[]) => {
      const beside = name === 'close' || name === 'persistence' ? undefined : alongside()
      let call: Promise<unknown>
      try {
        call = Promise.resolve(method.apply(store, args))
      } catch (error) {
        call = Promise.reject(error)
      }
      if (beside !== undefined)
        call = Promise.all([beside.catch(() => undefined), call]).then(([, result]) => result)
      // close() keeps its own deadline: past it, the client it owns is destroyed, not left running.
      if (!limited || name === 'close') return call
      let timer: ReturnType<typeof setTimeout> | undefined
      const expired = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(timeoutError(name, timeoutMs, args[0])), timeoutMs)
      })
      return Promise.race([call, expired]).finally(() => clearTimeout(timer))
    }
  }
  return guarded as T
}
