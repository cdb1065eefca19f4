import type { Item, SeqRange } from '../items'
import { isSealed, type LogEntry } from '../items/sealed-item'
import { indexAfterSeq, indexFromSeq } from '../items/seq-search'
import { ArchiveFilter, callKey, idKey } from './archive-filter'

/** Where a tool call stands, so its result can take the same level and turn. */
export interface CallOrigin<L extends string> {
  level: L
  turnId: string
}

/** A call's origin and the seq of the item that made it: of two calls with one id, the later counts. */
interface IndexedCall<L extends string> extends CallOrigin<L> {
  seq: number
}

/** An item that is not in the active items, above the filter's seqs: its id and calls are kept here. */
interface OutsideItem<L extends string> {
  seq: number
  id: string
  calls: [string, IndexedCall<L>][]
}

/** Reads the archived items of a seq range: one page (a filter block is about a thousand items). */
export type ArchiveRangeReader = (range: SeqRange) => Promise<readonly Item[]>

/** What an index starts from when a digest of the log described the items up to `through`. */
export interface IndexStart {
  /** The ids and calls of every item up to `through`, active or archived. */
  filter: ArchiveFilter
  through: number
}

/**
 * The ids and tool calls of every item a thread ever held, archived ones included: what an append
 * checks a new message against. Items above the digest's seq (`through`) that are not active are kept
 * here (their id and calls); items up to it are answered by the digest's {@link ArchiveFilter}, whose
 * "maybe" is settled by reading the archive's blocks it names, a page each ({@link resolve}). A "no"
 * reads nothing: an append of a new id, or of a result whose call is active with nothing archived after
 * it, costs no archive read. The exact sets are built on the first question, not on open.
 */
export class ItemIndex<L extends string> {
  #ids: Set<string> | undefined
  #calls: Map<string, IndexedCall<L>> | undefined
  /** Items above `#through` that left the active items (or were read from the archive on open). */
  #outside: OutsideItem<L>[] = []
  #filter: ArchiveFilter | undefined
  #through = 0
  /** What the archive answered for ids and calls the filter could not settle. */
  readonly #archivedIds = new Map<string, boolean>()
  readonly #archivedCalls = new Map<string, IndexedCall<L> | null>()

  /**
   * @param active the log's active items, oldest first, read when the index is built.
   * @param read reads archived items of a seq range, for questions the filter cannot settle.
   */
  constructor(
    private readonly active: () => readonly LogEntry<L>[],
    private readonly read: ArchiveRangeReader | undefined,
    start?: IndexStart,
  ) {
    if (start !== undefined) {
      this.#filter = start.filter
      this.#through = start.through
    }
  }

  /** The seq up to which the filter answers (0: every item is in the active items or kept here). */
  get through(): number {
    return this.#through
  }

