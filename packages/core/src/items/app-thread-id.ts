import { StrataError } from '../errors'
import { isValidThreadId } from './thread-id'

/**
 * How a mapped id starts: an id valid as it is never needs the mapping, so a mapped id is told apart by
 * this prefix. Ids starting with it are reserved for mapped ids.
 */
export const MAPPED_THREAD_ID_PREFIX = '_.'

/** The state key under which a thread whose id was mapped keeps the app's own id. */
export const APP_THREAD_ID_STATE_KEY = 'appThreadId'

/** The characters an escaped id keeps as they are; every other byte is escaped. */
const SAFE = /[A-Za-z0-9.-]/

/** Where a hashed id starts its hash: never in an escaped id (escapes are `_` and two upper-case hex digits). */
const HASH_MARK = '_h'

const hex = (byte: number) => byte.toString(16).toUpperCase().padStart(2, '0')

const hasLoneSurrogate = (text: string) =>
  /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text)

function refuse(appThreadId: unknown, why: string, noun: string): never {
  const shown =
    typeof appThreadId === 'string' ? JSON.stringify(appThreadId.slice(0, 140)) : typeof appThreadId
  throw new StrataError({
    code: 'STRATA_INVALID_THREAD_ID',
    message: `${noun} ${shown} cannot be mapped onto a store thread id: ${why}`,
    details: { threadId: appThreadId, reason: 'unmappable' },
  })
}

/**
 * Every byte of the UTF-8 form outside `A-Z a-z 0-9 . -` (and, with `escapeLeadingDot`, a leading `.`)
 * as `_` and two upper-case hex digits: the escaping of mapped thread ids, injective and read back by
 * {@link unescapeThreadIdBytes}. For adapters whose own mapping predates {@link toStoreThreadId}.
 */
export function escapeThreadIdBytes(text: string, { escapeLeadingDot = false } = {}): string {
  let escaped = ''
  const bytes = new TextEncoder().encode(text)
  for (let index = 0; index < bytes.length; index++) {
    const byte = bytes[index]!
    const char = String.fromCharCode(byte)
    const kept = byte < 0x80 && SAFE.test(char) && !(escapeLeadingDot && index === 0 && char === '.')
    escaped += kept ? char : `_${hex(byte)}`
  }
  return escaped
}

