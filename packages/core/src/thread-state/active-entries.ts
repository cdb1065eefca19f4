import type { Item } from '../items'
import { isSealed, type LogEntry } from '../items/sealed-item'
import { indexAfterSeq, indexFromSeq } from '../items/seq-search'
import { startsTurn } from '../items/turns'
import { isContextMemoryItem } from '../views/context-memory-item'
import { deepFreeze, FrozenItems } from './frozen-items'
import { isConversationEntry, type SealOptions, sealableIndexes, sealedOf } from './sealed-items'

/**
 * A log's active entries ({@link FrozenItems}), some of which an open may have sealed: held as stubs
 * (see `SealedItem`), their content left in the store and read back by the paths that need it. Reads
 * of whole items check that none of their range is sealed ({@link assertWhole}).
 */
export class ActiveEntries<L extends string> extends FrozenItems<LogEntry<L>> {
  /** How many entries are sealed, and the highest seq among them (0: none). */
  #sealedCount = 0
  #sealedThrough = 0
  /** Reads sealed items back from the store (set by {@link seal}). */
  #read: SealOptions<L>['read'] | undefined
  /**
   * The items the open sealed, held weakly: a read right after the open (a page load's transcript)
   * takes them from here while the garbage collector has not freed them, instead of the store.
   */
  #sealedItems: WeakRef<Map<number, Item>> | undefined
  /**
   * While an open streams the log (see {@link beginSealing}): the seqs and ranks of the entries no
   * broader one follows yet, oldest first, their ranks never decreasing.
   */
  #streaming:
    | {
        rank: (level: string) => number | undefined
        keep: number
        from: number
        /** Whether `from` items were reached: popped entries are sealed from then on. */
        sealing: boolean
        seqs: number[]
        ranks: number[]
      }
    | undefined

  get sealedCount(): number {
    return this.#sealedCount
  }

  /** Seals what `sealableIndexes` allows (`openScopeFrom`: the outermost open scope's opening seq). */
  seal(options: SealOptions<L>, openScopeFrom: number): number {
    const all = this.all
    const indexes = sealableIndexes(all, options, openScopeFrom)
    if (indexes.length === 0) return 0
    const items = new Map<number, Item>()
    for (const index of indexes) {
      const item = all[index] as Item<L>
      items.set(item.seq, item)
      all[index] = sealedOf(item)
    }
    this.#sealedItems = typeof WeakRef === 'function' ? new WeakRef(items) : undefined
    this.#read = options.read
    this.#sealedCount += indexes.length
    this.#sealedThrough = Math.max(this.#sealedThrough, all[indexes.at(-1)!]!.seq)
    return indexes.length
  }