  /**
   * Settles, by reading the archive where the filter says "maybe", what {@link hasId} and
   * {@link callOrigin} will be asked of these ids and calls. Call before asking.
   */
  async resolve(ids: readonly string[], toolCallIds: readonly string[]): Promise<void> {
    const filter = this.#filter
    if (filter === undefined || this.read === undefined) return
    if (ids.length === 0 && toolCallIds.length === 0) return
    const { ids: known, calls } = this.#build()
    for (const id of ids) {
      if (known.has(id) || this.#archivedIds.has(id)) continue
      let found = false
      for (const range of filter.rangesOf(idKey(id))) {
        if (!this.#mayHoldArchived(range)) continue
        const page = await this.read(range)
        if (page.some((item) => item.id === id)) {
          found = true
          break
        }
      }
      this.#archivedIds.set(id, found)
    }
    for (const toolCallId of toolCallIds) {
      if (this.#archivedCalls.has(toolCallId)) continue
      const floor = calls.get(toolCallId)?.seq ?? 0
      // A call above the filter's seqs is newer than any it describes.
      if (floor >= this.#through) continue
      let found: IndexedCall<L> | null = null
      for (const { fromSeq, toSeq } of filter.rangesOf(callKey(toolCallId))) {
        if (toSeq <= floor) break
        const range = { fromSeq: Math.max(fromSeq, floor + 1), toSeq }
        if (!this.#mayHoldArchived(range)) continue
        const page = await this.read(range)
        for (const item of page) {
          for (const [id, origin] of callsOf(item as Item<L>)) if (id === toolCallId) found = origin
        }
        if (found !== null) break
      }
      this.#archivedCalls.set(toolCallId, found)
    }
  }

  /**
   * Whether the archive can hold items of a range: seqs are consecutive (the store contract), so a
   * range is all active when it holds as many active items as seqs. Items a summary covers but the
   * store still holds count as archived here: a read too many, never one too few.
   */
  #mayHoldArchived({ fromSeq, toSeq }: SeqRange): boolean {
    const items = this.active()
    const activeInRange = indexAfterSeq(items, toSeq) - indexFromSeq(items, fromSeq)
    return activeInRange < toSeq - fromSeq + 1
  }

  /**
   * The archived item with this id, or undefined: one read of the seq the index kept for it, or of each
   * block the filter names (one, but for a false "maybe"); nothing when no block may hold it.
   */
  async archivedItem(id: string): Promise<Item<L> | undefined> {
    if (this.read === undefined) return undefined
    for (let at = this.#outside.length - 1; at >= 0; at--) {
      const { seq, id: itemId } = this.#outside[at]!
      if (itemId !== id) continue
      const [item] = await this.read({ fromSeq: seq, toSeq: seq })
      if (item?.id === id) return item as Item<L>
    }
    if (this.#filter === undefined) return undefined
    for (const range of this.#filter.rangesOf(idKey(id))) {
      if (!this.#mayHoldArchived(range)) continue
      const found = (await this.read(range)).find((item) => item.id === id)
      if (found !== undefined) return found as Item<L>
    }
    return undefined
  }

  /** True when an item with this id was ever in the thread (after {@link resolve} of the id). */
  hasId(id: string): boolean {
    return this.#build().ids.has(id) || this.#archivedIds.get(id) === true
  }

  /** Where the newest call with this id stands, or undefined when the thread never saw it (after {@link resolve}). */
  callOrigin(toolCallId: string): CallOrigin<L> | undefined {
    const known = this.#build().calls.get(toolCallId)
    const archived = this.#archivedCalls.get(toolCallId) ?? undefined
    if (known === undefined || (archived !== undefined && archived.seq > known.seq)) return archived
    return known
  }

  /** Takes in an item the log just took in (active or archived), in seq order. */
  added(item: Item<L>, archived: boolean) {
    if (this.#ids !== undefined) addItem(this.#ids, this.#calls!, item)
    if (archived) this.#keep(item)
  }

  /** Records active items the store archived: the log no longer holds them, the index still does. */
  archived(items: readonly LogEntry<L>[]) {
    for (const item of items) this.#keep(item)
  }

  #keep(item: LogEntry<L>) {
    if (item.seq > this.#through) this.#outside.push({ seq: item.seq, id: item.id, calls: callsOf(item) })
  }

  /**
   * The filter of every item up to `lastSeq`: the digest's, and every item above its seq, active or
   * kept here. For a new digest; the index goes on with its own until {@link adopt}.
   */
  filterThrough(lastSeq: number): ArchiveFilter {
    const filter = this.#filter?.clone() ?? new ArchiveFilter()
    const active = this.active()
    const above = active.slice(indexAfterSeq(active, this.#through))
    const outside = [...this.#outside].sort((left, right) => left.seq - right.seq)
    let a = 0
    let b = 0
    const add = (seq: number, id: string, calls: readonly [string, unknown][]) => {
      if (seq > lastSeq) return
      filter.add(idKey(id), seq)
      for (const [call] of calls) filter.add(callKey(call), seq)
    }
    while (a < above.length || b < outside.length) {
      if (b >= outside.length || (a < above.length && above[a]!.seq < outside[b]!.seq)) {
        const item = above[a++]!
        add(item.seq, item.id, callsOf(item))
      } else {
        const item = outside[b++]!
        add(item.seq, item.id, item.calls)
      }
    }
    return filter
  }

  /** Goes on from a digest just stored: items up to `through` are the filter's, and no longer kept here. */
  adopt(filter: ArchiveFilter, through: number) {
    if (through < this.#through) return
    this.#filter = filter
    this.#through = through
    this.#outside = this.#outside.filter((item) => item.seq > through)
  }

  #build(): { ids: Set<string>; calls: Map<string, IndexedCall<L>> } {
    if (this.#ids !== undefined) return { ids: this.#ids, calls: this.#calls! }
    const ids = new Set<string>()
    const calls = new Map<string, IndexedCall<L>>()
    for (const item of this.#outside) {
      ids.add(item.id)
      for (const [id, origin] of item.calls) setCall(calls, id, origin)
    }
    for (const item of this.active()) addItem(ids, calls, item)
    this.#ids = ids
    this.#calls = calls
    return { ids, calls }
  }
}

function callsOf<L extends string>(item: LogEntry<L>): [string, IndexedCall<L>][] {
  if (isSealed(item)) return (item.calls ?? []).map((id) => [id, originOf(item)])
  if (item.type !== 'message') return []
  const calls: [string, IndexedCall<L>][] = []
  for (const part of item.content) {
    if (part.type === 'tool-call')
      calls.push([part.toolCallId, { level: item.level, turnId: item.turnId, seq: item.seq }])
  }
  return calls
}

const originOf = <L extends string>(item: LogEntry<L>): IndexedCall<L> => ({
  level: item.level,
  turnId: item.turnId,
  seq: item.seq,
})

function addItem<L extends string>(ids: Set<string>, calls: Map<string, IndexedCall<L>>, item: LogEntry<L>) {
  ids.add(item.id)
  if (isSealed(item)) {
    for (const id of item.calls ?? []) setCall(calls, id, originOf(item))
    return
  }
  if (item.type !== 'message') return
  for (const part of item.content) {
    if (part.type === 'tool-call') {
      setCall(calls, part.toolCallId, { level: item.level, turnId: item.turnId, seq: item.seq })
    }
  }
}

/** Keeps the later of two calls with one id, as taking items in seq order would. */
function setCall<L extends string>(calls: Map<string, IndexedCall<L>>, id: string, origin: IndexedCall<L>) {
  const known = calls.get(id)
  if (known === undefined || known.seq <= origin.seq) calls.set(id, origin)
}