/** The text {@link escapeThreadIdBytes} escaped, or undefined for a string no escape produces. */
export function unescapeThreadIdBytes(escaped: string): string | undefined {
  const bytes: number[] = []
  for (let index = 0; index < escaped.length; index++) {
    const char = escaped[index]!
    if (char !== '_') {
      if (!SAFE.test(char)) return undefined
      bytes.push(char.charCodeAt(0))
      continue
    }
    const code = escaped.slice(index + 1, index + 3)
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

/** How many characters of an escaped id a hashed id keeps before its hash, so a listing stays readable. */
const HASHED_KEEP = 60

/**
 * Whether an app's thread id is its own store thread id: valid as a thread id and not starting with
 * the mapped ids' prefix, which only {@link toStoreThreadId}'s mapping may produce.
 */
const isUsedAsItIs = (appThreadId: string) =>
  isValidThreadId(appThreadId) && !appThreadId.startsWith(MAPPED_THREAD_ID_PREFIX)

/**
 * An escaped id too long for a thread id, shortened: its first characters (never an escape cut in
 * two, never fewer than `minKeep`), `_h` and 40 hex digits of the SHA-256 of `appThreadId`. A hash
 * cannot be read back: the caller keeps the app's id with the thread.
 */
export async function shortenThreadId(
  escaped: string,
  appThreadId: string,
  { minKeep = 0 } = {},
): Promise<string> {
  let prefix = escaped.slice(0, HASHED_KEEP)
  const cut = prefix.lastIndexOf('_')
  if (cut > prefix.length - 3 && cut >= minKeep) prefix = prefix.slice(0, cut)
  return `${prefix}${HASH_MARK}${(await sha256Hex(appThreadId)).slice(0, 40)}`
}

/**
 * Checks that an app's thread id can be mapped (a non-empty string with a UTF-8 form), else
 * `STRATA_INVALID_THREAD_ID` (`details.reason: 'unmappable'`) naming it as `noun` (e.g. `Mastra thread id`).
 */
export function assertMappableThreadId(
  appThreadId: unknown,
  noun = 'Thread id',
): asserts appThreadId is string {
  if (typeof appThreadId !== 'string') refuse(appThreadId, 'it is not a string.', noun)
  if (appThreadId.length === 0) refuse(appThreadId, 'it is empty; give every thread a non-empty id.', noun)
  if (hasLoneSurrogate(appThreadId))
    refuse(appThreadId, 'it holds a lone surrogate, which has no UTF-8 form.', noun)
}

/**
 * The store thread id of an app's thread id (LangGraph's `thread_id`, a chat id, any non-empty
 * string). An id valid as it is (1-128 characters of `A-Z a-z 0-9 _ . -`, not starting with `.`) maps
 * to itself, so no existing thread moves, unless it starts with `_.`, the mapped ids' prefix: it would
 * be the mapped id of another app id (`_..hidden` of `.hidden`). Any other id becomes `_.` and its UTF-8 bytes escaped
 * (`user:42/chat:7` → `_.user_3A42_2Fchat_3A7`), read back by {@link appThreadIdOf}; one whose escaped
 * form passes 128 characters keeps its first escaped characters, `_h` and 40 hex digits of its SHA-256,
 * and the app's id is kept in the thread's state (`openAppThread` does it). Refused with
 * `STRATA_INVALID_THREAD_ID` (`details.reason: 'unmappable'`): an empty id, a non-string, a string
 * with a lone surrogate (no UTF-8 form).
 *
 * @example
 * await toStoreThreadId('user-42.chat-7') // 'user-42.chat-7'
 * await toStoreThreadId('user:42') // '_.user_3A42'
 */
export async function toStoreThreadId(appThreadId: string): Promise<string> {
  if (typeof appThreadId === 'string' && isUsedAsItIs(appThreadId)) return appThreadId
  assertMappableThreadId(appThreadId)
  const escaped = `${MAPPED_THREAD_ID_PREFIX}${escapeThreadIdBytes(appThreadId)}`
  if (escaped.length <= 128) return escaped
  return shortenThreadId(escaped, appThreadId, { minKeep: MAPPED_THREAD_ID_PREFIX.length })
}

/**
 * The app's thread id a store thread id stands for, as far as the id itself tells: an escaped id read
 * back, any other id as it is; undefined for a hashed id (its app id is in the thread's state under
 * {@link APP_THREAD_ID_STATE_KEY}).
 */
export function appThreadIdOf(storeThreadId: string): string | undefined {
  if (!storeThreadId.startsWith(MAPPED_THREAD_ID_PREFIX)) return storeThreadId
  const escaped = storeThreadId.slice(MAPPED_THREAD_ID_PREFIX.length)
  if (escaped.includes(HASH_MARK)) return undefined
  const appId = unescapeThreadIdBytes(escaped)
  // Only an id that needed the mapping was mapped: anything else is an id used as it is.
  return appId === undefined || appId.length === 0 || isUsedAsItIs(appId) ? storeThreadId : appId
}

/**
 * A store thread id as an error message names it: the app's own id in quotes, with the store's beside
 * it when they differ (`'user:42/chat 7' (stored as '_.user_3A42_2Fchat_207')`).
 */
export function quotedThreadId(storeThreadId: string): string {
  const appThreadId = appThreadIdOf(storeThreadId)
  return appThreadId === undefined || appThreadId === storeThreadId
    ? `'${storeThreadId}'`
    : `'${appThreadId}' (stored as '${storeThreadId}')`
}

/** True for a store thread id {@link toStoreThreadId} made by hashing (the app's id is in the thread's state). */
export const isHashedThreadId = (storeThreadId: string) =>
  storeThreadId.startsWith(MAPPED_THREAD_ID_PREFIX) && storeThreadId.includes(HASH_MARK)
