import type { Item } from '../items'
import type { ContentRecord, StrataStoreBase, ThreadHead } from '../stores'
import { readArchiveRange } from '../stores/archive-pages'
import { hasContentMethods } from '../stores/store-check'
import { referenceOf } from './content-reference'
import { type Counted, countEntry } from './memory-ranking'
import type { MemoryEntry } from './memory-search'
import type { MemoryHitLocation } from './memory-tool-types'
import { isEchoRecord, pendingCall, searchedEntry, searchedRecord, ToolCalls } from './searched-entries'

/** Where a ranked entry came from. */
export interface Origin {
  threadId: string
  seq: number
  kind: 'item' | 'content' | 'fact'
  memoryId?: string
}

/** A searchable entry of a thread, with where it came from and its length in terms. */
export interface IndexedEntry {
  entry: MemoryEntry
  origin: Origin
  /** Terms in its text: BM25's length. */
  length: number
}

/** An entry kept outside the postings (a fact, or an item that can still change), with its counts. */
export interface CountedEntry extends IndexedEntry {
  counted: Counted
}

/**
 * One term's postings in a thread, three numbers a posting in one flat list: the entry's position, the
 * term's count in its text and in its labels. A long thread's index holds more than a million terms,
 * most of them in one entry (ids, numbers): such a term's one posting is packed into one small integer
 * (see {@link packPosting}), which the map holds without an object; a second posting makes the list.
 */
export type Postings = number | number[]

/** Numbers a posting takes in a list of {@link Postings}. */
export const POSTING_SIZE = 3

/** Counts below this, and positions below {@link PACKED_POSITIONS}, pack into one small integer. */
const PACKED_COUNTS = 32
const PACKED_POSITIONS = 2 ** 21

/** One posting as one small integer (a V8 Smi), or undefined when its numbers are too large to pack. */
function packPosting(at: number, body: number, label: number): number | undefined {
  if (at >= PACKED_POSITIONS || body >= PACKED_COUNTS || label >= PACKED_COUNTS) return undefined
  return (at * PACKED_COUNTS + body) * PACKED_COUNTS + label
}

/** A term's postings as their flat list (a packed one unpacked). */
export function postingList(postings: Postings): number[] {
  if (typeof postings !== 'number') return postings
  const label = postings % PACKED_COUNTS
  const rest = (postings - label) / PACKED_COUNTS
  const body = rest % PACKED_COUNTS
  return [(rest - body) / PACKED_COUNTS, body, label]
}

/** Thrown inside a sync when what the store holds is not the thread's old state plus appends and archives. */
class NeedsRebuild extends Error {}

/**
 * What one thread holds that a search reads (a resource's query, the thread's own `memory_query`),
 * kept between queries and brought up to date from the store: when the thread's head says only
 * appends happened, only the new items (and content records written since) are read and indexed;
 * after an archive (a compaction, a rewind), the active log and the archive above the last sync are
 * read and the archived entries move to the archive; anything else (a thread deleted and written
 * again) rebuilds it from the store. Items and records do not change once written, so their entries
 * and term counts are built once.
 *
 * Entries are in three parts: `entries` with their term `postings` (everything that will not change),
 * `facts` (deduplicated across the resource's threads at query time) and `pending` (items holding a
 * tool call whose result has not come, looked at again at each append).
 */
export class ThreadIndex {
  readonly threadId: string
  /** The head the index matches; undefined until built. */
  head: ThreadHead | undefined
  /** The newest item of the active log when synced, checked at the next append sync. */
  #lastActive: { seq: number; id: string } | undefined
  #calls = new ToolCalls()
  entries: IndexedEntry[] = []
  postings = new Map<string, Postings>()
  /** The sum of `entries`' lengths. */
  totalLength = 0
  facts: CountedEntry[] = []
  pending: CountedEntry[] = []
  #pendingItems: { item: Item; where: MemoryHitLocation }[] = []
  /** The seqs of the active items indexed (an archive moves some of them: see {@link #syncArchived}). */
  #activeSeqs = new Set<number>()
  /** Each content record's entry and whether an item cites it (which fixes its seq). */
  #records = new Map<string, { key: string; indexed: IndexedEntry | undefined; cited: boolean }>()
  #recordsFromTs = Number.NEGATIVE_INFINITY
  /** The first item citing each content id. */
  #citing = new Map<string, number>()
  /** Every item's time and seq, in seq order: where a record no item cites is shown. */
  #times: { ts: number; seq: number }[] = []
  /** Content was stored since the last sync without an append: the next sync reads new records. */
  #contentStored = false
  /** The sync in flight: syncs of one thread run one after another. */
  #syncing: Promise<void> = Promise.resolve()

