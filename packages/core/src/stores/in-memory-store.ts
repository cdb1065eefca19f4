import {
  assertSerializable,
  assertThreadId,
  type Item,
  type JsonObject,
  type UnsequencedItem,
} from '../items'
import { indexAfterSeq, indexFromSeq } from '../items/seq-search'
import { inMemoryResources } from './in-memory-resources'
import { checkLeaseOptions, checkLeaseOwner, leaseOfWrite, threadBusyError } from './lease-arguments'
import { checkSlotName, checkSlotValue } from './slot-arguments'
import type {
  ActivePagesOptions,
  AppendOptions,
  ArchiveOptions,
  ContentQuery,
  ContentRecord,
  LeaseGrant,
  LeaseOptions,
  LeaseWriteOptions,
  ReadOptions,
  StoreLeaseMethods,
  StoreResourceMethods,
  StoreSlotMethods,
  StrataStore,
  ThreadHead,
} from './store'
import {
  checkAppendArguments,
  checkArchiveOptions,
  checkContentQuery,
  checkContentRecord,
  checkReadOptions,
  checkSeq,
  checkState,
  compareContentNewestFirst,
  matchesContentQuery,
} from './store-arguments'
import type { AuditOptions, AuditReport } from './store-audit'
import { checkAuditOptions, ThreadAuditor } from './thread-auditor'

/** Options of {@link inMemoryStore}. */
export interface InMemoryStoreOptions {
  /**
   * The clock leases lapse by and resource writes are stamped with, in epoch ms (a test can move it
   * instead of waiting).
   * @default Date.now
   */
  clock?: () => number
}

/** A thread's lease: its owner token and when it lapses. */
interface Lease {
  owner: string
  expiresAt: number
}

/**
 * A stored item: its seq and its JSON text. Every read parses the text, so a caller always gets a
 * fresh copy, and an append parses it once, for the copy it returns; no parsed copy is kept.
 */
interface StoredItem {
  seq: number
  text: string
}

interface ThreadData {
  /** The active log, sorted by seq (seqs only grow; archiving leaves holes). */
  active: StoredItem[]
  /** Archived items, sorted by seq. */
  archived: StoredItem[]
  /** The highest seq ever assigned; archiving never lowers it. */
  lastSeq: number
  content: Map<string, ContentRecord>
  /** The thread's state as JSON text: each read parses a fresh copy. */
  state: string | undefined
}

/**
 * A store that keeps every thread in process memory: fast, isolated per instance, gone on restart.
 * It is the default store of `createMemory` and the reference for the conformance suite. Data is copied
 * in and out through JSON, exactly as a persistent store would see it, so values that cannot be stored
 * as JSON are rejected (`STRATA_NOT_SERIALIZABLE`) here too.
 *
 * @example
 * const store = inMemoryStore()
 * const [item] = await store.append('user-42.chat-7', [message], { expectedSeq: 0 })
 * item.seq // 1
 */
