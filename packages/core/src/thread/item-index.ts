import type { Item } from '../items'

/** Where a tool call stands, so its result can take the same level and turn. */
export interface CallOrigin<L extends string> {
  level: L
  turnId: string
}

/** A call's origin and the seq of the item that made it: of two calls with one id, the later counts. */
interface IndexedCall<L extends string> extends CallOrigin<L> {
  seq: number
}

/**
 * The ids and tool calls of every item a thread ever held, archived ones included: what an append
 * checks a new message against. Only an append of a message with its own id or a tool result asks,
 * so the index is built on the first question, not on open: until then archived items leave their
 * ids and calls here (they are not kept in memory) and active items are read from the log.
 */
export class ItemIndex<L extends string> {
  #ids: Set<string> | undefined
  #calls: Map<string, IndexedCall<L>> | undefined
  /** Ids and calls of archived items, kept while the index is not built. */
  #archivedIds: string[] = []
  #archivedCalls: [string, IndexedCall<L>][] = []

  /** @param active the log's active items, oldest first, read when the index is built. */
  constructor(private readonly active: () => readonly Item<L>[]) {}

  /** True when an item with this id was ever in the thread. */
  hasId(id: string): boolean {
    return this.#build().ids.has(id)
  }

  /** Where the newest call with this id stands, or undefined when the thread never saw it. */
  callOrigin(toolCallId: string): CallOrigin<L> | undefined {
    return this.#build().calls.get(toolCallId)
  }

  /** Takes in an item the log just took in (active or archived), in seq order. */
  added(item: Item<L>, archived: boolean) {
    if (this.#ids !== undefined) addItem(this.#ids, this.#calls!, item)
    else if (archived) this.#remember(item)
  }

  /** Records active items the store archived: the log no longer holds them, the index still does. */
  archived(items: readonly Item<L>[]) {
    if (this.#ids === undefined) for (const item of items) this.#remember(item)
  }

  #remember(item: Item<L>) {
    this.#archivedIds.push(item.id)
    if (item.type !== 'message') return
    for (const part of item.content) {
      if (part.type === 'tool-call') {
        this.#archivedCalls.push([part.toolCallId, { level: item.level, turnId: item.turnId, seq: item.seq }])
      }
    }
  }

  #build(): { ids: Set<string>; calls: Map<string, IndexedCall<L>> } {
    if (this.#ids !== undefined) return { ids: this.#ids, calls: this.#calls! }
    const ids = new Set<string>(this.#archivedIds)
    const calls = new Map<string, IndexedCall<L>>()
    for (const [id, origin] of this.#archivedCalls) setCall(calls, id, origin)
    for (const item of this.active()) addItem(ids, calls, item)
    this.#ids = ids
    this.#calls = calls
    this.#archivedIds = []
    this.#archivedCalls = []
    return { ids, calls }
  }
}

function addItem<L extends string>(ids: Set<string>, calls: Map<string, IndexedCall<L>>, item: Item<L>) {
  ids.add(item.id)
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