  constructor(threadId: string) {
    this.threadId = threadId
  }

  /** The number of entries held (for the memory's bound on indexed entries). */
  get size(): number {
    return this.entries.length + this.facts.length + this.pending.length
  }

  /**
   * Content was stored in the thread by this process without an append, which the head does not
   * show: the next sync reads the records written since. (Content another process stores without an
   * append is found at the thread's next append.)
   */
  contentStored() {
    this.#contentStored = true
  }

  /** Brings the index up to what the store holds now; one sync at a time. */
  sync(store: StrataStoreBase): Promise<void> {
    const next = this.#syncing.then(() => this.#sync(store))
    this.#syncing = next.catch(() => undefined)
    return next
  }

  async #sync(store: StrataStoreBase): Promise<void> {
    const contentStored = this.#contentStored
    this.#contentStored = false
    const last = this.#lastActive
    // The head, and the newest item synced: a thread deleted and written again to the same counts
    // has the same head, but not the same items.
    const [head, tail] = await Promise.all([
      store.head(this.threadId),
      last === undefined ? [] : store.read(this.threadId, { fromSeq: last.seq, toSeq: last.seq }),
    ])
    const known = this.head
    let sameTail = last === undefined || tail[0]?.id === last.id
    // A compaction may have archived the newest item synced: found in the archive, it is the same thread.
    if (!sameTail && known !== undefined && head.archivedCount > known.archivedCount) {
      const [archived] = await store.readArchive(this.threadId, { fromSeq: last!.seq, toSeq: last!.seq })
      sameTail = archived?.id === last!.id
    }
    if (known !== undefined && sameTail && sameHead(head, known)) {
      if (!contentStored) return
      try {
        const records = await this.#newRecords(store)
        for (const record of records) if (!this.#records.has(record.id)) this.#addRecord(record)
        return
      } catch (error) {
        if (!(error instanceof NeedsRebuild)) {
          this.#clear()
          throw error
        }
      }
    }
    const appendsOnly =
      known !== undefined &&
      sameTail &&
      head.archivedCount === known.archivedCount &&
      head.lastSeq > known.lastSeq &&
      head.lastSeq - known.lastSeq === head.activeCount - known.activeCount
    // A compaction (or a rewind that kept the newest item) archived items, and more may have come.
    const archivedSince =
      known !== undefined &&
      sameTail &&
      head.archivedCount > known.archivedCount &&
      head.lastSeq >= known.lastSeq
    if (appendsOnly || archivedSince) {
      try {
        if (appendsOnly) await this.#syncAppends(store, known, head)
        else await this.#syncArchived(store, known!, head)
        return
      } catch (error) {
        if (!(error instanceof NeedsRebuild)) {
          this.#clear()
          throw error
        }
      }
    }
    this.#clear()
    try {
      await this.#build(store, head)
    } catch (error) {
      this.#clear()
      throw error
    }
  }

