/*
 * The keys of resources (store contract `v2`). A resource's own keys carry the resource id as their
 * hash tag, `<prefix>:res:{<resourceId>}:…`, so they share one Redis Cluster slot and a script may
 * change them together; a thread's binding and vectors carry the thread's tag, `<prefix>:{<threadId>}:…`,
 * beside the thread's other keys.
 */

/** The keys of one resource, in the order the resource scripts receive them. */
export interface ResourceKeys {
  /**
   * ZSET, every score 0, ordered by member: `<16-digit (2^53 − 1 − lastAppendAt)>:<threadId>`, so that
   * the lexical order is the index order (newest first, ties by thread id) and a cursor is a ZRANGEBYLEX
   * bound.
   */
  index: string
  /** HASH: thread id → its lastAppendAt, to find a thread's member in `index`. */
  times: string
  /** HASH: `version`, `value` (JSON), `updatedAt` of the working memory. */
  working: string
  /** HASH: `d:<address>` → the document's JSON (without createdAt), `c:<address>` → its createdAt. */
  documents: string
}

/** The keys of `resourceId` under `prefix`. */
export function resourceKeys(prefix: string, resourceId: string): ResourceKeys {
  const base = `${prefix}:res:{${resourceId}}:`
  return {
    index: `${base}index`,
    times: `${base}times`,
    working: `${base}working`,
    documents: `${base}documents`,
  }
}

/** A thread's resource keys: in its own slot, beside its log. */
export interface ThreadResourceKeys {
  /** HASH: `resource` (the resource it is bound to), `from` (a move whose index entries are not moved yet). */
  binding: string
  /** HASH: JSON `[id, model]` → the vector's float32 values, little-endian, in base64. */
  vectors: string
}

/** The resource keys of `threadId` under `prefix`. */
export function threadResourceKeys(prefix: string, threadId: string): ThreadResourceKeys {
  const base = `${prefix}:{${threadId}}:`
  return { binding: `${base}resource`, vectors: `${base}vectors` }
}

/** The largest lastAppendAt, and the base of the index members' inverted times. */
const MAX_TIME = Number.MAX_SAFE_INTEGER

/** The index member of an entry (see {@link ResourceKeys.index}). */
export function indexMember(lastAppendAt: number, threadId: string): string {
  return `${String(MAX_TIME - lastAppendAt).padStart(16, '0')}:${threadId}`
}

/** An index member as its entry; undefined for a member this store did not write. */
export function entryOfMember(member: string): { threadId: string; lastAppendAt: number } | undefined {
  const match = /^(\d{16}):(.+)$/.exec(member)
  if (match === null) return undefined
  return { threadId: match[2]!, lastAppendAt: MAX_TIME - Number(match[1]) }
}
