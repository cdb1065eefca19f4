import { invalidOptions, StrataError, shownValue } from '../errors'
import { quotedThreadId } from '../items/app-thread-id'
import type { LeaseOptions, LeaseWriteOptions } from './store'
import { isPlainObject } from './store-arguments'

/*
 * The lease's argument checks and its refusal, shared by every store (exported for store authors from
 * `@strata-memory/core/store-kit`), so each raises the same typed errors.
 */

/** What an owner token may hold: safe in a file, a Redis value and a log line as it is. */
const OWNER_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/

/** The longest lease: timers in JavaScript hold at most 2³¹ − 1 ms. */
export const MAX_LEASE_TTL_MS = 2 ** 31 - 1

function checkOwner(owner: unknown, method: string): string {
  if (typeof owner === 'string' && OWNER_PATTERN.test(owner)) return owner
  return invalidOptions(
    `${method}: owner must be a token of 1–128 characters of A–Z a–z 0–9 _ . : - (a random UUID, unique per hold); got ${JSON.stringify(owner)}.`,
    { owner },
  )
}

/** Validates the options of `acquireLease` and `renewLease`: an owner token and a whole-number ttl. */
export function checkLeaseOptions(options: LeaseOptions, method: string): LeaseOptions {
  if (!isPlainObject(options as unknown)) {
    invalidOptions(`${method}(threadId, { owner, ttlMs }) needs an options object.`, {})
  }
  const owner = checkOwner(options.owner, method)
  return { owner, ttlMs: checkTtlMs(options.ttlMs, method) }
}

/** Validates a lease's ttl: a whole number of milliseconds from 1 to {@link MAX_LEASE_TTL_MS}. */
export function checkTtlMs(ttlMs: unknown, method: string): number {
  if (typeof ttlMs === 'number' && Number.isSafeInteger(ttlMs) && ttlMs > 0 && ttlMs <= MAX_LEASE_TTL_MS)
    return ttlMs
  return invalidOptions(
    `${method}: ttlMs must be a whole number of milliseconds from 1 to ${MAX_LEASE_TTL_MS}; got ${shownValue(ttlMs)}.`,
    { ttlMs },
  )
}

/** Validates the options of `releaseLease`; returns the owner. */
export function checkLeaseOwner(options: { owner: string }, method: string): string {
  if (!isPlainObject(options as unknown))
    invalidOptions(`${method}(threadId, { owner }) needs an options object.`, {})
  return checkOwner(options.owner, method)
}

/** The lease a write carries (`options.lease`), validated; undefined for a write without one. */
export function leaseOfWrite(options: LeaseWriteOptions | undefined, method: string): string | undefined {
  const lease = options?.lease
  return lease === undefined ? undefined : checkOwner(lease, `${method}: lease`)
}

/**
 * `STRATA_THREAD_BUSY`: another owner's lease on the thread has not lapsed, so the call (a hold, or a
 * write) was refused and wrote nothing. `expiresAt` when the store knows it.
 */
export function threadBusyError(threadId: string, expiresAt?: number): StrataError<'STRATA_THREAD_BUSY'> {
  const until = expiresAt === undefined ? '' : `, until ${new Date(expiresAt).toISOString()} unless renewed`
  return new StrataError({
    code: 'STRATA_THREAD_BUSY',
    message: `Thread ${quotedThreadId(threadId)} is held by another request${until}; nothing was written. Wait for that request to end and retry (an HTTP route answers 409), or use another thread. A holder that died frees the thread when its lease lapses.`,
    details: expiresAt === undefined ? { threadId } : { threadId, expiresAt },
  })
}
