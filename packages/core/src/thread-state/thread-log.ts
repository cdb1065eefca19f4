import { referenceOf } from '../content/content-reference'
import type { Item, MessageItem, MessagePart, SummaryItem, UnsequencedItem } from '../items'
import { isSealed, type LogEntry } from '../items/sealed-item'
import { indexAfterSeq } from '../items/seq-search'
import { startsTurn, turnNumber } from '../items/turns'
import type { TokenCounter } from '../tokens'
import { counterIdentity, countPartTokens, MESSAGE_OVERHEAD_TOKENS, sameCounts } from '../tokens'
import { isContextMemoryItem } from '../views'
import { ActiveEntries } from './active-entries'
import { deepFreeze } from './frozen-items'
import { type ArchiveRangeReader, type IndexStart, ItemIndex } from './item-index'
import type { LogDigest, OpenScope } from './log-digest'
import type { SealOptions } from './sealed-items'

export type { OpenScope } from './log-digest'

export const turnIdOf = (turn: number) => `turn_${String(turn).padStart(4, '0')}`

// Re-exported for the thread, which imports it from here.
export { startsTurn } from '../items/turns'

/**
 * What a thread derives from its log: the active items, the open scopes, the turn counter, where each
 * tool call stands, and running totals. Everything here is rebuilt from the store on open, so two
 * processes on one thread agree once each has read the other's writes.
 */
export class ThreadLog<L extends string> {
  /** The active items, oldest first, frozen as they are handed out; sealed ones as their stubs. */
  readonly #active = new ActiveEntries<L>()
  readonly memoryItems: Item<L>[] = []
  readonly scopes: OpenScope<L>[] = []
  /** The ids and tool calls of every item the thread ever held, for the checks of an append. */
  readonly index: ItemIndex<L>
  lastSeq = 0
  /** The highest turn number any item ever had, archived ones included: new turns count on from it. */
  turn = 0
  /** The turn of the newest active user message, while there is one. */
  #lastUserTurn: number | undefined
  /** The newest active user message: the turn's request, which every context shows. */
  #request: MessageItem<L> | undefined
  archivedCount = 0
  /**
   * Seqs a summary in the active log covers (`covers`) that the store has not archived yet: the
   * compaction that wrote it was cut short. They are out of the active items already; the next write
   * archives them in the store.
   */
  readonly #unfinished = new Set<number>()
  /** Tokens of every message item, active and archived, as raw messages. */
  rawTokens = 0
  /**
   * True when the store holds archived items the stored digest does not describe (this log read them
   * on open, or archived them since): the write path then stores a new digest ({@link digest}).
   */
  digestDue = false
  /** Told when items of this log were archived: the thread stores a new digest soon after. */
  onArchived: (() => void) | undefined
  /**
   * Set while a long compaction's steps run: covered items wait in {@link unfinishedArchive} until they
   * are at least as many as the active items, then go to the store in one archive. A store that
   * rewrites its active log on each archive (the file store) then rewrites it a few times over the
   * whole compaction rather than once a step, which made a first compaction quadratic in the thread's
   * length. The items are out of every view meanwhile; only the store holds them a while longer.
   */
  archiveLag = false

  /**
   * @param read reads archived items of a seq range, for the append checks the digest cannot settle.
   * @param start what a stored digest says of the items up to its seq.
   */
  /** The counter's {@link counterIdentity}, which stored counts and the digest record. */
  readonly #identity: string

