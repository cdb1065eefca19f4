import { appThreadIdOf, StrataError } from '@strata-memory/core'
import { quotedThreadId } from '@strata-memory/core/store-kit'
import { LOG_HEADER } from './lua-scripts'
import type { RedisContext } from './redis-context'
import { threadKeys, tombstoneKey } from './thread-keys'

/** Threads whose log this store remembers; beyond this, the one remembered first is forgotten. */
const REMEMBERED_THREADS = 10_000

/** What the store saw of a thread's log: its header (with the epoch of its creation) and last seq. */
interface SeenLog {
  header: string
  lastSeq: number
  /** When this store last wrote to the thread (epoch ms; 0: never), for the ttl rule. */
  wroteAt: number
  /**
   * The store's clock (see `clock()`) when the header and last seq were confirmed: only a look at
   * Redis that started later can prove them gone (an earlier one may have crossed a write).
   */
  confirmedAt: number
}

/** Why a thread counts as lost. */
type LossReason = 'log-missing' | 'log-replaced' | 'log-shorter'

interface Loss {
  reason: LossReason
  knownSeq: number
  /** The store's newest seq now (0: no log). */
  storeSeq: number
}

/** `STRATA_THREAD_LOST`: history this store saw is gone from Redis. */
export function threadLostError(threadId: string, { reason, knownSeq, storeSeq }: Loss): StrataError {
  const now =
    reason === 'log-missing'
      ? 'Redis now holds no log for it'
      : reason === 'log-replaced'
        ? `Redis now holds another log (created since, at seq ${storeSeq})`
        : `Redis now holds it only up to seq ${storeSeq}`
  // A thread an app names by its own id (an adapter's, openAppThread's) is deleted by that id there.
  const appId = appThreadIdOf(threadId)
  const remove =
    appId === undefined || appId === threadId
      ? `deleteThread('${threadId}')`
      : `the adapter's delete and the app's id, '${appId}' (Mastra's deleteThread, LangChain's deleteAgentThread), or memory.deleteThread('${threadId}') in core`
  return new StrataError({
    code: 'STRATA_THREAD_LOST',
    message: `Thread ${quotedThreadId(threadId)} lost history: this store saw it at seq ${knownSeq}, and ${now}. Redis lost data (a restart without persistence, a failover to a replica that lagged, a flush): check its persistence (CONFIG GET appendonly, save). The thread is not presented as new; restore it from a backup, or accept the loss with ${remove} (which removes what is left) and start it again.`,
    details: { threadId, knownSeq, storeSeq, reason },
  })
}

/**
 * What this store instance saw of each thread's log, so that a log that disappears, comes back with
 * another epoch or comes back shorter is reported (`STRATA_THREAD_LOST`) instead of read as a new or
 * empty thread. Not a loss: a thread deleted through any store on the prefix (deleteThread leaves a
 * tombstone naming the deleted log's header) or, with `ttlSeconds`, a thread this store has not
 * written for `ttlSeconds` (it may have expired). A loss stays reported for the thread until
 * `deleteThread` on this store accepts it.
 */
export function threadEpochs(context: RedisContext) {
  const seen = new Map<string, SeenLog>()
  const lost = new Map<string, Loss>()
  let ticks = 0

  const remember = (threadId: string, log: SeenLog): void => {
    seen.delete(threadId)
    if (seen.size >= REMEMBERED_THREADS) seen.delete(seen.keys().next().value!)
    seen.set(threadId, log)
  }

  /** True when the log this store saw was deleted (tombstone) or may have expired (ttl). */
  const wentAway = async (threadId: string, log: SeenLog): Promise<boolean> => {
    const { ttlSeconds } = context
    if (ttlSeconds !== undefined && Date.now() - log.wroteAt >= ttlSeconds * 1000) return true
    const tombstone = tombstoneKey(context.prefix, threadId)
    return Number(await context.send(tombstone, ['HEXISTS', tombstone, log.header], threadId)) === 1
  }

  async function observe(
    threadId: string,
    header: string,
    lastSeq: number,
    startedAt: number,
  ): Promise<void> {
    const before = lost.get(threadId)
    if (before !== undefined) throw threadLostError(threadId, before)
    const log = seen.get(threadId)
    // Crossed a write or another look of this store that already knows more: no evidence either way.
    if (log !== undefined && log.confirmedAt > startedAt) return
    if (log !== undefined && (header !== log.header || lastSeq < log.lastSeq)) {
      if (header === log.header || !(await wentAway(threadId, log))) {
        const reason: LossReason =
          header === '' ? 'log-missing' : header === log.header ? 'log-shorter' : 'log-replaced'
        const loss = { reason, knownSeq: log.lastSeq, storeSeq: lastSeq }
        lost.set(threadId, loss)
        seen.delete(threadId)
        throw threadLostError(threadId, loss)
      }
      seen.delete(threadId)
    } else if (log !== undefined) {
      log.lastSeq = lastSeq
      log.confirmedAt = startedAt
      return
    }
    if (header !== '') remember(threadId, { header, lastSeq, wroteAt: 0, confirmedAt: startedAt })
  }

  return {
    /** A tick of the store's own clock: take one before a look at Redis, for `observe`. */
    clock: (): number => ++ticks,

    /** Throws the loss found earlier, until `forget`. */
    checkLost(threadId: string): void {
      const loss = lost.get(threadId)
      if (loss !== undefined) throw threadLostError(threadId, loss)
    },

    /** True when this store saw the thread's log (it then checks appends at expectedSeq 0 first). */
    knows: (threadId: string): boolean => seen.has(threadId) || lost.has(threadId),

    /**
     * The log as a read or head found it: `header` ('' when there is no log) and its last seq.
     * Throws `STRATA_THREAD_LOST` when it is not what this store saw before and did not go away.
     */
    observe,

    /** Reads the log's header and length and {@link observe}s them (after a refused append or archive). */
    async recheck(threadId: string): Promise<void> {
      const keys = threadKeys(context.prefix, threadId)
      const startedAt = ++ticks
      const [header, length] = await context.transaction(threadId, keys, [
        ['LINDEX', keys.log, '0'],
        ['LLEN', keys.log],
      ])
      await observe(
        threadId,
        header === null ? '' : String(header),
        Math.max(Number(length) - 1, 0),
        startedAt,
      )
    },

    /** After an append that stored items up to `lastSeq`; `epoch` when it created the log. */
    appended(threadId: string, lastSeq: number, epoch: string | undefined): void {
      const log = seen.get(threadId)
      const confirmedAt = ++ticks
      if (epoch !== undefined) {
        remember(threadId, { header: `${LOG_HEADER}${epoch}`, lastSeq, wroteAt: Date.now(), confirmedAt })
      } else if (log !== undefined) {
        log.lastSeq = Math.max(log.lastSeq, lastSeq)
        log.wroteAt = Date.now()
        log.confirmedAt = confirmedAt
      }
    },

    /** Forgets the thread (after deleteThread on this store): a loss reported is accepted. */
    forget(threadId: string): void {
      seen.delete(threadId)
      lost.delete(threadId)
    },
  }
}

/** The part of the store that tells a lost thread from a new one; see {@link threadEpochs}. */
export type ThreadEpochs = ReturnType<typeof threadEpochs>
