import type { Item, JsonObject, JsonValue, UnsequencedItem } from '../items'
import type { StoreAuditMethods } from './store-audit'

/**
 * The version of the store contract this core implements; a store declares it as `specificationVersion`.
 * `v2` adds the lease ({@link StoreLeaseMethods}), the capability `thread.hold()` needs. Core still takes
 * `v1` stores for everything else.
 */
export const STORE_SPECIFICATION_VERSION = 'v2'

/** The store contract versions this core accepts: `v1` stores lack the `v2` capabilities (the lease). */
export type StoreSpecificationVersion = 'v1' | typeof STORE_SPECIFICATION_VERSION

/**
 * What a store promises about its data, for apps and status: core checks that the flags are declared
 * (booleans) and reports them in `thread.status().store`, but never changes behaviour on them.
 */
export interface StoreFlags {
  /** Data survives a process restart. */
  persistent: boolean
  /** Several processes may open the same thread at once safely. */
  shared: boolean
  /**
   * Contract `v2`: the store implements {@link StoreLeaseMethods} and refuses a write that carries no
   * lease, or another one, while a thread is leased (`STRATA_THREAD_BUSY`). `thread.hold()` needs it.
   * Absent (a `v1` store) means false.
   */
  leases?: boolean
  /**
   * Contract `v2`: the store implements {@link StoreResourceMethods} (resources, their thread index,
   * working memory, documents, vectors). Absent means false: `memory.resource()` then refuses with
   * `STRATA_STORE_CAPABILITY`.
   */
  resources?: boolean
  /**
   * Contract `v2`: the store implements {@link StoreAuditMethods} (`audit(threadId, { repair })`), which
   * `strata verify` calls. Absent means false.
   */
  audit?: boolean
  /**
   * Contract `v2`: the store implements {@link StoreSlotMethods} (named JSON values of a thread kept
   * apart from its state). Absent means false: core then keeps what it would put there in the state.
   */
  slots?: boolean
}

/** Options of {@link StoreLeaseMethods.acquireLease} and {@link StoreLeaseMethods.renewLease}. */
export interface LeaseOptions {
  /**
   * Who holds the lease: a token unique per hold (core uses a random UUID). Writes carry it as their
   * `lease` option. It is a capability: a store never hands it out to another caller (errors and
   * {@link StoreLeaseMethods.readLease} leave it out).
   */
  owner: string
  /** The lease lapses this many milliseconds after it was taken or last renewed, unless renewed again. */
  ttlMs: number
}

/** A lease as the store holds it. */
export interface LeaseGrant {
  /** When the lease lapses unless renewed (epoch ms, by the store's clock: best effort across hosts). */
  expiresAt: number
}

/**
 * The lease: one holder per thread at a time, an optional capability of a `v2` store, declared with
 * `flags.leases`. A lease lapses `ttlMs` after it was last taken or renewed, so a holder that dies
 * (and stops renewing) frees the thread; a store that can tell that the holder is gone (the file store
 * on one host) may free it sooner. While a thread has a lease that has not lapsed, the store refuses
 * every `append`, `archive`, `setState` and `setSlot` of that thread whose `lease` option is not the
 * holder's with `STRATA_THREAD_BUSY`, writing nothing: writes without the option included. A write
 * carrying a lease that has lapsed, with no other holder since, goes through like a write without one.
 * Reads, content records and `deleteThread` (which removes the lease too) are never refused.
 */
export interface StoreLeaseMethods {
  /**
   * Takes the thread's lease for `owner`, or extends it when `owner` holds it already. Atomic: of two
   * owners racing, one gets it. `STRATA_THREAD_BUSY` (details: `threadId`, `expiresAt`) when another
   * owner holds a lease that has not lapsed. Writes no thread data: a thread with only a lease is not
   * listed.
   */
  acquireLease(threadId: string, options: LeaseOptions): Promise<LeaseGrant>
  /**
   * Extends `owner`'s lease by `ttlMs` from now. Undefined, changing nothing, when the thread has no
   * lease of `owner`'s any more (it lapsed, was released or deleted, or another owner took it).
   */
  renewLease(threadId: string, options: LeaseOptions): Promise<LeaseGrant | undefined>
  /**
   * Ends `owner`'s lease (a compare-and-delete: another owner's lease is left as it is). True when it
   * ended one; releasing twice, or a lapsed lease, is not an error.
   */
  releaseLease(threadId: string, options: { owner: string }): Promise<boolean>
  /** The thread's lease that has not lapsed, without its owner, or undefined: for status and tools. */
  readLease(threadId: string): Promise<LeaseGrant | undefined>
}

/**
 * What a write carries for the lease (contract `v2`): the `owner` of the lease it writes under. Stores
 * without the lease capability ignore it.
 */