export function inMemoryStore({
  clock = Date.now,
}: InMemoryStoreOptions = {}): StrataStore & StoreLeaseMethods & StoreResourceMethods & StoreSlotMethods {
  const threads = new Map<string, ThreadData>()
  /** Resources, bindings and vectors: none of them makes a thread listed. */
  const { forgetThread, ...resourceMethods } = inMemoryResources(clock)
  /** Leases live beside the threads: a thread with only a lease holds no data and is not listed. */
  const leases = new Map<string, Lease>()
  /** Slots (thread id → name → value) live beside the threads too: they do not make a thread listed. */
  const slots = new Map<string, Map<string, JsonObject>>()

  /** The thread's lease that has not lapsed (a lapsed one is dropped). */
  const liveLease = (threadId: string): Lease | undefined => {
    const lease = leases.get(threadId)
    if (lease !== undefined && lease.expiresAt <= clock()) {
      leases.delete(threadId)
      return undefined
    }
    return lease
  }

  /** Refuses a write of `threadId` unless it has no live lease or `options.lease` is its owner. */
  const fence = (threadId: string, options: LeaseWriteOptions | undefined, method: string): void => {
    const lease = leaseOfWrite(options, method)
    const held = liveLease(threadId)
    if (held !== undefined && held.owner !== lease) throw threadBusyError(threadId, held.expiresAt)
  }

  const existing = (threadId: string): ThreadData | undefined => {
    assertThreadId(threadId)
    return threads.get(threadId)
  }

  const opened = (threadId: string): ThreadData => {
    assertThreadId(threadId)
    let thread = threads.get(threadId)
    if (thread === undefined) {
      thread = { active: [], archived: [], lastSeq: 0, content: new Map(), state: undefined }
      threads.set(threadId, thread)
    }
    return thread
  }

  return {
    specificationVersion: 'v2',
    name: 'memory',
    flags: { persistent: false, shared: false, leases: true, resources: true, audit: true, slots: true },
    ...resourceMethods,

    async append(
      threadId: string,
      items: readonly UnsequencedItem[],
      options: AppendOptions,
    ): Promise<Item[]> {
      assertThreadId(threadId)
      const expectedSeq = checkAppendArguments(items, options)
      fence(threadId, options, 'append')
      const lastSeq = threads.get(threadId)?.lastSeq ?? 0
      checkSeq(threadId, expectedSeq, lastSeq)
      if (items.length === 0) return []
      // Everything is validated and copied before the thread changes, so a failure writes nothing.
      const stored = items.map((item, index): StoredItem => {
        const seq = lastSeq + index + 1
        return { seq, text: JSON.stringify({ ...item, seq }) }
      })
      const thread = opened(threadId)
      // A loop rather than push(...stored): spreading 100k+ arguments overflows the call stack.
      for (const item of stored) thread.active.push(item)
      thread.lastSeq = lastSeq + stored.length
      return stored.map(copyItem)
    },

    async read(threadId: string, options: ReadOptions = {}): Promise<Item[]> {
      const thread = existing(threadId)
      checkReadOptions(options, 'read')
      return thread === undefined ? [] : readRange(thread.active, options)
    },

    async *readActivePages(
      threadId: string,
      options: ActivePagesOptions = {},
    ): AsyncIterable<readonly Item[]> {
      const thread = existing(threadId)
      if (thread === undefined) return
      // The log as it is now: an archive or an append meanwhile changes a later read, not this one.
      const active = thread.active.slice()
      options.onCount?.(active.length)
      for (let start = 0; start < active.length; start += ACTIVE_PAGE_ITEMS)
        yield active.slice(start, start + ACTIVE_PAGE_ITEMS).map(copyItem)
    },

    async head(threadId: string): Promise<ThreadHead> {
      const thread = existing(threadId)
      return {
        lastSeq: thread?.lastSeq ?? 0,
        activeCount: thread?.active.length ?? 0,
        archivedCount: thread?.archived.length ?? 0,
      }
    },

    async archive(threadId: string, options: ArchiveOptions): Promise<number> {
      const thread = existing(threadId)
      const { seqs, expectedSeq } = checkArchiveOptions(options)
      fence(threadId, options, 'archive')
      if (expectedSeq !== undefined) checkSeq(threadId, expectedSeq, thread?.lastSeq ?? 0)
      if (thread === undefined) return 0

      const moving = new Set<number>()
      for (const seq of seqs) {
        const index = indexFromSeq(thread.active, seq)
        if (thread.active[index]?.seq === seq) moving.add(seq)
      }
      if (moving.size === 0) return 0
      const kept: StoredItem[] = []
      const moved: StoredItem[] = []
      for (const item of thread.active) (moving.has(item.seq) ? moved : kept).push(item)
      thread.active = kept
      mergeBySeq(thread.archived, moved)
      return moved.length
    },

    async readArchive(threadId: string, options: ReadOptions = {}): Promise<Item[]> {
      const thread = existing(threadId)
      checkReadOptions(options, 'readArchive')
      return thread === undefined ? [] : readRange(thread.archived, options)
    },

    async putContent(threadId: string, record: ContentRecord): Promise<void> {
      assertThreadId(threadId)
      checkContentRecord(record)
      assertSerializable(record, 'record')
      const stored = copy(record)
      opened(threadId).content.set(stored.id, stored)
    },

    async getContent(threadId: string, id: string): Promise<ContentRecord | undefined> {
      const record = existing(threadId)?.content.get(id)
      return record === undefined ? undefined : copy(record)
    },

    async queryContent(threadId: string, query: ContentQuery = {}): Promise<ContentRecord[]> {
      const thread = existing(threadId)
      checkContentQuery(query)
      if (thread === undefined) return []
      const matches = [...thread.content.values()].filter((record) => matchesContentQuery(record, query))
      matches.sort(compareContentNewestFirst)
      return matches.slice(0, query.limit ?? matches.length).map(copy)
    },

    async getState(threadId: string): Promise<JsonObject | undefined> {
      const state = existing(threadId)?.state
      return state === undefined ? undefined : (JSON.parse(state) as JsonObject)
    },

    async setState(threadId: string, state: JsonObject, options?: LeaseWriteOptions): Promise<void> {
      assertThreadId(threadId)
      checkState(state)
      fence(threadId, options, 'setState')
      opened(threadId).state = JSON.stringify(state)
    },

    async getSlot(threadId: string, name: string): Promise<JsonObject | undefined> {
      assertThreadId(threadId)
      checkSlotName(name, 'getSlot')
      const value = slots.get(threadId)?.get(name)
      return value === undefined ? undefined : copy(value)
    },

    async setSlot(
      threadId: string,
      name: string,
      value: JsonObject | undefined,
      options?: LeaseWriteOptions,
    ): Promise<void> {
      assertThreadId(threadId)
      checkSlotName(name, 'setSlot')
      checkSlotValue(value)
      fence(threadId, options, 'setSlot')
      const thread = slots.get(threadId)
      if (value !== undefined) {
        if (thread === undefined) slots.set(threadId, new Map([[name, copy(value)]]))
        else thread.set(name, copy(value))
      } else if (thread?.delete(name) && thread.size === 0) slots.delete(threadId)
    },

    async listThreads(): Promise<string[]> {
      const ids: string[] = []
      for (const [threadId, thread] of threads) {
        const empty =
          thread.active.length === 0 &&
          thread.archived.length === 0 &&
          thread.content.size === 0 &&
          thread.state === undefined
        if (!empty) ids.push(threadId)
      }
      return ids.sort()
    },

    async deleteThread(threadId: string): Promise<void> {
      assertThreadId(threadId)
      threads.delete(threadId)
      leases.delete(threadId)
      slots.delete(threadId)
      forgetThread(threadId)
    },

    async audit(threadId: string, options?: AuditOptions): Promise<AuditReport> {
      assertThreadId(threadId)
      const { onItem, onItemJson, checks } = checkAuditOptions(options)
      // Nothing here can tear or be left half done: what an audit finds is in the items themselves.
      const auditor = new ThreadAuditor(threadId, [], { checks })
      const thread = threads.get(threadId)
      if (thread === undefined) return auditor.result()
      for (const [source, items] of [
        ['archive', thread.archived],
        ['active', thread.active],
      ] as const) {
        for (const stored of items) {
          auditor.add(source, copyItem(stored))
          onItemJson?.(stored.seq, source, stored.text)
          if (onItem === undefined) continue
          const copy = copyItem(stored)
          onItem(copy, source, () => JSON.stringify(copy))
        }
      }
      auditor.finish()
      // A sub-agent sharing its parent's content cites records kept in the parent's thread.
      await auditor.checkContent(async (ids) =>
        ids.map((id) => [...threads.values()].some((other) => other.content.has(id))),
      )
      return auditor.result()
    },

    async acquireLease(threadId: string, options: LeaseOptions): Promise<LeaseGrant> {
      assertThreadId(threadId)
      const { owner, ttlMs } = checkLeaseOptions(options, 'acquireLease')
      const held = liveLease(threadId)
      if (held !== undefined && held.owner !== owner) throw threadBusyError(threadId, held.expiresAt)
      const expiresAt = clock() + ttlMs
      leases.set(threadId, { owner, expiresAt })
      return { expiresAt }
    },

    async renewLease(threadId: string, options: LeaseOptions): Promise<LeaseGrant | undefined> {
      assertThreadId(threadId)
      const { owner, ttlMs } = checkLeaseOptions(options, 'renewLease')
      const held = liveLease(threadId)
      if (held?.owner !== owner) return undefined
      held.expiresAt = clock() + ttlMs
      return { expiresAt: held.expiresAt }
    },

    async releaseLease(threadId: string, options: { owner: string }): Promise<boolean> {
      assertThreadId(threadId)
      const owner = checkLeaseOwner(options, 'releaseLease')
      if (liveLease(threadId)?.owner !== owner) return false
      leases.delete(threadId)
      return true
    },

    async readLease(threadId: string): Promise<LeaseGrant | undefined> {
      assertThreadId(threadId)
      const held = liveLease(threadId)
      return held === undefined ? undefined : { expiresAt: held.expiresAt }
    },
  }
}