  #clear() {
    this.head = undefined
    this.#lastActive = undefined
    this.#calls = new ToolCalls()
    this.entries = []
    this.postings = new Map()
    this.totalLength = 0
    this.facts = []
    this.pending = []
    this.#pendingItems = []
    this.#activeSeqs = new Set()
    this.#records = new Map()
    this.#recordsFromTs = Number.NEGATIVE_INFINITY
    this.#citing = new Map()
    this.#times = []
  }

  async #build(store: StrataStoreBase, head: ThreadHead) {
    const [items, archived, records] = await Promise.all([
      store.read(this.threadId),
      readArchiveRange(store, this.threadId),
      hasContentMethods(store) ? store.queryContent(this.threadId) : Promise.resolve([]),
    ])
    this.#calls.add(archived)
    this.#calls.add(items)
    const all = [...archived, ...items].sort((left, right) => left.seq - right.seq)
    for (const item of all) this.#register(item)
    for (const item of items) this.#addItem(item, 'out-of-view')
    for (const item of archived) this.#addItem(item, 'archive')
    for (const record of records) this.#addRecord(record)
    // What was read may be newer than `head` (a write in between): the next sync then sees a head
    // unlike this one and rebuilds.
    let lastSeq = head.lastSeq
    for (const item of all) lastSeq = Math.max(lastSeq, item.seq)
    this.head = { lastSeq, activeCount: items.length, archivedCount: archived.length }
    const last = items.at(-1)
    this.#lastActive = last === undefined ? undefined : { seq: last.seq, id: last.id }
  }

  async #syncAppends(store: StrataStoreBase, known: ThreadHead, head: ThreadHead) {
    const last = this.#lastActive
    const [read, records] = await Promise.all([
      store.read(this.threadId, { fromSeq: last?.seq ?? known.lastSeq + 1, toSeq: head.lastSeq }),
      this.#newRecords(store),
    ])
    let items = read
    if (last !== undefined) {
      // The newest item synced must still be there: else the thread was written again from scratch.
      if (items[0]?.seq !== last.seq || items[0].id !== last.id) throw new NeedsRebuild()
      items = items.slice(1)
    }
    if (
      items.length !== head.activeCount - known.activeCount ||
      items.some((item) => item.seq <= known.lastSeq)
    )
      throw new NeedsRebuild()
    this.#calls.add(items)
    for (const item of items) this.#register(item)
    // Items waiting for a result are looked at again: the result may have come.
    const waiting = this.#pendingItems
    this.#pendingItems = []
    this.pending = []
    for (const { item, where } of waiting) this.#addItem(item, where)
    for (const item of items) this.#addItem(item, 'out-of-view')
    for (const record of records) if (!this.#records.has(record.id)) this.#addRecord(record)
    this.head = head
    const newest = items.at(-1)
    if (newest !== undefined) this.#lastActive = { seq: newest.seq, id: newest.id }
  }

  /**
   * After the store archived items (a compaction; a rewind that kept the newest item synced): their
   * entries move to the archive, and what came since is indexed. Reads the active log (short after a
   * compaction) and the archive above the last sync, never the history indexed already.
   */
  async #syncArchived(store: StrataStoreBase, known: ThreadHead, head: ThreadHead) {
    const [active, archivedNew, records] = await Promise.all([
      store.read(this.threadId),
      readArchiveRange(store, this.threadId, { fromSeq: known.lastSeq + 1 }),
      this.#newRecords(store),
    ])
    const stillActive = new Set<number>()
    const appended: Item[] = []
    for (const item of active) {
      if (item.seq > known.lastSeq) appended.push(item)
      // An item active now that the index holds as archived (or never saw): not an archive of ours.
      else if (this.#activeSeqs.has(item.seq)) stillActive.add(item.seq)
      else throw new NeedsRebuild()
    }
    const archived = new Set<number>()
    for (const seq of this.#activeSeqs) if (!stillActive.has(seq)) archived.add(seq)
    if (
      active.length !== head.activeCount ||
      archived.size + archivedNew.length !== head.archivedCount - known.archivedCount
    )
      throw new NeedsRebuild()
    const toArchive = <T extends IndexedEntry>(indexed: T) => {
      if (indexed.origin.kind !== 'content' && archived.has(indexed.origin.seq))
        indexed.entry = { ...indexed.entry, where: 'archive' }
    }
    for (const indexed of this.entries) toArchive(indexed)
    for (const fact of this.facts) toArchive(fact)
    for (const seq of archived) this.#activeSeqs.delete(seq)
    const waiting = this.#pendingItems.map(({ item, where }) => ({
      item,
      where: archived.has(item.seq) ? ('archive' as const) : where,
    }))
    this.#pendingItems = []
    this.pending = []
    this.#calls.add(archivedNew)
    this.#calls.add(appended)
    const added = [...archivedNew, ...appended].sort((left, right) => left.seq - right.seq)
    for (const item of added) this.#register(item)
    for (const { item, where } of waiting) this.#addItem(item, where)
    for (const item of archivedNew) this.#addItem(item, 'archive')
    for (const item of appended) this.#addItem(item, 'out-of-view')
    for (const record of records) if (!this.#records.has(record.id)) this.#addRecord(record)
    this.head = head
    const newest = active.at(-1)
    this.#lastActive = newest === undefined ? undefined : { seq: newest.seq, id: newest.id }
  }

  /** The content records written since the newest one indexed; a record replaced under its id rebuilds. */
  async #newRecords(store: StrataStoreBase): Promise<ContentRecord[]> {
    if (!hasContentMethods(store)) return []
    const from = this.#recordsFromTs
    const records = await store.queryContent(this.threadId, Number.isFinite(from) ? { fromTs: from } : {})
    for (const record of records) {
      const held = this.#records.get(record.id)
      if (held !== undefined && held.key !== recordKey(record)) throw new NeedsRebuild()
    }
    return records
  }

  /** Notes an item's time and the content it cites (a record first cited now takes its seq). */
  #register(item: Item) {
    this.#times.push({ ts: item.ts, seq: item.seq })
    if (item.type !== 'message') return
    for (const part of item.content) {
      const reference = referenceOf(part)
      if (reference === undefined || this.#citing.has(reference.id)) continue
      this.#citing.set(reference.id, item.seq)
      const record = this.#records.get(reference.id)
      if (record !== undefined && !record.cited) {
        record.cited = true
        if (record.indexed !== undefined) record.indexed.origin.seq = item.seq
      }
    }
  }

  #addItem(item: Item, where: MemoryHitLocation) {
    if (where !== 'archive') this.#activeSeqs.add(item.seq)
    const pending = pendingCall(item, this.#calls)
    const entry = searchedEntry(item, where, this.#calls)
    if (pending) this.#pendingItems.push({ item, where })
    if (entry === undefined) return
    const origin: Origin = {
      threadId: this.threadId,
      seq: item.seq,
      kind: item.type === 'fact' ? 'fact' : 'item',
    }
    if (pending || item.type === 'fact') {
      const counted = countEntry(entry)
      ;(pending ? this.pending : this.facts).push({ entry, origin, length: counted.bodyLength, counted })
    } else this.#index(entry, origin)
  }

  #addRecord(record: ContentRecord) {
    this.#recordsFromTs = Math.max(this.#recordsFromTs, record.ts)
    const cited = this.#citing.get(record.id)
    const held = {
      key: recordKey(record),
      indexed: undefined as IndexedEntry | undefined,
      cited: cited !== undefined,
    }
    this.#records.set(record.id, held)
    if (isEchoRecord(record.source)) return
    const origin: Origin = {
      threadId: this.threadId,
      seq: cited ?? this.#newestBefore(record.ts),
      kind: 'content',
      memoryId: record.id,
    }
    held.indexed = this.#index(searchedRecord(record, this.#calls), origin)
  }

  /** The seq a record no item cites is shown at: the newest item written before it (0 for none). */
  #newestBefore(ts: number): number {
    let seq = 0
    for (const time of this.#times) if (time.ts <= ts) seq = time.seq
    return seq
  }

  #index(entry: MemoryEntry, origin: Origin): IndexedEntry {
    const counted = countEntry(entry)
    const indexed: IndexedEntry = { entry, origin, length: counted.bodyLength }
    const at = this.entries.length
    this.entries.push(indexed)
    this.totalLength += counted.bodyLength
    const post = (term: string, body: number, label: number) => {
      const postings = this.postings.get(term)
      if (postings === undefined) this.postings.set(term, packPosting(at, body, label) ?? [at, body, label])
      else if (typeof postings === 'number')
        this.postings.set(term, [...postingList(postings), at, body, label])
      else postings.push(at, body, label)
    }
    for (const [term, body] of counted.body) post(term, body, counted.label.get(term) ?? 0)
    for (const [term, label] of counted.label) if (!counted.body.has(term)) post(term, 0, label)
    return indexed
  }
}

const sameHead = (left: ThreadHead, right: ThreadHead) =>
  left.lastSeq === right.lastSeq &&
  left.activeCount === right.activeCount &&
  left.archivedCount === right.archivedCount

/** A record replaced under its id (an import) has another size or time. */
const recordKey = (record: ContentRecord) => `${record.ts}:${record.size}`
