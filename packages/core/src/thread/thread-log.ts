import { referenceOf } from '../content/content-reference'
import type { Item, MessageItem, MessagePart, SummaryItem, UnsequencedItem } from '../items'
import { startsTurn, turnNumber } from '../items/turns'
import type { StrataStore } from '../stores'
import type { TokenCounter } from '../tokens'
import { countPartTokens, MESSAGE_OVERHEAD_TOKENS } from '../tokens'
import { isContextMemoryItem } from '../views'

/** A scope opened by `enter` and not yet closed. */
export interface OpenScope<L extends string = string> {
  level: L
  title: string
  instructions?: string
  /** The seq of the scope's opening item. */
  seq: number
}

/** Where a tool call stands, so its result can take the same level and turn. */
interface CallOrigin<L extends string> {
  level: L
  turnId: string
}

export const turnIdOf = (turn: number) => `turn_${String(turn).padStart(4, '0')}`

// Re-exported for the thread, which imports it from here.
export { startsTurn } from '../items/turns'

/**
 * What a thread derives from its log: the active items, the open scopes, the turn counter, where each
 * tool call stands, and running totals. Everything here is rebuilt from the store on open, so two
 * processes on one thread agree once each has read the other's writes.
 */
export class ThreadLog<L extends string> {
  readonly items: Item<L>[] = []
  readonly memoryItems: Item<L>[] = []
  readonly scopes: OpenScope<L>[] = []
  readonly ids = new Set<string>()
  readonly calls = new Map<string, CallOrigin<L>>()
  lastSeq = 0
  /** The highest turn number any item ever had, archived ones included: new turns count on from it. */
  turn = 0
  /** The turn of the newest active user message, while there is one. */
  #lastUserTurn: number | undefined
  archivedCount = 0
  /** Tokens of every message item, active and archived, as raw messages. */
  rawTokens = 0

  constructor(private readonly counter: TokenCounter) {}

  /**
   * The turn new items that do not start one belong to: the newest active user message's. It is the
   * highest turn but after a rewind archived later turns; those turns' numbers are never used again.
   */
  get currentTurn(): number {
    return this.#lastUserTurn ?? this.turn
  }

  get itemsTotal() {
    return this.items.length + this.archivedCount
  }