export interface LeaseWriteOptions {
  /**
   * The owner token of the caller's lease. While another owner's lease has not lapsed, a write is
   * refused (`STRATA_THREAD_BUSY`) whether or not it carries one.
   */
  lease?: string
}

/**
 * Slots: named JSON objects of a thread kept apart from its state, an optional capability of a `v2`
 * store, declared with `flags.slots`. Core keeps derived data there that only an open needs (the
 * thread's log digest, which grows with the archive), so that the state, read and written whole on
 * ordinary requests, stays small. A slot is read and written whole, on its own: writing one never
 * reads or rewrites the state or another slot. Slot names follow {@link SLOT_NAME_PATTERN}
 * (`STRATA_INVALID_OPTIONS` otherwise). Slots are no thread data of their own: a thread with only
 * slots is not listed; `deleteThread` removes them. They hold what an open can rebuild, so an export
 * or audit may leave them out. Redis Cluster: in the thread's hash slot.
 */
export interface StoreSlotMethods {
  /** The slot's value, or undefined when never written (or removed). */
  getSlot(threadId: string, name: string): Promise<JsonObject | undefined>
  /**
   * Replaces the slot's value, atomically (a reader sees the old value or the new one, whole);
   * `undefined` removes it. `options.lease`: fenced like `setState` (see {@link LeaseWriteOptions}).
   */
  setSlot(
    threadId: string,
    name: string,
    value: JsonObject | undefined,
    options?: LeaseWriteOptions,
  ): Promise<void>
}

/**
 * What a slot name may hold: a lower-case letter, then lower-case letters, digits and dashes, 1–64 in
 * all, so that it is safe as a file name on any file system (no two names differ by case alone) and in
 * a Redis key or field.
 */
export const SLOT_NAME_PATTERN = /^[a-z][a-z0-9-]{0,63}$/

/**
 * The content channel's methods, an optional capability of a store. A store without them works with
 * `createMemory({ content: false })`; with the content channel on, `createMemory` refuses it with
 * `STRATA_INVALID_OPTIONS`.
 */
export interface StoreContentMethods {
  /** Stores a content record; a record with the same id is replaced. */
  putContent(threadId: string, record: ContentRecord): Promise<void>
  /** A content record by id, or undefined. */
  getContent(threadId: string, id: string): Promise<ContentRecord | undefined>
  /** Content records matching every filter, newest first (by `ts`, then by id descending). */
  queryContent(threadId: string, query?: ContentQuery): Promise<ContentRecord[]>
}

/** One thread in a resource's thread index. */
export interface ResourceThreadEntry {
  threadId: string
  /** Epoch ms of the thread's last append, as core reported it with `touchResourceThread`. */
  lastAppendAt: number
}

/** A page of {@link StoreResourceMethods.listResourceThreads}, newest first by `lastAppendAt`. */
export interface ResourceThreadPage {
  threads: ResourceThreadEntry[]
  /** Pass back as `cursor` for the next page; absent on the last page. Opaque to callers. */
  cursor?: string
}

/** A versioned JSON value: a resource's working memory. */
export interface VersionedValue {
  value: JsonValue
  /** 1 for the first write, +1 for each write after it. */
  version: number
  /** Epoch ms of the write. */
  updatedAt: number
}

/** A document of a resource's namespaced document store (what LangGraph's `BaseStore` holds). */
export interface ResourceDocument {
  /** Non-empty path of labels, e.g. `['memories', 'preferences']`. */
  namespace: string[]
  key: string
  value: JsonObject
  /** Epoch ms. */
  createdAt: number
  /** Epoch ms. */
  updatedAt: number
}

/** One embedding kept beside a thread's data (items, content, facts). */
export interface VectorRecord {
  /** What the vector embeds, unique within the thread: `item:<seq>`, `content:<id>`, `fact:<seq>#<n>`. */
  id: string
  /** The embedder's model id: vectors of another model are not compared. */
  model: string
  vector: Float32Array
}

/**
 * Resources (a user, a team, an account) that own threads, an optional capability of a `v2` store,
 * declared with `flags.resources`. Resource ids follow the thread-id rule (`STRATA_INVALID_THREAD_ID`
 * otherwise). A resource's own data (thread index, working memory, documents) is kept under the
 * resource (Redis Cluster: in the resource's hash slot); a thread's binding and vectors under the thread.
 * `deleteThread` removes the thread's binding, its index entry and its vectors.
 */