  constructor(
    private readonly counter: TokenCounter,
    read?: ArchiveRangeReader,
    start?: { digest: LogDigest<L> } & IndexStart,
  ) {
    this.#identity = counterIdentity(counter)
    this.index = new ItemIndex<L>(() => this.#active.all, read, start)
    if (start !== undefined) {
      const { digest } = start
      this.turn = digest.turn
      this.rawTokens = digest.rawTokens
      this.lastSeq = digest.throughSeq
      for (const scope of digest.scopes) this.scopes.push({ ...scope })
    }
  }

  /**
   * What a later open needs of every item up to the last seq, active or archived, so it reads none of
   * the archive (see `LogDigest`). The index goes on with its filter once the digest is stored (`adopt`).
   */
  digest(): LogDigest<L> {
    return {
      version: 1,
      throughSeq: this.lastSeq,
      counter: this.#identity,
      turn: this.turn,
      rawTokens: this.rawTokens,
      scopes: this.scopes.map((scope) => ({ ...scope })),
      filter: this.index.filterThrough(this.lastSeq),
    }
  }

  /**
   * The active items, oldest first, each deep-frozen: views hand these objects out without copying,
   * and frozen, a caller's mutation cannot corrupt the log. An open does not freeze (a long thread's
   * context need not pay for it); reads through here and the other frozen reads do, each item once.
   */
  get items(): readonly Item<L>[] {
    this.#whole(0)
    this.#active.freezeFrom(0)
    return this.#active.all as readonly Item<L>[]
  }

  /**
   * The active items as they are, maybe not yet frozen: only for reads that hand none of them out
   * (the context renders copies) and do not change them.
   */
  get unfrozenItems(): readonly Item<L>[] {
    this.#whole(0)
    return this.#active.all as readonly Item<L>[]
  }

  /**
   * The active entries as they are, sealed ones as their stubs: for the walks that never reach a
   * sealed one (the level views: a broader item follows it) or read only what a stub keeps.
   */
  get entries(): readonly LogEntry<L>[] {
    return this.#active.all
  }

  /** How many active items are sealed (see `SealedItem`). */
  get sealedCount(): number {
    return this.#active.sealedCount
  }

  /** Refuses a read of whole items above `afterSeq` while one of them is sealed: a path that forgot to unseal. */
  #whole(afterSeq: number) {
    this.#active.assertWhole(afterSeq)
  }

  /**
   * The active items with the newest frozen, back to the `count`-th one `counts` holds for (or all):
   * for a reader of the tail only, which may keep what it reads of it.
   */
  tailFrozen(count: number, counts: (item: Item<L>) => boolean): readonly Item<L>[] {
    const items = this.#active.all as readonly Item<L>[]
    let from = items.length
    for (let found = 0; from > 0 && found < count; ) if (counts(items[--from]!)) found++
    this.#whole(from === 0 ? 0 : items[from - 1]!.seq)
    this.#active.freezeFrom(from)
    return items
  }

  /** Freezes the items of a view of this log (its own items, oldest first) before it is handed out. */
  handOut(view: Item<L>[]): Item<L>[] {
    if (view.length > 0) this.#active.freezeView(view, indexAfterSeq(this.#active.all, view[0]!.seq - 1))
    return view
  }

  /** Items in the store's active log: the active items and those a summary covers, not archived yet. */
  get activeCount(): number {
    return this.#active.all.length + this.#unfinished.size
  }

  /** How many seqs {@link unfinishedArchive} holds, without listing them. */
  get unfinishedCount(): number {
    return this.#unfinished.size
  }

