import { isValidThreadId, StrataError, type StrataStore } from '@strata-memory/core'
import {
  assertMappableThreadId,
  escapeThreadIdBytes,
  shortenThreadId,
  toStoreThreadId,
  unescapeThreadIdBytes,
} from '@strata-memory/core/adapter-kit'
import { threadRecordIn } from './thread-record'

/** Where a hashed id starts its hash: `_h` never occurs in an escaped id (escapes are `_` + two upper-case hex digits). */
const HASH_MARK = '_h'

/**
 * A Mastra thread id escaped into Strata's alphabet: letters, digits, `.` and `-` stay; every other
 * byte of its UTF-8 form (`_` included, and a leading `.`) becomes `_` and two upper-case hex digits.
 * `user@example.com/chat 1` → `user_40example.com_2Fchat_201`. Injective and reversible
 * ({@link unescapeThreadId}); it may be longer than 128 characters. Core's escaping
 * (`escapeThreadIdBytes`), kept for the threads this adapter has written since before core's
 * `toStoreThreadId`, which maps ids valid as they are onto themselves.
 */
export function escapeThreadId(threadId: string): string {
  return escapeThreadIdBytes(threadId, { escapeLeadingDot: true })
}

/** The Mastra thread id an escaped id stands for, or undefined for a hashed id or a string no escape produces. */
export function unescapeThreadId(strataThreadId: string): string | undefined {
  return strataThreadId.includes(HASH_MARK) ? undefined : unescapeThreadIdBytes(strataThreadId)
}

/**
 * The Strata thread id this adapter gave a Mastra thread id before it shared core's mapping: every id
 * escaped ({@link escapeThreadId}), one whose escaped form passes 128 characters hashed. Threads written
 * then are still found under it ({@link resolveStrataThreadId}).
 */
async function legacyStrataThreadId(threadId: string): Promise<string> {
  const escaped = escapeThreadId(threadId)
  if (escaped.length <= 128) return escaped
  const hashed = await shortenThreadId(escaped, threadId)
  if (!isValidThreadId(hashed)) {
    throw new StrataError({
      code: 'STRATA_INVALID_THREAD_ID',
      message: `Mastra thread id ${JSON.stringify(threadId.slice(0, 140))} cannot be mapped onto a Strata thread id: its hashed form is not a valid id.`,
      details: { threadId, reason: 'unmappable' },
    })
  }
  return hashed
}

/**
 * The Strata thread id of a Mastra thread id: core's `toStoreThreadId`, the mapping every adapter and
 * the CLI share, so `strata status 'ana@example.com/trip 2'` finds the thread Mastra was given. An id
 * valid as it is maps onto itself; any other becomes `_.` and its escaped bytes (hashed past 128
 * characters, the Mastra id kept in the thread's record). Refused with `STRATA_INVALID_THREAD_ID`
 * (`details.reason: 'unmappable'`): an empty id, a non-string, or a string with a lone surrogate.
 *
 * @example
 * await toStrataThreadId('ana@example.com/trip 2') // '_.ana_40example.com_2Ftrip_202'
 * await toStrataThreadId('chat-7') // 'chat-7'
 */
export async function toStrataThreadId(threadId: string): Promise<string> {
  assertMappableThreadId(threadId, 'Mastra thread id')
  return toStoreThreadId(threadId)
}

/** Resolved ids per store, so a thread's first use pays the check and the next ones nothing. */
const resolved = new WeakMap<object, Map<string, string>>()
const RESOLVED_LIMIT = 10_000

/**
 * The Strata thread a Mastra thread id names on `store`: {@link toStrataThreadId}, unless the store
 * holds the thread under the id this adapter gave it before (its escaped form) and nothing under the
 * shared one: then that, so threads written by earlier versions keep their history.
 */
export async function resolveStrataThreadId(store: StrataStore, threadId: string): Promise<string> {
  const shared = await toStrataThreadId(threadId)
  const legacy = await legacyStrataThreadId(threadId)
  if (legacy === shared) return shared
  let known = resolved.get(store)
  if (known === undefined) {
    known = new Map()
    resolved.set(store, known)
  }
  const hit = known.get(threadId)
  if (hit !== undefined) return hit
  // Both ids asked at once: one round trip on a networked store, paid once per thread and process.
  const holds = async (id: string) => {
    const [head, state] = await Promise.all([store.head(id), store.getState(id)])
    return { held: head.lastSeq > 0 || state !== undefined, record: threadRecordIn(state) }
  }
  const [{ held: sharedHeld }, old] = await Promise.all([holds(shared), holds(legacy)])
  // The escaped id of one Mastra id can be the shared id of another ('order 24' escaped was
  // 'order_2024', which is how 'order_2024' maps now): a thread there whose record names another
  // Mastra id is that one's, not this one's history.
  const legacyHeld = old.held && (old.record === undefined || old.record.threadId === threadId)
  const id = !sharedHeld && legacyHeld ? legacy : shared
  if (known.size >= RESOLVED_LIMIT) known.clear()
  known.set(threadId, id)
  return id
}

/** True for a Strata thread id made by hashing (the original is in the thread's state). */
export const isHashedThreadId = (strataThreadId: string) => strataThreadId.includes(HASH_MARK)