export interface StoreResourceMethods {
  /** The resource a thread is bound to, or undefined. */
  getThreadResource(threadId: string): Promise<string | undefined>
  /**
   * Binds a thread to a resource, atomically compare-and-set on the thread's current binding:
   * `expected` is the resource the caller read (undefined: unbound). When the binding is no longer
   * `expected`, `STRATA_SEQ_CONFLICT` and nothing changes. Moving a thread removes it from the old
   * resource's index and adds it to the new one's (with the old entry's `lastAppendAt`, else the entry
   * the new index has already, else now). Binding a thread to the resource it has changes nothing but
   * adding a missing index entry, so a repeated or retried call converges.
   */
  setThreadResource(
    threadId: string,
    resourceId: string,
    options: { expected: string | undefined },
  ): Promise<void>
  /** Records a thread's last append in its resource's index (an upsert; a later time wins). */
  touchResourceThread(resourceId: string, threadId: string, lastAppendAt: number): Promise<void>
  /**
   * The resource's threads, newest first by `lastAppendAt` (ties: thread id ascending), a page at a time
   * (`limit` 1–1000, default 50). A cursor is a position, not a snapshot: an entry touched while a caller
   * pages moves to the front and is never returned twice; the entries not touched are each returned once.
   * A cursor this store did not return is `STRATA_INVALID_OPTIONS`.
   */
  listResourceThreads(
    resourceId: string,
    options?: { cursor?: string; limit?: number },
  ): Promise<ResourceThreadPage>
  /** The resource's working memory, or undefined when never written. */
  getWorkingMemory(resourceId: string): Promise<VersionedValue | undefined>
  /**
   * Writes the working memory if its version is still `expectedVersion` (0: never written), else
   * `STRATA_SEQ_CONFLICT` (details: `expectedVersion`, `actualVersion`) and nothing changes.
   */
  setWorkingMemory(
    resourceId: string,
    value: JsonValue,
    options: { expectedVersion: number },
  ): Promise<VersionedValue>
  /**
   * Stores a document; one with the same namespace and key is replaced (its `createdAt` kept). Labels
   * are non-empty strings of any characters (`/`, `.`, unicode); the key is any string.
   */
  putDocument(
    resourceId: string,
    namespace: readonly string[],
    key: string,
    value: JsonObject,
  ): Promise<ResourceDocument>
  getDocument(
    resourceId: string,
    namespace: readonly string[],
    key: string,
  ): Promise<ResourceDocument | undefined>
  /** True when a document was deleted. */
  deleteDocument(resourceId: string, namespace: readonly string[], key: string): Promise<boolean>
  /** Documents whose namespace starts with `namespacePrefix` (all when empty), by namespace then key. */
  listDocuments(
    resourceId: string,
    options?: { namespacePrefix?: readonly string[] },
  ): Promise<ResourceDocument[]>
  /** Removes the resource's index, working memory and documents; its threads stay (unbound). */
  deleteResource(resourceId: string): Promise<void>
  /**
   * Stores vectors beside a thread's data; a record with the same id and model is replaced. Vectors (and
   * a binding) alone do not make a thread listed by `listThreads`.
   */
  putVectors(threadId: string, records: readonly VectorRecord[]): Promise<void>
  /** The thread's vectors (of `model` when given), by id then model, as fresh copies. */
  readVectors(threadId: string, options?: { model?: string }): Promise<VectorRecord[]>
}

/** Options of {@link StrataStore.append}. */
export interface AppendOptions extends LeaseWriteOptions {
  /**
   * The seq of the newest item the writer has seen (0 for a new thread). The store appends only if
   * this is still the thread's last seq; otherwise it throws `STRATA_SEQ_CONFLICT` and writes nothing.
   */
  expectedSeq: number
}

/** An inclusive seq range with an optional limit; omitted bounds are open. */
export interface ReadOptions {
  fromSeq?: number
  toSeq?: number
  /** At most this many items, oldest first. */
  limit?: number
}

/** Options of {@link StrataStore.readActivePages}. */
export interface ActivePagesOptions {
  /**
   * Where the store can tell, it calls this once, before its last page, with about how many items the
   * active log holds: exact, or estimated (the file store counts the first page's items against the
   * log's bytes). An open then seals from the page it is told on when the log is long (at least
   * `SEALING.fromItems`), instead of holding the first items whole until that many arrived: items
   * held whole a while outlive the young generation's collections, which on a long log raised the
   * open's peak memory by tens of megabytes.
   */
  onCount?: (items: number) => void
}

/** Options of {@link StrataStore.archive}. */
export interface ArchiveOptions extends LeaseWriteOptions {
  /** The seqs to move from the active log to the archive. Unknown or already archived seqs are ignored. */
  seqs: readonly number[]
  /** When given, archive only if this is still the thread's last seq, else `STRATA_SEQ_CONFLICT`. */
  expectedSeq?: number
}