  /** The seqs a compaction cut short left to archive (see {@link SummaryItem.covers}), oldest first. */
  get unfinishedArchive(): number[] {
    // Asked before every write: nothing is built in the usual case.
    if (this.#unfinished.size === 0) return []
    return [...this.#unfinished].sort((a, b) => a - b)
  }

  /**
   * The turn new items that do not start one belong to: the newest active user message's. It is the
   * highest turn but after a rewind archived later turns; those turns' numbers are never used again.
   */
  get currentTurn(): number {
    return this.#lastUserTurn ?? this.turn
  }

  /**
   * The turn's request: the newest active message that starts a turn (a user's own message, not a
   * scope's opening), kept as items are taken, so a context finds it without walking the turn.
   */
  get request(): MessageItem<L> | undefined {
    return this.#request
  }

  get itemsTotal() {
    return this.#active.all.length + this.archivedCount
  }

  /** Active items with a seq above `seq`, oldest first, frozen; a binary search, so closing a scope stays cheap. */
  itemsAfter(seq: number): Item<L>[] {
    this.#whole(seq)
    const from = indexAfterSeq(this.#active.all, seq)
    this.#active.freezeFrom(from)
    return this.#active.all.slice(from) as Item<L>[]
  }

  /** {@link itemsAfter} without freezing: the same terms as {@link unfrozenItems}. */
  unfrozenItemsAfter(seq: number): Item<L>[] {
    this.#whole(seq)
    return this.#active.all.slice(indexAfterSeq(this.#active.all, seq)) as Item<L>[]
  }

  /** The newest summary of a tier among the context-memory items. */
  latestSummary(tier: 'short-term' | 'long-term' | 'episodic'): SummaryItem<L> | undefined {
    for (let index = this.memoryItems.length - 1; index >= 0; index--) {
      const item = this.memoryItems[index]!
      if (item.type === 'summary' && item.tier === tier) return item
    }
    return undefined
  }

  /** How many short-term summaries the waterfall wrote, and the last seq they cover. */
  get waterfallCursor(): { compactions: number; summarizedThroughSeq: number } {
    let compactions = 0
    let summarizedThroughSeq = 0
    for (const item of this.memoryItems) {
      if (item.type === 'summary' && item.tier === 'short-term') {
        compactions++
        summarizedThroughSeq = Math.max(summarizedThroughSeq, item.range.toSeq)
      }
    }
    return { compactions, summarizedThroughSeq }
  }

  /** Drops items the store has archived from the active items; they still count in the totals. */
  removeArchived(seqs: ReadonlySet<number>) {
    for (const seq of seqs) if (this.#unfinished.delete(seq)) this.archivedCount++
    let low = Number.POSITIVE_INFINITY
    let high = 0
    for (const seq of seqs) {
      if (seq < low) low = seq
      if (seq > high) high = seq
    }
    const removed = this.#active.removeInSeqs((item) => seqs.has(item.seq), low, high)
    this.archivedCount += removed.length
    this.index.archived(removed)
    this.#dropMemory(removed)
    this.#findRequest()
    if (this.archivedCount > 0) {
      this.digestDue = true
      this.onArchived?.()
    }
  }

  /** Memory items that left the active log (a roll-up archived them) leave the memory slots too. */
  #dropMemory(removed: readonly LogEntry<L>[]) {
    if (!removed.some((entry) => !isSealed(entry) && isContextMemoryItem(entry))) return
    const gone = new Set(removed)
    let kept = 0
    for (const item of this.memoryItems) if (!gone.has(item)) this.memoryItems[kept++] = item
    this.memoryItems.length = kept
  }

  /**
   * Takes out of the active items what a summary covers and the store still holds as active: the
   * summary stands for them from the moment it is stored.
   */
  #hideCovered(summary: SummaryItem<L>) {
    const covered = new Set<number>()
    let low = Number.POSITIVE_INFINITY
    let high = 0
    for (const { fromSeq, toSeq } of summary.covers ?? []) {
      for (let seq = fromSeq; seq <= toSeq; seq++) covered.add(seq)
      low = Math.min(low, fromSeq)
      high = Math.max(high, toSeq)
    }
    const removed = this.#active.removeInSeqs((item) => covered.has(item.seq), low, high)
    if (removed.length === 0) return
    for (const item of removed) this.#unfinished.add(item.seq)
    this.index.archived(removed)
    this.#dropMemory(removed)
    this.#findRequest()
  }

  /** The turn's request and its turn, looked for again after items left the active log. */
  #findRequest() {
    this.#lastUserTurn = undefined
    this.#request = undefined
    const items = this.#active.all
    for (let index = items.length - 1; index >= 0; index--) {
      const item = items[index]!
      if (item.type === 'message' && startsTurn(item)) {
        this.#lastUserTurn = turnNumber(item.turnId)
        this.#request = item
        break
      }
    }
  }

  /**
   * Seals what no view can show again (see `sealableIndexes`): an open of a long thread that closed
   * many scopes then holds their items as stubs, and reads them back only on a path that needs them.
   * Returns how many were sealed.
   */
  seal(options: SealOptions<L>): number {
    return this.#active.seal(options, this.scopes[0]?.seq ?? Number.POSITIVE_INFINITY)
  }

  /** Seals as items are taken (an open streaming the log: see `ActiveEntries.beginSealing`). */
  beginSealing(options: SealOptions<L>) {
    this.#active.beginSealing(options)
  }

  /** The store streaming the log says it holds about `count` items (see `ActiveEntries.expectCount`). */
  expectCount(count: number) {
    this.#active.expectCount(count)
  }

  /** Ends {@link beginSealing}, reading back what an open keeps whole; returns how many stay sealed. */
  endSealing(): Promise<number> {
    return this.#active.endSealing(this.scopes[0]?.seq ?? Number.POSITIVE_INFINITY)
  }

  /**
   * The active items above `afterSeq`, oldest first, sealed ones read back from the store for this
   * call only (the log keeps their stubs): for reads of a whole range that hand the items out or
   * read their content. Frozen with `frozen` (the log's own items too), as {@link items} hands them out.
   */
  full(afterSeq = 0, options: { frozen?: boolean } = {}): Promise<Item<L>[]> {
    return this.#active.full(afterSeq, options)
  }

  /** The active entries above `seq`, sealed ones as their stubs (see {@link entries}). */
  entriesAfter(seq: number): LogEntry<L>[] {
    return this.#active.all.slice(indexAfterSeq(this.#active.all, seq))
  }

  /** `entries` (some of this log's, in seq order) as items: the sealed ones read back in one range, for this call only. */
  whole(entries: readonly LogEntry<L>[]): Promise<Item<L>[]> {
    return this.#active.whole(entries)
  }

  /** The item of the sealed entry `seq`, read from the store for this call only. */
  sealedItem(seq: number): Promise<Item<L>> {
    return this.#active.sealedItem(seq)
  }

  /** Reads the sealed items above `afterSeq` back into the log for good. */
  unsealAfter(afterSeq: number): Promise<void> {
    return this.#active.unsealAfter(afterSeq)
  }

  /**
   * Unseals the items from the `count`-th newest entry `counts` holds for (a stub is counted by what
   * it keeps), so that {@link tailFrozen} of that many reads whole items.
   */
  unsealTail(count: number, counts: (entry: LogEntry<L>) => boolean): Promise<void> {
    return this.#active.unsealTail(count, counts)
  }

  #lastTurnId: string | undefined
  #lastTurnNumber = 0

  /** The number of a turn id; consecutive items mostly share one, so the last is remembered. */
  #turnOf(turnId: string): number {
    if (turnId !== this.#lastTurnId) {
      this.#lastTurnId = turnId
      this.#lastTurnNumber = turnNumber(turnId)
    }
    return this.#lastTurnNumber
  }