  /** Active items with a seq above `seq`, oldest first; a binary search, so closing a scope stays cheap. */
  itemsAfter(seq: number): Item<L>[] {
    let low = 0
    let high = this.items.length
    while (low < high) {
      const middle = (low + high) >>> 1
      if (this.items[middle]!.seq <= seq) low = middle + 1
      else high = middle
    }
    return this.items.slice(low)
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
    let kept = 0
    for (const item of this.items) {
      if (seqs.has(item.seq)) {
        this.archivedCount++
        continue
      }
      this.items[kept++] = item
    }
    this.items.length = kept
    this.#lastUserTurn = undefined
    for (let index = this.items.length - 1; index >= 0; index--) {
      const item = this.items[index]!
      if (item.type === 'message' && startsTurn(item)) {
        this.#lastUserTurn = turnNumber(item.turnId)
        break
      }
    }
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

  /** Takes in one stored item, in seq order. Archived items count but are not kept in memory. */
  absorb(item: Item<L>, { archived = false }: { archived?: boolean } = {}) {
    // Views hand out these objects without copying; frozen, a caller's mutation cannot corrupt the log.
    deepFreeze(item)
    this.lastSeq = Math.max(this.lastSeq, item.seq)
    this.ids.add(item.id)
    if (archived) this.archivedCount++
    else this.items.push(item)
    if (!archived && isContextMemoryItem(item)) this.memoryItems.push(item)
    const turn = this.#turnOf(item.turnId)
    this.turn = Math.max(this.turn, turn)
    if (item.type === 'message') {
      if (!archived && startsTurn(item)) this.#lastUserTurn = turn
      // An offloaded part counts as what was appended, not as the citation that stands in for it.
      this.rawTokens += MESSAGE_OVERHEAD_TOKENS
      const stored = storedPartTokens(item, this.counter)
      if (stored !== undefined) this.rawTokens += stored
      else for (const part of item.content) this.rawTokens += rawPartTokens(part, this.counter)
      for (const part of item.content) {
        if (part.type === 'tool-call')
          this.calls.set(part.toolCallId, { level: item.level, turnId: item.turnId })
      }
      // A reopening of a scope that is still open (after a late tool result) leaves it as it is; one
      // after an automatic transition, which closed it, opens it again from here.
      const continued = item.scope?.continuedFrom
      const stillOpen =
        continued !== undefined &&
        this.scopes.some((scope) => scope.level === item.level && scope.seq === continued)
      if (item.scope !== undefined && !stillOpen) {
        const scope: OpenScope<L> = { level: item.level, title: item.scope.title, seq: item.seq }
        if (item.scope.instructions !== undefined) scope.instructions = item.scope.instructions
        this.scopes.push(scope)
      }
    } else if (item.type === 'transition') {
      const open = this.scopes.findLastIndex((scope) => scope.level === item.fromLevel)
      if (open >= 0) this.scopes.splice(open)
    }
  }
}

function deepFreeze(value: object) {
  if (Object.isFrozen(value)) return
  Object.freeze(value)
  if (Array.isArray(value)) {
    for (const child of value) if (typeof child === 'object' && child !== null) deepFreeze(child)
    return
  }
  for (const key in value) {
    const child = (value as Record<string, unknown>)[key]
    if (typeof child === 'object' && child !== null) deepFreeze(child)
  }
}

/** A part's tokens as the thread's totals count it: an offloaded part as what was appended. */
const rawPartTokens = (part: MessagePart, counter: TokenCounter) =>
  referenceOf(part)?.tokens ?? countPartTokens(part, counter)

/**
 * The sum of the part counts core stored with a message, when they were counted by this counter and
 * are whole (one non-negative count per part); otherwise undefined, and the caller counts.
 */
function storedPartTokens(item: MessageItem, counter: TokenCounter): number | undefined {
  const tokens = item.tokens
  if (tokens === undefined || tokens === null || typeof tokens !== 'object') return undefined
  const { parts } = tokens
  if (tokens.counter !== counter.name || !Array.isArray(parts) || parts.length !== item.content.length)
    return undefined
  let total = 0
  for (const count of parts) {
    if (typeof count !== 'number' || !Number.isFinite(count) || count < 0) return undefined
    total += count
  }
  return total
}

/**
 * The item with the token counts of its parts ({@link MessageItem.tokens}) when it is a message, so a
 * later open need not count them again.
 */
export function withPartTokens<I extends UnsequencedItem<string>>(item: I, counter: TokenCounter): I {
  if (item.type !== 'message') return item
  return {
    ...item,
    tokens: { counter: counter.name, parts: item.content.map((part) => rawPartTokens(part, counter)) },
  }
}

/**
 * Reads a thread's archive and active log and replays them in seq order (archived and active items
 * interleave), so scopes, turns and totals come out as the writers left them.
 */
export async function loadThreadLog<L extends string>(
  store: StrataStore,
  threadId: string,
  counter: TokenCounter,
): Promise<ThreadLog<L>> {
  // One after the other: a store that looks at both logs on every read (the file store) then reads
  // and parses them once, where two reads at once would each load them. It costs Redis one round trip.
  const archived = await store.readArchive(threadId)
  const active = await store.read(threadId)
  const log = new ThreadLog<L>(counter)
  let a = 0
  let b = 0
  while (a < archived.length || b < active.length) {
    const takeArchived = b >= active.length || (a < archived.length && archived[a]!.seq < active[b]!.seq)
    if (takeArchived) log.absorb(archived[a++] as Item<L>, { archived: true })
    else log.absorb(active[b++] as Item<L>)
  }
  return log
}
