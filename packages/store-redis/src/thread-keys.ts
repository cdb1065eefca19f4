import { invalidOptions } from '@strata-memory/core'

/**
 * The keys of one thread, in the order the Lua scripts receive them. Every key carries the thread id
 * as its hash tag (`{<threadId>}`), so all of them live in one Redis Cluster slot and a script may
 * touch them together.
 */
export interface ThreadKeys {
  /**
   * LIST of every item ever appended, active or archived: element 0 is a header (`strata-log:1:`
   * and a random epoch per creation of the thread), element `seq` the JSON of the item of that seq.
   * Items never move in it, so its length is the last seq + 1.
   */
  log: string
  /** STRING used as a bitmap: bit `seq` is set when that item is archived. */
  archived: string
  /** HASH: item id → seq, for idempotent re-appends; field '' holds the last seq. */
  ids: string
  /** HASH: memory id → content record JSON. */
  content: string
  /** STRING: the thread state's JSON. */
  state: string
  /**
   * STRING with a PX expiry: the owner token of the thread's lease (store contract `v2`), while a
   * request holds the thread. Never touched by the thread's ttl: the lease keeps its own expiry.
   */
  lease: string
  /**
   * HASH: slot name → the value's JSON (store slots, `flags.slots`). No thread data of its own
   * (`listThreads` does not look at it), but it gets the thread's ttl with the other keys on every
   * write, so that it expires with the log, neither before (core would replay the whole log to rebuild
   * its digest) nor after.
   */
  slots: string
  /**
   * HASH: memory id → the JSON of the record's fields but data and meta (`type`, `source`, `level`,
   * `tags`, `ts`), written with the record: what `queryContent` filters and sorts on, so that it fetches
   * only the matching records. Derived: a thread written before it existed (content but no entry here)
   * is read whole, and its entries made then.
   */
  contentMeta: string
}

/** The key names of {@link ThreadKeys}, in script order. */
export const THREAD_KEY_NAMES = [
  'log',
  'archived',
  'ids',
  'content',
  'state',
  'lease',
  'slots',
  'contentMeta',
] as const

/** The keys of `threadId` under `prefix`: `<prefix>:{<threadId>}:<name>`. */
export function threadKeys(prefix: string, threadId: string): ThreadKeys {
  const base = `${prefix}:{${threadId}}:`
  return {
    log: `${base}log`,
    archived: `${base}archived`,
    ids: `${base}ids`,
    content: `${base}content`,
    state: `${base}state`,
    lease: `${base}lease`,
    slots: `${base}slots`,
    contentMeta: `${base}content-meta`,
  }
}

/**
 * The keys APPEND_SCRIPT receives, in its order: the log, the id index and the lease, which are all an
 * append uses, and with a ttl also archived, content, state, slots and content-meta, since the ttl
 * refresh touches them too.
 */
export function appendKeys(prefix: string, threadId: string, withTtl: boolean): string[] {
  const base = `${prefix}:{${threadId}}:`
  return withTtl
    ? [
        `${base}log`,
        `${base}ids`,
        `${base}lease`,
        `${base}archived`,
        `${base}content`,
        `${base}state`,
        `${base}slots`,
        `${base}content-meta`,
      ]
    : [`${base}log`, `${base}ids`, `${base}lease`]
}

/**
 * A key of the thread's slot for one append's transaction only (see APPEND_SCRIPT): random, so that
 * no value can be waiting there, and gone again when the transaction ends.
 */
export function gateKey(prefix: string, threadId: string, token: string): string {
  return `${prefix}:{${threadId}}:gate:${token}`
}

/** The keys of a thread as a list, in script order. */
export function threadKeyList(keys: ThreadKeys): string[] {
  return THREAD_KEY_NAMES.map((name) => keys[name])
}

/**
 * The registry of thread ids under `prefix` (a ZSET, score = last write in epoch ms). It is one key
 * on its own slot, so it is never part of a multi-key command with a thread's keys.
 */
export function registryKey(prefix: string): string {
  return `${prefix}:threads`
}

/** Throws `STRATA_INVALID_OPTIONS` unless `prefix` can start every key: non-empty, without braces. */
export function checkPrefix(prefix: unknown): asserts prefix is string {
  if (typeof prefix === 'string' && prefix.length > 0 && !/[{}\s]/.test(prefix)) return
  invalidOptions(
    `redisStore: prefix must be a non-empty string without braces or spaces (braces would break the per-thread hash tag), for example 'strata' or 'app:strata'; got ${JSON.stringify(prefix)}.`,
    { prefix },
  )
}

/**
 * A HASH of the thread's slot, outside its key family (deleteThread leaves it): header of a deleted
 * log → when it was deleted, so that a store that saw that log tells the delete from a loss. Expires
 * {@link TOMBSTONE_TTL_SECONDS} after the last delete.
 */
export function tombstoneKey(prefix: string, threadId: string): string {
  return `${prefix}:{${threadId}}:deleted`
}

/** How long a deleted log's tombstone is kept: 30 days. */
export const TOMBSTONE_TTL_SECONDS = 30 * 24 * 3600
