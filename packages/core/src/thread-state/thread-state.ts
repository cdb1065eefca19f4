import type { ResolvedContentOptions, ThreadContent } from '../content'
import { referenceOf } from '../content/content-reference'
import type { IndexPool } from '../content/index-pool'
import type { MemoryEventEmitter } from '../events'
import type {
  FactItem,
  Item,
  MessageItem,
  MessagePart,
  NormalizedMessage,
  SeqRange,
  SummaryItem,
} from '../items'
import { isSealed } from '../items/sealed-item'
import type { LevelLadder } from '../levels'
import type { StrataStore } from '../stores'
import type { SummarizedFact, SummarizeOptions, Summarizer } from '../summarizers'
import { withTimeout } from '../summarizers'
import { type TelemetryTracer, traced } from '../telemetry'
import { counterIdentity, countPartTokens, MESSAGE_OVERHEAD_TOKENS, type TokenCounter } from '../tokens'
import { isContextMemoryItem, LevelViews, oneOpeningPerScope, viewItem, withTurnRequest } from '../views'
import type { HoldRegistry } from './thread-hold'
import { storedPartCounts, type ThreadLog, turnIdOf } from './thread-log'

/**
 * What the shared state reads of the compaction options: whether the waterfall narrows the history the
 * views walk, and the summarizer's timeout. The policies' runners read their own options through `C`.
 */
export interface StateCompaction {
  waterfall: false | { window: number }
  summarizerTimeoutMs: number
}

/** What a thread needs from its memory. */
export interface ThreadDependencies<L extends string, C extends StateCompaction = StateCompaction> {
  store: StrataStore
  ladder: LevelLadder<L>
  summarizer: Summarizer
  tokenCounter: TokenCounter
  modes: Readonly<Record<string, L>>
  events: MemoryEventEmitter
  clock: () => number
  generateId: () => string
  compaction: C
  content: ResolvedContentOptions
  /** The tracer for a span starting now (the app's, or a framework's an adapter passed), or none. */
  tracer?: TelemetryTracer | undefined
  /** The memory's live thread holds, which `memory.close()` releases. */
  holds?: HoldRegistry
  /** The memory's bound on the entries its search indexes hold (resources' and `memory_query`'s). */
  indexes?: IndexPool
}

/**
 * What the parts of one thread share: its id, its dependencies, the log derived from the store, and the
 * item builders and token counts every part uses. The write path replaces `log` when it reads the
 * thread again whole.
 */
export class ThreadState<L extends string, C extends StateCompaction = StateCompaction> {
  readonly id: string
  readonly deps: ThreadDependencies<L, C>
  #log!: ThreadLog<L>
  mode: string | undefined
  /** Set by the thread once its content channel exists (it needs the write path). */
  content!: ThreadContent
  /** Told after each append the store took (the thread's resource index is touched there). */
  afterAppend: ((items: readonly Item[]) => void) | undefined
  /** Token counts of stored parts: contexts render the same parts again and again. */
  readonly #partTokens = new WeakMap<MessagePart, number>()
  /** The last level view, which the next extends while the log only grows (a new log starts anew). */
  #levelViews = new LevelViews<L>()
  /** The token counter's identity, as stored counts record it. */
  readonly #identity: string

  constructor(id: string, deps: ThreadDependencies<L, C>, log: ThreadLog<L>, mode: string | undefined) {
    this.id = id
    this.deps = deps
    this.#identity = counterIdentity(deps.tokenCounter)
    this.log = log
    this.mode = mode
  }

  /** The thread's log: the one it opened, or the one it read again whole (see `WritePath.refresh`). */
  get log(): ThreadLog<L> {
    return this.#log
  }

  set log(log: ThreadLog<L>) {
    this.#log = log
    // The last view held the old log's items: not kept past it.
    this.#levelViews = new LevelViews<L>()
  }

  /** The current level: the innermost open scope's, or the broadest when none is open. */
  get level(): L {
    return this.log.scopes.at(-1)?.level ?? this.deps.ladder.broadest
  }

  /**
   * The history the waterfall has not summarized yet (all of it without the waterfall), maybe not yet
   * frozen (see `ThreadLog.unfrozenItems`): for reads that hand none of it out, such as counting tokens.
   */
  unfrozenWindow(): readonly Item<L>[] {
    if (this.deps.compaction.waterfall === false) return this.log.unfrozenItems
    return this.log.unfrozenItemsAfter(this.log.waterfallCursor.summarizedThroughSeq)
  }

  /**
   * The level's view as contexts show it. Under the waterfall, the items its summaries cover leave the
   * view, but never below what the level needs: the newest `window` items of the level's own view, and
   * its first item when that opens a scope, stay (task items do not summarize a short project view away).
   */
  view(level: L): Item<L>[] {
    const { ladder, compaction } = this.deps
    const { waterfall } = compaction
    // Walked, not handed out: a caller that hands items of the view out freezes them (`log.handOut`).
    // Sealed entries are skipped or never reached (see `levelView`).
    const items = this.log.entries
    if (waterfall === false) return this.#levelViews.of(items, level, ladder).slice()
    const through = this.log.waterfallCursor.summarizedThroughSeq
    const minimum = waterfall.window
    const target = ladder.rank(level)
    const kept: Item<L>[] = []
    let first: Item<L> | undefined
    for (let index = items.length - 1; index >= 0; index--) {
      const entry = items[index]!
      if (!isSealed(entry) && isContextMemoryItem(entry)) continue
      // Most items of a view are of its level: their rank is known without a lookup (names are unique).
      const rank = entry.level === level ? target : ladder.rank(entry.level)
      if (rank < target) break
      if (rank > target) continue
      const item = viewItem(entry)
      if (item.seq > through || kept.length < minimum) kept.push(item)
      // The broadest level has no opening item: nothing older is needed.
      else if (target === 0) break
      first = item
    }
    if (first !== undefined && first.type === 'message' && first.scope !== undefined && kept.at(-1) !== first)
      kept.push(first)
    kept.reverse()
    return kept
  }

