import { isValidThreadId, StrataError } from '@strata-memory/core'

/** The characters a Strata thread id may hold as they are; every other byte is escaped. */
const SAFE = /[A-Za-z0-9.-]/

/** Where a hashed id starts its hash: `_h` never occurs in an escaped id (escapes are `_` + two upper-case hex digits). */
const HASH_MARK = '_h'

/** How many characters of the escaped id a hashed id keeps before its hash, so a listing stays readable. */
const HASHED_PREFIX = 60

const hex = (byte: number) => byte.toString(16).toUpperCase().padStart(2, '0')

const refuse = (threadId: unknown, why: string): never => {
  throw new StrataError({
    code: 'STRATA_INVALID_THREAD_ID',
    message: `Mastra thread id ${typeof threadId === 'string' ? JSON.stringify(threadId.slice(0, 140)) : typeof threadId} cannot be mapped onto a Strata thread id: ${why}`,
    details: { threadId, reason: 'unmappable' },
  })
}

/** True when the string holds a lone surrogate, which UTF-8 cannot carry (it would not read back the same). */
const hasLoneSurrogate = (text: string) =>
  /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text)

/**
 * A Mastra thread id escaped into Strata's alphabet: letters, digits, `.` and `-` stay; every other
 * byte of its UTF-8 form (`_` included, and a leading `.`) becomes `_` and two upper-case hex digits.
 * `user@example.com/chat 1` → `user_40example.com_2Fchat_201`. Injective and reversible
 * ({@link unescapeThreadId}); it may be longer than 128 characters.
 */
export function escapeThreadId(threadId: string): string {
  let escaped = ''
  const bytes = new TextEncoder().encode(threadId)
  for (let index = 0; index < bytes.length; index++) {
    const byte = bytes[index]!
    const char = String.fromCharCode(byte)
    escaped += byte < 0x80 && SAFE.test(char) && !(index === 0 && char === '.') ? char : `_${hex(byte)}`
  }
  return escaped
}

/** The Mastra thread id an escaped id stands for, or undefined for a hashed id or a string no escape produces. */
export function unescapeThreadId(strataThreadId: string): string | undefined {
  if (strataThreadId.includes(HASH_MARK)) return undefined
  const bytes: number[] = []
  for (let index = 0; index < strataThreadId.length; index++) {
    const char = strataThreadId[index]!
    if (char !== '_') {
      if (!SAFE.test(char)) return undefined
      bytes.push(char.charCodeAt(0))
      continue
    }
    const code = strataThreadId.slice(index + 1, index + 3)
    if (!/^[0-9A-F]{2}$/.test(code)) return undefined
    bytes.push(Number.parseInt(code, 16))
    index += 2
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array(bytes))
  } catch {
    return undefined
  }
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))
  return [...new Uint8Array(digest)].map(hex).join('').toLowerCase()
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
  if (typeof threadId !== 'string') refuse(threadId, 'it is not a string.')
  if (threadId.length === 0) refuse(threadId, 'it is empty; give every thread a non-empty id.')
  if (hasLoneSurrogate(threadId)) refuse(threadId, 'it holds a lone surrogate, which has no UTF-8 form.')
  const escaped = escapeThreadId(threadId)
  if (escaped.length <= 128) return escaped
  let prefix = escaped.slice(0, HASHED_PREFIX)
  // Never cut an escape in two: the prefix stays readable.
  const cut = prefix.lastIndexOf('_')
  if (cut > HASHED_PREFIX - 3) prefix = prefix.slice(0, cut)
  const hashed = `${prefix}${HASH_MARK}${(await sha256Hex(threadId)).slice(0, 40)}`
  if (!isValidThreadId(hashed)) refuse(threadId, 'its hashed form is not a valid id.')
  return hashed
}

/** True for a Strata thread id {@link toStrataThreadId} made by hashing (the original is in the thread's state). */
export const isHashedThreadId = (strataThreadId: string) => strataThreadId.includes(HASH_MARK)
