import type { JsonObject } from '../items'
import { counterIdentity, sameCounts, type TokenCounter } from '../tokens'
import { ArchiveFilter } from './archive-filter'

/** A scope opened by `enter` and not yet closed. */
export interface OpenScope<L extends string = string> {
  level: L
  title: string
  instructions?: string
  /** The seq of the scope's opening item. */
  seq: number
}

/**
 * The store slot that holds the thread's {@link LogDigest}, on a store with the slot capability
 * (`flags.slots`): the digest grows with the archive (about 2 bytes per archived id and tool call),
 * and the state is read and written whole by ordinary requests (usage reports, mode changes), which
 * then never carry it.
 */
export const DIGEST_SLOT = 'log-digest'

/**
 * The key of the thread's state that holds its {@link LogDigest} on a store without slots, and on a
 * thread written before slots: an open falls back to it, and the first state write after a slot store
 * met it moves it to the slot (see `WritePath`).
 */
export const DIGEST_STATE_KEY = 'logDigest'

/**
 * What opening a thread needs of every item up to `throughSeq`, archived ones included, so an open
 * reads the active log and the digest (its slot, or the state), never the archive. Everything here is a function of the items up
 * to `throughSeq` alone — which items are archived does not enter it — and items never change once
 * written, so a digest stays true for ever (until the thread is deleted, state, slots and all): writers
 * in several processes may store digests at different seqs in any order, and each is right — so is one
 * left in the state beside a newer one in the slot (the slot's is used).
 *
 * Why in a slot (or the state) and self-healing rather than written with each archive: the archive is
 * moved by compaction (another part's code), a rewind, and a compaction's cut-short archive finished by
 * a later write; a digest carried by the items those write would leave the active log with them. Instead an
 * open checks the digest against the store's counters: seqs are consecutive (the store contract), so
 * the archive holds `throughSeq − (active items up to it)` items up to `throughSeq`, and
 * `head().archivedCount` minus that is what was archived above it — usually none, since the thread
 * stores a new digest after each archive; those few are read (`readArchive({ fromSeq })`, a page at a
 * time) and the next write stores a digest that covers them. A thread without a usable digest (a
 * thread from before digests, a store whose digest write failed, a slot that does not parse or that
 * expired before its thread) is replayed whole once, the same way.
 */
export interface LogDigest<L extends string = string> {
  version: 1
  throughSeq: number
  /**
   * The identity of the token counter `rawTokens` was counted with (`counterIdentity`: its name and
   * version): a digest of another counter, or of another version of it, is not used (the log is
   * replayed and a new digest stored).
   */
  counter: string
  /** The highest turn of the items. */
  turn: number
  /** Tokens of their messages as raw messages (see `ThreadLog.rawTokens`). */
  rawTokens: number
  /** The scopes open after them. */
  scopes: OpenScope<L>[]
  /** Their ids and tool calls. */
  filter: ArchiveFilter
}

/** The digest as the slot (or the state) keeps it. */
export function storedDigest(digest: LogDigest): JsonObject {
  return {
    ...digest,
    scopes: digest.scopes as unknown as JsonObject[],
    filter: digest.filter.toJSON() as unknown as JsonObject[],
  }
}

/** The digest a thread's state holds for this counter, or undefined (none, another counter's, or not valid). */
export function digestOf<L extends string>(
  state: JsonObject | undefined,
  counter: TokenCounter,
): LogDigest<L> | undefined {
  return parseDigest<L>(state?.[DIGEST_STATE_KEY], counter)
}

/** A stored digest (a slot's value, or the state's key) for this counter, or undefined (none, another counter's, or not valid). */
export function parseDigest<L extends string>(
  value: unknown,
  counter: TokenCounter,
): LogDigest<L> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  const {
    version,
    throughSeq,
    counter: counterName,
    turn,
    rawTokens,
    scopes,
    filter,
  } = value as Record<string, unknown>
  if (version !== 1 || !sameCounts(counterIdentity(counter), counterName)) return undefined
  if (!isCount(throughSeq) || !isCount(turn) || typeof rawTokens !== 'number' || !Number.isFinite(rawTokens))
    return undefined
  if (!Array.isArray(scopes) || !scopes.every(isScope)) return undefined
  const parsed = ArchiveFilter.fromJSON(filter)
  if (parsed === undefined) return undefined
  return {
    version,
    throughSeq,
    counter: counterIdentity(counter),
    turn,
    rawTokens,
    scopes: scopes as OpenScope<L>[],
    filter: parsed,
  }
}

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0

function isScope(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false
  const { level, title, instructions, seq } = value as Record<string, unknown>
  return (
    typeof level === 'string' &&
    typeof title === 'string' &&
    (instructions === undefined || typeof instructions === 'string') &&
    isCount(seq)
  )
}