/** A deep copy through JSON: what callers get back is exactly what a persistent store would return. */
function copy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T
}

/** Items a page of `readActivePages` holds. */
const ACTIVE_PAGE_ITEMS = 1_000

function readRange(items: readonly StoredItem[], { fromSeq, toSeq, limit }: ReadOptions): Item[] {
  const start = fromSeq === undefined ? 0 : indexFromSeq(items, fromSeq)
  const end = toSeq === undefined ? items.length : indexAfterSeq(items, toSeq)
  if (end <= start) return []
  return items.slice(start, limit === undefined ? end : Math.min(end, start + limit)).map(copyItem)
}

/** A fresh copy of a stored item. */
const copyItem = (stored: StoredItem): Item => JSON.parse(stored.text) as Item

/**
 * Merges seq-sorted `moved` into seq-sorted `archived`, in place. Archiving usually moves the oldest
 * active items, which all follow the archive's last seq, so that case is a plain push.
 */
function mergeBySeq(archived: StoredItem[], moved: readonly StoredItem[]): void {
  const lastArchived = archived.at(-1)
  if (lastArchived === undefined || moved[0]!.seq > lastArchived.seq) {
    for (const item of moved) archived.push(item)
    return
  }
  const older = archived.splice(0)
  let olderIndex = 0
  let movedIndex = 0
  while (olderIndex < older.length && movedIndex < moved.length) {
    const next = older[olderIndex]!.seq < moved[movedIndex]!.seq ? older[olderIndex++]! : moved[movedIndex++]!
    archived.push(next)
  }
  while (olderIndex < older.length) archived.push(older[olderIndex++]!)
  while (movedIndex < moved.length) archived.push(moved[movedIndex++]!)
}