  /** Takes in one stored active item, in seq order, frozen: the caller may hand it out. */
  absorb(item: Item<L>) {
    deepFreeze(item)
    this.#take(item, false, true)
  }

  /**
   * Takes in one stored item, in seq order, without freezing it (see {@link items}). Archived items
   * count but are not kept in memory. An item a digest describes already (`counted` false: an active
   * item up to its seq) joins the active items but not the totals, turns and scopes.
   */
  take(item: Item<L>, archived: boolean, counted = true) {
    this.#take(item, archived, false, counted)
  }

  #take(item: Item<L>, archived: boolean, frozen: boolean, counted = true) {
    if (item.seq > this.lastSeq) this.lastSeq = item.seq
    this.index.added(item, archived)
    if (archived) this.archivedCount++
    else {
      // Few, and read by the context as they are: frozen now.
      const memory = isContextMemoryItem(item)
      if (memory) {
        deepFreeze(item)
        this.memoryItems.push(item)
      }
      this.#active.push(item, frozen || memory)
    }
    const turn = this.#turnOf(item.turnId)
    if (counted && turn > this.turn) this.turn = turn
    if (item.type === 'message') this.#takeMessage(item, turn, archived, counted)
    else if (item.type === 'summary') {
      if (!archived && item.covers !== undefined) this.#hideCovered(item)
    } else if (item.type === 'transition' && counted) {
      const open = this.#openScopeIndex(item.fromLevel)
      if (open >= 0) this.scopes.splice(open)
    }
  }

  #takeMessage(item: MessageItem<L>, turn: number, archived: boolean, counted: boolean) {
    if (!archived && startsTurn(item)) {
      this.#lastUserTurn = turn
      this.#request = item
    }
    if (!counted) return
    // An offloaded part counts as what was appended, not as the citation that stands in for it.
    this.rawTokens += MESSAGE_OVERHEAD_TOKENS
    const stored = storedPartTokens(item, this.#identity)
    if (stored !== undefined) this.rawTokens += stored
    else for (const part of item.content) this.rawTokens += rawPartTokens(part, this.counter)
    const opening = item.scope
    if (opening === undefined) return
    // A reopening of a scope that is still open (after a late tool result) leaves it as it is; one
    // after an automatic transition, which closed it, opens it again from here.
    const continued = opening.continuedFrom
    if (continued !== undefined && this.#isOpen(item.level, continued)) return
    const scope: OpenScope<L> = { level: item.level, title: opening.title, seq: item.seq }
    if (opening.instructions !== undefined) scope.instructions = opening.instructions
    this.scopes.push(scope)
  }

  #isOpen(level: L, seq: number): boolean {
    for (const scope of this.scopes) if (scope.level === level && scope.seq === seq) return true
    return false
  }

  /** The index of the innermost open scope of `level`, or -1. */
  #openScopeIndex(level: L): number {
    for (let index = this.scopes.length - 1; index >= 0; index--) {
      if (this.scopes[index]!.level === level) return index
    }
    return -1
  }
}