  /**
   * Seals as items are taken, so that an open streaming a long log (`readActivePages`) never holds
   * its closed scopes' items beyond the page they came in: an item is sealed as soon as a broader one
   * follows it. {@link endSealing} then reads back what an open keeps whole (the tail, the open
   * scopes), which it learns only at the end.
   */
  beginSealing(options: SealOptions<L>) {
    const rank = options.rank as (level: string) => number | undefined
    this.#streaming = {
      rank,
      keep: options.keepConversation,
      from: options.fromItems,
      sealing: false,
      seqs: [],
      ranks: [],
    }
    this.#read = options.read
  }

  /**
   * The store streaming the log says it holds about `count` items (`ActivePagesOptions.onCount`): when
   * that is at least `fromItems`, sealing starts with the next item, as it would once `fromItems` items
   * had arrived (what a broader item covers already is sealed then), rather than after the first
   * `fromItems` items were held whole. A wrong count changes only when sealing starts, never what.
   */
  expectCount(count: number) {
    const streaming = this.#streaming
    if (streaming !== undefined && !streaming.sealing && count >= streaming.from) streaming.from = 0
  }

  override push(item: LogEntry<L>, frozen: boolean) {
    super.push(item, frozen)
    const streaming = this.#streaming
    if (streaming === undefined || isSealed(item) || isContextMemoryItem(item)) return
    const rank = streaming.rank(item.level)
    if (rank === undefined) return
    const { seqs, ranks } = streaming
    // Before `from` items nothing is sealed (see `SEALING`); at `from`, what a broader item already
    // covers is sealed at once.
    const sealing = this.all.length >= streaming.from
    if (sealing && !streaming.sealing) {
      streaming.sealing = true
      this.#sealCovered(streaming.rank, this.all.length - 1)
    }
    while (ranks.length > 0 && ranks.at(-1)! > rank) {
      ranks.pop()
      const seq = seqs.pop()!
      if (sealing) this.#sealSeq(seq)
    }
    seqs.push(item.seq)
    ranks.push(rank)
  }

  /** Ends {@link beginSealing}: what an open keeps whole is read back (`openScopeFrom`: see {@link seal}). */
  async endSealing(openScopeFrom: number): Promise<number> {
    const streaming = this.#streaming
    this.#streaming = undefined
    if (streaming === undefined || this.#sealedCount === 0) return this.#sealedCount
    const all = this.all
    let from = all.length
    for (let found = 0; from > 0 && found < streaming.keep; ) if (isConversationEntry(all[--from]!)) found++
    from = Math.min(from, indexFromSeq(all, openScopeFrom))
    await this.unsealAfter(from === 0 ? 0 : all[from - 1]!.seq)
    return this.#sealedCount
  }

  /**
   * Seals every entry before index `end` that a broader one follows, newest first, as the stack would
   * have (see `sealableIndexes`, without the tail: {@link endSealing} reads it back).
   */
  #sealCovered(rank: (level: string) => number | undefined, end: number) {
    const all = this.all
    let broadest = Number.POSITIVE_INFINITY
    for (let index = end; index >= 0; index--) {
      const entry = all[index]!
      if (!isSealed(entry) && isContextMemoryItem(entry)) continue
      const entryRank = rank(entry.level)
      if (entryRank === undefined) continue
      if (entryRank > broadest) this.#sealAt(index)
      else if (entryRank < broadest) broadest = entryRank
    }
  }

  /**
   * Seals the entry `seq` (still active and whole, and not a turn's request) while streaming. It is
   * among the newest, and seqs are consecutive but where a summary took items out: found by its
   * distance from the last seq, else searched for.
   */
  #sealSeq(seq: number) {
    const all = this.all
    const last = all.length - 1
    let index = last - (all[last]!.seq - seq)
    if (all[index]?.seq !== seq) index = indexFromSeq(all, seq)
    if (all[index]?.seq === seq) this.#sealAt(index)
  }

  /** Seals the entry at `index`, unless it is sealed already or a turn's request. */
  #sealAt(index: number) {
    const all = this.all
    const entry = all[index]!
    if (isSealed(entry) || (entry.type === 'message' && startsTurn(entry))) return
    all[index] = sealedOf(entry)
    this.#sealedCount++
    if (entry.seq > this.#sealedThrough) this.#sealedThrough = entry.seq
  }

  /** Refuses a read of whole items above `afterSeq` while one of them is sealed: a path that forgot to unseal. */
  assertWhole(afterSeq: number) {
    if (this.#sealedCount > 0 && this.#sealedThrough > afterSeq) {
      throw new Error(
        `Strata internal error: the log's items after seq ${afterSeq} were read whole while some are sealed (through seq ${this.#sealedThrough}); the path must unseal them first.`,
      )
    }
  }

  /** The active items above `afterSeq`, sealed ones read back for this call only (see `ThreadLog.full`). */
  async full(afterSeq: number, { frozen = false }: { frozen?: boolean }): Promise<Item<L>[]> {
    const read = await this.#readBack(afterSeq)
    const all = this.all
    const from = indexAfterSeq(all, afterSeq)
    if (frozen) this.freezeFrom(from)
    const out: Item<L>[] = []
    for (let index = from; index < all.length; index++) {
      const entry = all[index]!
      if (!isSealed(entry)) {
        out.push(entry)
        continue
      }
      const item = read.get(entry.seq)!
      if (frozen) deepFreeze(item)
      out.push(item)
    }
    return out
  }

  /** `entries` (some of this log's, in seq order) as items: the sealed ones read back in one range, for this call only. */
  async whole(entries: readonly LogEntry<L>[]): Promise<Item<L>[]> {
    let first: number | undefined
    let last = 0
    for (const entry of entries) {
      if (!isSealed(entry)) continue
      first ??= entry.seq
      last = entry.seq
    }
    if (first === undefined) return entries as Item<L>[]
    const read = await this.#readRange(first, last)
    return entries.map((entry) => (isSealed(entry) ? (read.get(entry.seq) as Item<L>) : entry))
  }

  /** The item of the sealed entry `seq`, read from the store for this call only. */
  async sealedItem(seq: number): Promise<Item<L>> {
    return (await this.#readRange(seq, seq)).get(seq) as Item<L>
  }

  /** Reads the sealed items above `afterSeq` back for good, frozen (as the log hands its items out). */
  async unsealAfter(afterSeq: number): Promise<void> {
    const read = await this.#readBack(afterSeq)
    if (read.size === 0) return
    // Found again by seq: entries may have left while the store was read.
    const all = this.all
    for (let index = indexAfterSeq(all, afterSeq); index < all.length; index++) {
      const entry = all[index]!
      const item = isSealed(entry) ? read.get(entry.seq) : undefined
      if (item === undefined) continue
      deepFreeze(item)
      all[index] = item
      this.#sealedCount--
    }
    this.#sealedThroughAgain()
  }

  /** Unseals from the `count`-th newest entry `counts` holds for (see `ThreadLog.unsealTail`). */
  async unsealTail(count: number, counts: (entry: LogEntry<L>) => boolean): Promise<void> {
    if (this.#sealedCount === 0) return
    const all = this.all
    let from = all.length
    for (let found = 0; from > 0 && found < count; ) if (counts(all[--from]!)) found++
    await this.unsealAfter(from === 0 ? 0 : all[from - 1]!.seq)
  }

  /**
   * {@link removeWhere} of the entries with seqs `fromSeq` to `toSeq` only (found by binary search):
   * a compaction's step takes out a few thousand items of a log that may hold a million.
   */
  removeInSeqs(drop: (item: LogEntry<L>) => boolean, fromSeq: number, toSeq: number): LogEntry<L>[] {
    const all = this.all
    return this.removeWhere(drop, indexFromSeq(all, fromSeq), indexAfterSeq(all, toSeq))
  }

  override removeWhere(
    drop: (item: LogEntry<L>) => boolean,
    start = 0,
    end = this.all.length,
  ): LogEntry<L>[] {
    const removed = super.removeWhere(drop, start, end)
    let gone = 0
    for (const entry of removed) if (isSealed(entry)) gone++
    if (gone > 0) {
      this.#sealedCount -= gone
      this.#sealedThroughAgain()
    }
    return removed
  }

  /**
   * The sealed items above `afterSeq`, by seq, read from the store in one range (empty when none is
   * sealed there): one read, however many scopes lie between them.
   */
  async #readBack(afterSeq: number): Promise<Map<number, Item<L>>> {
    const read = new Map<number, Item<L>>()
    if (this.#sealedCount === 0 || this.#sealedThrough <= afterSeq) return read
    const all = this.all
    let first: number | undefined
    for (let index = indexAfterSeq(all, afterSeq); index < all.length && first === undefined; index++) {
      if (isSealed(all[index]!)) first = all[index]!.seq
    }
    if (first === undefined) return read
    return this.#readRange(first, this.#sealedThrough)
  }

  /**
   * The items of `fromSeq`…`toSeq` by seq, at least the sealed ones: from what the open sealed while
   * the garbage collector keeps it (each item once: a caller may freeze it), else from the store.
   */
  async #readRange(fromSeq: number, toSeq: number): Promise<Map<number, Item<L>>> {
    const kept = this.#sealedItems?.deref()
    if (kept !== undefined) {
      this.#sealedItems = undefined
      return kept as Map<number, Item<L>>
    }
    const read = new Map<number, Item<L>>()
    for (const item of await this.#read!({ fromSeq, toSeq })) read.set(item.seq, item as Item<L>)
    return read
  }

  /** The highest seq of a sealed entry, found again after some left (0 when none is left). */
  #sealedThroughAgain() {
    this.#sealedThrough = 0
    if (this.#sealedCount === 0) return
    const all = this.all
    for (let index = all.length - 1; index >= 0; index--) {
      if (isSealed(all[index]!)) {
        this.#sealedThrough = all[index]!.seq
        return
      }
    }
  }
}