  /**
   * What a context shows of the log at `level`: the level's {@link view} with the turn's request in it
   * (DESIGN invariant 4), wherever scopes opened or closed since, and one opening per scope. `view`
   * stays the normative rule.
   */
  contextView(level: L): Item<L>[] {
    return oneOpeningPerScope(withTurnRequest(this.view(level), this.log.request))
  }

  /**
   * Takes in the part counts stored with `items`' messages by this very counter (its name and
   * version): they are what {@link countTokens} would count for those part objects, so a cold open's
   * first context shows its view without counting it again. An offloaded part is left out: its stored
   * count is of what was appended, not of the citation that stands in the log.
   */
  takeStoredCounts(items: readonly Item<L>[]) {
    const identity = this.#identity
    for (let at = 0; at < items.length; at++) {
      const item = items[at]!
      if (item.type !== 'message') continue
      const counts = storedPartCounts(item, identity, true)
      if (counts === undefined) continue
      const { content } = item
      for (let index = 0; index < content.length; index++) {
        const part = content[index]!
        if (referenceOf(part) === undefined) this.#partTokens.set(part, counts[index]!)
      }
    }
  }

  countTokens(message: { content: readonly MessagePart[] }): number {
    let total = MESSAGE_OVERHEAD_TOKENS
    const { content } = message
    for (let index = 0; index < content.length; index++) total += this.#partCount(content[index]!)
    return total
  }

  /** The tokens of the active log's messages. */
  historyTokens(): number {
    let total = 0
    for (const item of this.log.items) if (item.type === 'message') total += this.logMessageTokens(item)
    return total
  }

  /**
   * {@link countTokens} of a message of the log (never a copy: its stored counts are of its own parts),
   * from the counts stored with it by this very counter where it has them (see `takeStoredCounts`),
   * read where they are rather than remembered: a budget's plan and gauge count every active message,
   * which on a long thread read whole meant counting a million texts again and keeping a million
   * entries in `#partTokens`.
   */
  logMessageTokens(item: MessageItem): number {
    const stored = storedPartCounts(item, this.#identity, true)
    if (stored === undefined) return this.countTokens(item)
    let total = MESSAGE_OVERHEAD_TOKENS
    const { content } = item
    for (let index = 0; index < content.length; index++) {
      const part = content[index]!
      total += referenceOf(part) === undefined ? stored[index]! : this.#partCount(part)
    }
    return total
  }

  /** One part's count, counted once. */
  #partCount(part: MessagePart): number {
    let tokens = this.#partTokens.get(part)
    if (tokens === undefined) {
      tokens = countPartTokens(part, this.deps.tokenCounter)
      this.#partTokens.set(part, tokens)
    }
    return tokens
  }

  /** The memory's summarizer under the compaction's timeout. */
  summarize(items: readonly Item<L>[], options: SummarizeOptions) {
    const { summarizer, tracer } = this.deps
    const attributes = {
      'strata.summarizer.name': summarizer.name,
      'strata.summarize.tier': options.tier,
      'strata.summarize.items': items.length,
    }
    return traced(tracer, 'strata.summarize', attributes, async (span) => {
      const started = Date.now()
      try {
        return await withTimeout(summarizer, {
          timeoutMs: this.deps.compaction.summarizerTimeoutMs,
        }).summarize(items, options)
      } finally {
        span?.setAttribute('strata.summarize.duration_ms', Date.now() - started)
      }
    })
  }

  newMessageItem(message: NormalizedMessage, level: L, turnId: string): Omit<MessageItem<L>, 'seq'> {
    const item: Omit<MessageItem<L>, 'seq'> = {
      id: message.id ?? this.deps.generateId(),
      ts: message.ts ?? this.deps.clock(),
      level,
      turnId,
      type: 'message',
      role: message.role,
      content: message.content,
    }
    if (message.meta !== undefined) item.meta = message.meta
    return item
  }

  summaryItem(
    tier: SummaryItem['tier'],
    text: string,
    range: SeqRange,
    turnIds?: string[],
  ): Omit<SummaryItem<L>, 'seq'> {
    const item: Omit<SummaryItem<L>, 'seq'> = {
      id: this.deps.generateId(),
      ts: this.deps.clock(),
      level: this.deps.ladder.broadest,
      turnId: turnIdOf(this.log.currentTurn),
      type: 'summary',
      tier,
      text,
      range: { ...range },
      salience: tier === 'long-term' ? 0.8 : 0.6,
    }
    if (turnIds !== undefined) item.turnIds = [...turnIds]
    return item
  }

  factItem(fact: SummarizedFact): Omit<FactItem<L>, 'seq'> {
    return {
      id: this.deps.generateId(),
      ts: this.deps.clock(),
      level: this.deps.ladder.broadest,
      turnId: turnIdOf(this.log.currentTurn),
      type: 'fact',
      text: fact.text,
      tags: [...(fact.tags ?? [])],
      confidence: fact.confidence ?? 0.5,
      salience: fact.salience ?? 0.5,
    }
  }
}