/** A part's tokens as the thread's totals count it: an offloaded part as what was appended. */
const rawPartTokens = (part: MessagePart, counter: TokenCounter) =>
  referenceOf(part)?.tokens ?? countPartTokens(part, counter)

/**
 * The sum of the part counts core stored with a message, when they were counted by the counter of
 * this identity ({@link counterIdentity}: the same name and version) and are whole (one non-negative
 * count per part); otherwise undefined, and the caller counts.
 */
function storedPartTokens(item: MessageItem, identity: string): number | undefined {
  const parts = storedPartCounts(item, identity, false)
  if (parts === undefined) return undefined
  let total = 0
  for (let index = 0; index < parts.length; index++) total += parts[index]!
  return total
}

/**
 * The part counts core stored with a message (one non-negative count per part), when the counter of
 * this identity counted them: `exact`, only under its own identity; else also under one it takes as
 * its own ({@link sameCounts}). Otherwise undefined.
 */
export function storedPartCounts(item: MessageItem, identity: string, exact: boolean): number[] | undefined {
  const tokens = item.tokens
  if (typeof tokens !== 'object' || tokens === null) return undefined
  const { parts, counter } = tokens
  if (counter !== identity && (exact || !sameCounts(identity, counter))) return undefined
  if (!Array.isArray(parts) || parts.length !== item.content.length) return undefined
  // Indexed: runs once per message of a cold open, in the interpreter, where `for…of` allocates a
  // result object a step.
  for (let index = 0; index < parts.length; index++) {
    const count = parts[index]
    if (typeof count !== 'number' || !(count >= 0) || count === Number.POSITIVE_INFINITY) return undefined
  }
  return parts
}

/**
 * The item with the token counts of its parts ({@link MessageItem.tokens}) when it is a message, so a
 * later open need not count them again.
 */
export function withPartTokens<I extends UnsequencedItem<string>>(item: I, counter: TokenCounter): I {
  if (item.type !== 'message') return item
  return {
    ...item,
    tokens: {
      counter: counterIdentity(counter),
      parts: item.content.map((part) => rawPartTokens(part, counter)),
    },
  }
}
