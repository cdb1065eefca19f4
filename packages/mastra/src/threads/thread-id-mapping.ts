import {
  assertMappableThreadId,
  escapeThreadIdBytes,
  isValidThreadId,
  StrataError,
  shortenThreadId,
  unescapeThreadIdBytes,
} from '@strata-memory/core'

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
 * The Strata thread id of a Mastra thread id. Most ids are escaped ({@link escapeThreadId}); one whose
 * escaped form passes 128 characters becomes its first 60 escaped characters, `_h` and 40 hex digits
 * of its SHA-256, and the original is kept in the thread's state (`StrataMemory` does this), since a
 * hash cannot be read back. Refused with `STRATA_INVALID_THREAD_ID` (`details.reason: 'unmappable'`):
 * an empty id, a non-string, or a string with a lone surrogate (no UTF-8 form).
 *
 * @example
 * await toStrataThreadId('ana@example.com/trip 2') // 'ana_40example.com_2Ftrip_202'
 */
export async function toStrataThreadId(threadId: string): Promise<string> {
  assertMappableThreadId(threadId, 'Mastra thread id')
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

/** True for a Strata thread id {@link toStrataThreadId} made by hashing (the original is in the thread's state). */
export const isHashedThreadId = (strataThreadId: string) => strataThreadId.includes(HASH_MARK)
