import { randomUUID } from 'node:crypto'
import { closeSync, fstatSync, mkdirSync, openSync, statSync, unlinkSync, writeSync } from 'node:fs'
import { readFile, stat, unlink, writeFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { StrataError } from '@strata-memory/core'
import { errorCode, isMissing, storeFailed } from './file-errors'

/** Who holds a lock: what the lock file contains, one JSON line. */
export interface LockHolder {
  pid: number
  hostname: string
  /** Epoch ms when the lock was taken. */
  ts: number
  /** Unique per acquisition. */
  token: string
}

/** Why a lock was judged stale and broken. */
export type StaleReason = 'holder-dead' | 'lock-expired'

/** Options of {@link withThreadLock}. */
export interface ThreadLockOptions {
  /** Give up (`STRATA_STORE_FAILED`) when the lock is still busy after this long. */
  timeoutMs: number
  /** A lock older than this is stale even when its holder looks alive (or lives on another host). */
  staleMs: number
  /** True when the caller no longer waits for the lock (its deadline passed): the wait gives up. */
  givenUp?: () => boolean
  /** Called after a stale lock was broken. */
  onRecovered?: (holder: LockHolder | undefined, reason: StaleReason) => void
}

/** The lock file's name inside the thread folder. */
export const LOCK_FILE = '.lock'

/** How long a lock file may stay without readable holder details before it counts as abandoned. */
const EMPTY_LOCK_GRACE_MS = 2_000

/** How long a break marker may live before another process may remove it. */
const BREAK_MARKER_STALE_MS = 2_000

/** This host's name, as lock and lease files record it. */
export const HOST = hostname()

/** Tokens of locks this process holds now: a lock with our pid but another token is a dead incarnation. */
const heldTokens = new Set<string>()

/** Per lock path, the tail of the in-process queue: one holder per process at a time. */
const queues = new Map<string, Promise<void>>()

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * Runs `action` holding the thread's lock: first in this process (a queue per folder), then across
 * processes (the `.lock` file in the thread folder, created with `O_EXCL` and holding the holder's
 * pid, hostname, time and a token). A lock whose holder is dead (same host, pid gone; or a file left
 * empty by a holder that died right after creating it) or which is older than `staleMs` is broken; a
 * busy lock is retried with backoff until `timeoutMs`, then `STRATA_STORE_FAILED`.
 */
export async function withThreadLock<T>(
  threadDirectory: string,
  options: ThreadLockOptions,
  action: () => Promise<T>,
): Promise<T> {
  const lockPath = join(threadDirectory, LOCK_FILE)
  const previous = queues.get(lockPath) ?? Promise.resolve()
  let done!: () => void
  const tail = new Promise<void>((resolve) => {
    done = resolve
  })
  const queued = previous.then(() => tail)
  queues.set(lockPath, queued)
  try {
    await previous
    const release = await acquire(threadDirectory, lockPath, options)
    try {
      return await action()
    } finally {
      await release()
    }
  } finally {
    done()
    if (queues.get(lockPath) === queued) queues.delete(lockPath)
  }
}

async function acquire(
  threadDirectory: string,
  lockPath: string,
  options: ThreadLockOptions,
): Promise<() => Promise<void>> {
  const holder: LockHolder = { pid: process.pid, hostname: HOST, ts: Date.now(), token: randomUUID() }
  const body = `${JSON.stringify(holder)}\n`
  const deadline = Date.now() + options.timeoutMs
  let delay = 1
  // Marked as ours before the file exists, so no other part of this process can judge it dead.
  heldTokens.add(holder.token)
  try {
    return await acquireLoop()
  } catch (error) {
    heldTokens.delete(holder.token)
    throw error
  }

  async function acquireLoop(): Promise<() => Promise<void>> {
    for (;;) {
      const ino = tryCreate(threadDirectory, lockPath, body)
      if (ino !== undefined) {
        return async () => {
          heldTokens.delete(holder.token)
          try {
            // Remove only our own lock: if ours was broken as stale, the file may be someone else's now.
            if (statSync(lockPath).ino === ino) unlinkSync(lockPath)
          } catch (error) {
            if (!isMissing(error)) throw storeFailed('release the lock', lockPath, error)
          }
        }
      }
      const current = await readHolder(lockPath)
      if (current === 'missing') continue
      const reason = staleness(current, options.staleMs)
      if (reason !== undefined) {
        if (await breakStale(lockPath, current)) options.onRecovered?.(current.holder, reason)
        continue
      }
      if (options.givenUp?.() === true) {
        throw new StrataError({
          code: 'STRATA_STORE_FAILED',
          message: `Gave up waiting for the lock ${lockPath}: the call's deadline passed (timeoutMs).`,
          details: { lockFile: lockPath, reason: 'timeout' },
        })
      }
      if (Date.now() >= deadline) {
        throw new StrataError({
          code: 'STRATA_STORE_FAILED',
          message: `The thread lock ${lockPath} is still held after ${options.timeoutMs} ms (by ${describeHolder(current.holder)}). Another process is writing this thread; retry later, or raise lockTimeoutMs. A lock whose holder died is recovered automatically.`,
          details: { lockFile: lockPath, holder: current.holder },
        })
      }
      await sleep(delay + Math.random() * delay)
      delay = Math.min(delay * 2, 20)
    }
  }
}

/**
 * Creates the lock file exclusively (`O_CREAT | O_EXCL`) and writes the holder into it in the same
 * synchronous step, so no other code of this process runs in between; returns the file's inode, or
 * undefined when the lock is taken. These metadata calls are synchronous on purpose: each takes
 * microseconds, less than a round trip through the thread pool, and the lock is taken on every write.
 */
function tryCreate(threadDirectory: string, lockPath: string, body: string): number | undefined {
  let descriptor: number
  try {
    try {
      descriptor = openSync(lockPath, 'wx')
    } catch (error) {
      if (!isMissing(error)) throw error
      mkdirSync(threadDirectory, { recursive: true })
      descriptor = openSync(lockPath, 'wx')
    }
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return undefined
    throw storeFailed('create the lock', lockPath, error)
  }
  try {
    writeSync(descriptor, body)
    return fstatSync(descriptor).ino
  } catch (error) {
    try {
      unlinkSync(lockPath)
    } catch {}
    throw storeFailed('write the lock', lockPath, error)
  } finally {
    closeSync(descriptor)
  }
}

interface LockState {
  /** Undefined when the file holds no readable holder (its creator died before writing it). */
  holder: LockHolder | undefined
  mtimeMs: number
  raw: string
}

async function readHolder(lockPath: string): Promise<LockState | 'missing'> {
  try {
    const [raw, stats] = await Promise.all([readFile(lockPath, 'utf8'), stat(lockPath)])
    return { holder: parseHolder(raw), mtimeMs: stats.mtimeMs, raw }
  } catch (error) {
    if (isMissing(error)) return 'missing'
    throw storeFailed('read the lock', lockPath, error)
  }
}

function parseHolder(raw: string): LockHolder | undefined {
  try {
    const value = JSON.parse(raw) as Partial<LockHolder>
    if (
      typeof value.pid === 'number' &&
      typeof value.hostname === 'string' &&
      typeof value.ts === 'number' &&
      typeof value.token === 'string'
    ) {
      return value as LockHolder
    }
  } catch {}
  return undefined
}

/** True when a process with this pid runs on this host (or may: one we may not signal). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return errorCode(error) === 'EPERM'
  }
}

function staleness({ holder, mtimeMs }: LockState, staleMs: number): StaleReason | undefined {
  if (holder === undefined) {
    // A holder writes its details right after creating the file, in one synchronous step: a lock
    // still empty (or unreadable) after a moment belongs to a process that died in between.
    return Date.now() - mtimeMs > Math.min(EMPTY_LOCK_GRACE_MS, staleMs) ? 'holder-dead' : undefined
  }
  if (holder.hostname === HOST) {
    if (holder.pid === process.pid ? !heldTokens.has(holder.token) : !isAlive(holder.pid))
      return 'holder-dead'
  }
  return Date.now() - holder.ts > staleMs ? 'lock-expired' : undefined
}

/**
 * Removes a stale lock, unless it changed since it was judged stale. A short-lived break marker makes
 * the check-and-remove exclusive, so two processes that both saw the stale lock cannot remove a fresh
 * lock taken in between. Returns true when this call removed the lock.
 */
async function breakStale(lockPath: string, seen: LockState): Promise<boolean> {
  const marker = `${lockPath}.break`
  try {
    const markerHolder: LockHolder = { pid: process.pid, hostname: HOST, ts: Date.now(), token: randomUUID() }
    await writeFile(marker, `${JSON.stringify(markerHolder)}\n`, { flag: 'wx' })
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw storeFailed('break the stale lock', lockPath, error)
    const other = await readHolder(marker)
    if (other !== 'missing' && isMarkerStale(other)) await unlink(marker).catch(() => {})
    await sleep(1)
    return false
  }
  try {
    const current = await readHolder(lockPath)
    if (current === 'missing' || current.raw !== seen.raw) return false
    await unlink(lockPath)
    return true
  } finally {
    await unlink(marker).catch(() => {})
  }
}

/** A holder recorded by another process of this host that is no longer running (a lock's, a lease's). */
export function holderGone(holder: { pid: number; hostname: string }): boolean {
  return holder.hostname === HOST && holder.pid !== process.pid && !isAlive(holder.pid)
}

function isMarkerStale({ holder, mtimeMs }: LockState): boolean {
  if (holder !== undefined && holderGone(holder)) return true
  return Date.now() - mtimeMs > BREAK_MARKER_STALE_MS
}

function describeHolder(holder: LockHolder | undefined): string {
  if (holder === undefined) return 'an unknown holder'
  return `pid ${holder.pid} on ${holder.hostname} since ${new Date(holder.ts).toISOString()}`
}