/** A thread's counters. */
export interface ThreadHead {
  /** The highest seq ever assigned (0 for an empty thread); archiving does not lower it. */
  lastSeq: number
  /** Items in the active log. */
  activeCount: number
  /** Items in the archive. */
  archivedCount: number
}

/** A large payload stored once beside the history (the content channel). */
export interface ContentRecord {
  /** The memory id, unique within the thread. */
  id: string
  /** What the content is, e.g. `web-page`, `json`, `text`. */
  type: string
  /** The tool (or other source) that produced it. */
  source?: string
  tags: string[]
  /** Epoch ms. */
  ts: number
  /** Size of `data` in UTF-8 bytes. */
  size: number
  /** The level the content was produced at. */
  level?: string
  mediaType?: string
  /** The full content, as text (JSON content is stored serialised). */
  data: string
  meta?: JsonObject
}

/** Filters of {@link StrataStore.queryContent}; every given filter must match. */
export interface ContentQuery {
  type?: string
  source?: string
  /** Every tag listed must be present. */
  tags?: readonly string[]
  /** Inclusive lower bound on `ts`. */
  fromTs?: number
  /** Inclusive upper bound on `ts`. */
  toTs?: number
  /** Case-insensitive substring of `data`. */
  text?: string
  level?: string
  /** At most this many records. */
  limit?: number
}

/**
 * Where a memory keeps its threads: the members every store has, the content methods being optional
 * ({@link StoreContentMethods}). Every store passes the conformance suite from
 * `@strata-memory/core/testing`. Every method validates the thread id (`STRATA_INVALID_THREAD_ID`).
 * Items are returned as fresh copies: mutating them never changes stored data.
 */
export interface StrataStoreBase
  extends Partial<StoreContentMethods>,
    Partial<StoreLeaseMethods>,
    Partial<StoreResourceMethods>,
    Partial<StoreAuditMethods>,
    Partial<StoreSlotMethods> {
  /**
   * The version of this contract the store implements: `'v2'` (or `'v1'`, which core still takes for
   * everything but the lease). `createMemory` refuses a store that declares none or another one
   * (`STRATA_INVALID_OPTIONS`), so a store written for another core fails at once rather than
   * mid-conversation.
   */
  readonly specificationVersion: StoreSpecificationVersion
  /** A short name for messages and status, e.g. `memory`, `file`, `redis`. */
  readonly name: string
  /** What the store promises about its data; see {@link StoreFlags}. */
  readonly flags: StoreFlags
  /**
   * Appends items atomically after checking `expectedSeq`, assigning consecutive seqs from
   * `lastSeq + 1`. Returns the stored items with their seqs. All or nothing.
   */
  append(threadId: string, items: readonly UnsequencedItem[], options: AppendOptions): Promise<Item[]>
  /** Items of the active log in a seq range, oldest first. */
  read(threadId: string, options?: ReadOptions): Promise<Item[]>
  /**
   * Optional: the active log as `read(threadId)` gives it, a page at a time, oldest first, each item
   * once. An open of a long thread then holds one page of parsed items beside what it keeps (see
   * `ThreadLog.seal`); without it the open reads the log whole. A thread deleted or re-created under
   * the iteration ends it with `STRATA_SEQ_CONFLICT` (the pages given are void): the open then reads
   * the log whole. `options.onCount`: see {@link ActivePagesOptions}.
   */
  readActivePages?(threadId: string, options?: ActivePagesOptions): AsyncIterable<readonly Item[]>
  /** The thread's counters; an unknown thread has all zeros. */
  head(threadId: string): Promise<ThreadHead>
  /** Moves items out of the active log into the archive (never deletes). Returns how many moved. */
  archive(threadId: string, options: ArchiveOptions): Promise<number>
  /** Archived items in a seq range, oldest first. */
  readArchive(threadId: string, options?: ReadOptions): Promise<Item[]>
  /** The thread's state object (current mode, cursors, usage), or undefined when never set. */
  getState(threadId: string): Promise<JsonObject | undefined>
  /**
   * Replaces the thread's state object. `options.lease` (contract `v2`): see {@link LeaseWriteOptions}.
   */
  setState(threadId: string, state: JsonObject, options?: LeaseWriteOptions): Promise<void>
  /** Ids of threads with any items, archive, content or state, sorted. */
  listThreads(): Promise<string[]>
  /** Removes everything of a thread (its lease too). Deleting an unknown thread is not an error. */
  deleteThread(threadId: string): Promise<void>
  /** Releases connections or handles. Optional. */
  close?(): Promise<void>
}

/**
 * A store with the content capability: what the built-in stores are, and what the conformance suite
 * tests. Core takes any {@link StrataStoreBase}.
 */
export type StrataStore = StrataStoreBase & StoreContentMethods
