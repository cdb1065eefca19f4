import {
  mergeFacts,
  normalizeFactText,
  planAutoTransition,
  planBudgetCompaction,
  planWaterfall,
  type ResolvedCompaction,
  type RetryBackoff,
  renderSnapshot,
  retryBackoff,
  shouldCompact,
  snapshotTurns,
} from '../compaction'
import { type ContentBinding, type ResolvedContentOptions, ThreadContent } from '../content'
import { type ContextMessage, type ContextStats, renderContext } from '../context'
import { MAX_FACTS } from '../context/render-context'
import { OVERSIZED_SHARE, truncateOversized } from '../context/truncate-oversized'
import { StrataError } from '../errors'
import type { CompactionEndEvent, CompactionTrigger, MemoryEventEmitter } from '../events'
import { IncomingConversation } from '../history/message-matching'
import {
  alignTail,
  checkMatchingOptions,
  DEFAULT_WINDOW,
  type UnseenMessagesOptions,
} from '../history/unseen-messages'
import {
  type FactItem,
  type Item,
  type JsonObject,
  type MessageInput,
  type MessageItem,
  type MessagePart,
  type NormalizedMessage,
  normalizeMessage,
  type SeqRange,
  type SummaryItem,
  type SummaryTier,
  type TransitionItem,
  type TransitionReason,
  type UnsequencedItem,
} from '../items'
import { jsonCopy } from '../items/json'
import type { LevelLadder } from '../levels'
import { type DivergencePoint, divergencePoint, planRewind } from '../rewind'
import type { StrataStore } from '../stores'
import type { SummarizedFact, SummarizeOptions, SummarizeResult, Summarizer } from '../summarizers'
import { patternSummarizer, withTimeout } from '../summarizers'
import { countMessageTokens, countPartTokens, MESSAGE_OVERHEAD_TOKENS, type TokenCounter } from '../tokens'
import { keepRecentScopes, levelView, type ToolInteraction, toolInteractions } from '../views'
import { loadThreadLog, type OpenScope, startsTurn, type ThreadLog, turnIdOf } from './thread-log'

/** How many times a write re-reads the log and tries again after another writer got there first. */
const MAX_WRITE_ATTEMPTS = 10

/**
 * Waits a random few milliseconds, longer with each attempt, so writers that keep colliding on one
 * thread fall out of step instead of colliding again.
 */
const backOff = (attempt: number) =>
  new Promise<void>((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 ** attempt)))

/** What a thread needs from its memory. */
export interface ThreadDependencies<L extends string> {
  store: StrataStore
  ladder: LevelLadder<L>
  summarizer: Summarizer
  tokenCounter: TokenCounter
  modes: Readonly<Record<string, L>>
  events: MemoryEventEmitter
  clock: () => number
  generateId: () => string
  compaction: ResolvedCompaction
  content: ResolvedContentOptions
}

/** Options of {@link Thread.enter}. */
export interface EnterOptions {
  /** What the scope is for; the first thing the narrower view shows. */
  title: string
  /** Longer instructions for the scope (a worker's task description). */
  instructions?: string
  /** Application metadata for the opening item. */
  meta?: JsonObject
}

export type ScopeOutcome = 'complete' | 'cancelled' | 'aborted'

/** Options of {@link Thread.exit}. */
export interface ExitOptions<L extends string = string> {
  /** @default 'complete' */
  outcome?: ScopeOutcome
  /** The scope summary; when omitted the memory's summarizer writes it. */
  summary?: string
  /** What people see for this transition; null hides it. @default a sentence naming the scope and outcome */
  userFacingMessage?: string | null
  /** What the model sees in place of the scope. @default `[ACTIONS]: <N task actions filtered for brevity>` */
  agentFacingMessage?: string
  /** The level being closed; when given it must be the innermost open scope's level. */
  level?: L
  /** Why the scope ended. @default `task-complete` (narrowest level) or `project-complete`, `cancelled`, `aborted` */
  reason?: TransitionReason
}

/** What {@link Thread.exit} wrote. */
export interface ExitResult<L extends string = string> {
  transition: TransitionItem<L>
  summary: SummaryItem<L>
}

/** Options of {@link Thread.context}. */
export interface ContextOptions<L extends string = string> {
  /** @default the thread's current level */
  level?: L
  /** The system prompt, placed first. */
  system?: string
}

/** What {@link Thread.context} returns. */
export interface ThreadContext {
  messages: ContextMessage[]
  stats: ContextStats
}

/** Options of {@link Thread.appendUnseen}. */
export interface AppendUnseenOptions<T> extends Omit<UnseenMessagesOptions<T>, 'toComparable'> {
  /**
   * Maps a framework message to core's message input; only the messages compared with the stored tail
   * and the ones appended are mapped.
   * @default the message itself (already core's form)
   */
  toMessage?: (message: T) => MessageInput
}

/** Options of {@link Thread.rewind}. */
export interface RewindOptions {
  /** Every item with a higher seq leaves the active log (0: all of it), but for the kept summaries and facts. */
  afterSeq: number
  /**
   * The thread's last seq when the caller decided to rewind (`divergence().lastSeq`): when another
   * writer appended since, the rewind is `STRATA_SEQ_CONFLICT` and archives nothing.
   * @default the last seq the thread reads just before it archives
   */
  expectedLastSeq?: number
}

/** What {@link Thread.rewind} did. */
export interface RewindResult<L extends string = string> {
  afterSeq: number
  /** The items moved to the archive, oldest first (frozen); they stay readable there. */
  archived: Item<L>[]
  /** Summaries, facts and transitions after the point that stay active: they cover only what precedes it. */
  kept: Item<L>[]
}

/** Where an incoming history leaves the thread, from {@link Thread.divergence}. */
export interface Divergence extends DivergencePoint {
  /** The thread's last seq when it was found: pass it to `rewind` as `expectedLastSeq`. */
  lastSeq: number
}

/** Usage reported by the provider after a model call. */
export interface UsageReport {
  inputTokens: number
  outputTokens?: number
}

/** What {@link Thread.status} returns. */
export interface ThreadStatus<L extends string = string> {
  threadId: string
  level: L
  mode: string | undefined
  scopes: OpenScope<L>[]
  lastSeq: number
  turnId: string
  items: { active: number; archived: number; byLevel: Record<string, number>; byType: Record<string, number> }
  tokens: { total: number; counter: string }
  /** The last usage reported with `reportUsage`, and its ratio to Strata's estimate of that context. */
  lastUsage?: { inputTokens: number; outputTokens?: number; estimatedTokens?: number; ts: number }
  /** Summaries by tier with their sizes, facts, the waterfall's progress and the last compaction. */
  compaction: {
    summaries: Record<SummaryTier, { count: number; tokens: number }>
    facts: number
    waterfall: { compactions: number; summarizedThroughSeq: number }
    /** Set while a budget compaction waits for the next context. */
    budgetRequested?: 'early' | 'hard'
    /** Set after summarizer failures: when automatic compaction tries again (epoch ms). */
    retryAt?: number
    last?: LastCompaction
  }
}

/** The last compaction a thread ran (kept in the thread's state, so it survives a restart). */
export interface LastCompaction {
  trigger: CompactionTrigger
  /** When it ended, epoch ms. */
  ts: number
  durationMs: number
  tokensBefore: number
  tokensAfter: number
  itemsArchived: number
  itemsWritten: number
  skipped?: string
  warning?: string
  /** The summarizer's error message, when it failed. */
  error?: string
  /** After a failure: when automatic compaction tries again (epoch ms). */
  retryAt?: number
}

const OUTCOMES: readonly ScopeOutcome[] = ['complete', 'cancelled', 'aborted']
const REASONS: readonly TransitionReason[] = [
  'task-complete',
  'project-complete',
  'cancelled',
  'aborted',
  'manual',
  'size-limit',
  'time-limit',
  'token-budget',
]

const invalidOptions = (message: string, details: Record<string, unknown> = {}): never => {
  throw new StrataError({ code: 'STRATA_INVALID_OPTIONS', message, details })
}

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)

/**
 * One conversation's memory: an append-only log of items tagged with levels and turns, and the views
 * and contexts built from it. Get one with `memory.thread(id)`. Operations on one thread object run one
 * at a time; writers in other processes are detected by the store's seq check and retried.
 */
export class Thread<L extends string = string> {
  readonly id: string
  readonly #deps: ThreadDependencies<L>
  #log: ThreadLog<L>
  #mode: string | undefined
  #lastContextTokens: number | undefined
  /** Token counts of stored parts: contexts render the same parts again and again. */
  readonly #partTokens = new WeakMap<MessagePart, number>()
  #queue: Promise<unknown> = Promise.resolve()
  /** The waterfall compaction running in the background, if any. */
  #waterfallRun: Promise<void> | undefined
  /** Set by `reportUsage` when the last prompt was over the budget's threshold. */
  #budgetRequested: 'early' | 'hard' | undefined
  /** The input tokens of the last usage report that asked for a budget compaction. */
  #reportedInputTokens = 0
  /**
   * Set when compaction cannot bring the prompt under the threshold (nothing old enough to compact, or
   * the system prompt, memory slots and raw tail alone are over it): the history's tokens then. Budget
   * requests wait until the history has grown by the budget's headroom, so a compaction does not run on
   * every turn; the warning is sent once, until a prompt is under the threshold again.
   */
  #budgetHold: number | undefined
  #lastCompaction: LastCompaction | undefined
  /** The list the last `divergence()` or `appendUnseen()` mapped (see #incomingConversation). */
  #recentIncoming:
    | {
        list: readonly unknown[]
        length: number
        toMessage: unknown
        conversation: IncomingConversation<{ role: string }>
      }
    | undefined
  /** Spaces out automatic retries after summarizer failures; compaction by hand ignores it. */
  readonly #retry: RetryBackoff

  /**
   * The content channel: large results stored once beside the history, and what the memory tools
   * (`memoryTools(thread)`) read and write. See the core README, "Content channel".
   */
  readonly content: ThreadContent

  /** @internal Use `memory.thread(id)`. */
  constructor(
    id: string,
    deps: ThreadDependencies<L>,
    log: ThreadLog<L>,
    mode: string | undefined,
    binding: ContentBinding = { owner: id, access: 'own' },
  ) {
    this.id = id
    this.#deps = deps
    this.#log = log
    this.#mode = mode
    this.#retry = retryBackoff(deps.compaction.retry)
    this.content = new ThreadContent({
      threadId: id,
      store: deps.store,
      binding,
      options: deps.content,
      summarizer: deps.summarizer,
      clock: deps.clock,
      generateId: deps.generateId,
      level: () => this.level,
      levels: deps.ladder.levels,
      countPart: (part) => countPartTokens(part, deps.tokenCounter),
      history: () =>
        this.#exclusive(async () => {
          await this.#refresh()
          const view = levelView(this.#activeWindow(), this.level, this.#deps.ladder)
          return { items: this.#log.items, viewIds: new Set(view.map((item) => item.id)), level: this.level }
        }),
    })
  }

  /** The current level: the innermost open scope's, or the broadest when none is open. */
  get level(): L {
    return this.#log.scopes.at(-1)?.level ?? this.#deps.ladder.broadest
  }

  /** The current mode, when the application uses modes (`setMode`). */
  get mode(): string | undefined {
    return this.#mode
  }

  /** The open scopes, outermost first. */
  get scopes(): readonly OpenScope<L>[] {
    return this.#log.scopes.map((scope) => ({ ...scope }))
  }

  /**
   * Appends messages tagged with the current level and turn. A user message starts a new turn; a tool
   * result takes the level and turn of its call. Validates everything before writing: on any error
   * nothing is stored.
   *
   * @example
   * await thread.append({ role: 'user', content: 'Draw a house' })
   */
  async append(input: MessageInput | readonly MessageInput[]): Promise<MessageItem<L>[]> {
    const inputs = Array.isArray(input) ? input : [input as MessageInput]
    const messages = inputs.map((message, index) => normalizeMessage(message, index))
    return this.#appendMessages(() => messages)
  }

  /**
   * Appends the messages of `incoming` that the thread has not stored yet, for adapters whose framework
   * re-sends the whole history on every call, sends only the new messages, or re-sends a tool loop's
   * earlier steps. The end of the stored conversation is aligned with the list (see `unseenMessages`
   * for the rule and its one ambiguity); what follows it is appended. Matching and appending are one
   * step, retried on a seq conflict, so two calls racing on one thread never store a message twice.
   * A list that does not continue the thread (`aligned: false` in `unseenMessages`: a `'full'` list
   * without the stored tail, an `'auto'` list that re-sends a stored answer out of place) is refused
   * with `STRATA_INVALID_MESSAGE` (`details.reason: 'not-continuing'`, which tells it from a malformed
   * message) rather than stored a second time; `divergence` finds where it
   * leaves the thread. Costs the compared tail, not the history. Returns the stored messages.
   *
   * @example
   * await thread.appendUnseen(fullHistoryFromTheClient, { history: 'full' })
   */
  async appendUnseen<T extends { role: string }>(
    incoming: readonly T[],
    options: AppendUnseenOptions<T> = {},
  ): Promise<MessageItem<L>[]> {
    if (!Array.isArray(incoming)) invalidOptions('appendUnseen() needs an array of messages.')
    const { toMessage, history = 'auto', window = DEFAULT_WINDOW } = options
    checkMatchingOptions({ history, window })
    // One walk of the list for every attempt: a retry after a seq conflict maps no message again.
    const messages = this.#incomingConversation(incoming, toMessage)
    return this.#appendMessages(() => {
      const { indexes, aligned } = alignTail(this.#log.items, messages, history, window)
      if (!aligned) {
        throw new StrataError({
          code: 'STRATA_INVALID_MESSAGE',
          message:
            `The messages sent do not continue thread '${this.id}': they do not hold its stored conversation ` +
            'before their new messages (a regenerated answer, an edited message, a history that lost stored ' +
            'messages, or another conversation?), so storing them would store history a second time. Nothing was stored: ' +
            'rewind the thread to where they leave it (divergence() and rewind()), send the history the ' +
            "thread holds, or send only new messages with history: 'new'.",
          details: { threadId: this.id, history, reason: 'not-continuing' },
        })
      }
      return indexes.map((index) => messages.comparable(index) as NormalizedMessage)
    })
  }

  /**
   * Where `incoming`, a framework's re-sent history, leaves the stored conversation: what `useChat`
   * sends after regenerating an answer (the answer is missing) or editing a message (the messages from
   * it on differ). Undefined when the list continues the thread, holds only new messages, or shares no
   * stored message with it (see `unseenMessages` for how messages are matched; `'new'` lists never
   * diverge). The stored tail must line up with the list's end position by position, so answers that
   * all read the same do not hide a regenerate; in `'auto'` mode a lone user message that repeats the
   * first stored one is taken for a new message (it may be one), so regenerating the very first answer
   * needs `'full'`. Only the last 256 stored
   * conversation messages are searched. Pass the result to
   * {@link Thread.rewind}, then store the list with `appendUnseen`.
   *
   * @example
   * const divergence = await thread.divergence(history, { history: 'full' })
   * if (divergence) await thread.rewind({ afterSeq: divergence.afterSeq, expectedLastSeq: divergence.lastSeq })
   * await thread.appendUnseen(history, { history: 'full' })
   */
  async divergence<T extends { role: string }>(
    incoming: readonly T[],
    options: AppendUnseenOptions<T> = {},
  ): Promise<Divergence | undefined> {
    if (!Array.isArray(incoming)) invalidOptions('divergence() needs an array of messages.')
    const { toMessage, history = 'auto', window = DEFAULT_WINDOW } = options
    checkMatchingOptions({ history, window })
    const messages = this.#incomingConversation(incoming, toMessage)
    return this.#exclusive(async () => {
      await this.#refresh()
      const point = divergencePoint(this.#log.items, messages, history, window)
      return point === undefined ? undefined : { ...point, lastSeq: this.#log.lastSeq }
    })
  }

  /**
   * Moves every message after `afterSeq` to the archive in one store operation, with the seq check
   * compaction uses: a regenerated answer or an edited message replaces what followed it. Nothing is
   * deleted: archived items stay readable (`memory_query`, `memory_retrieve`, the store's archive).
   * Summaries, facts and transitions after the point that cover only what precedes it stay active.
   * Turn numbers go on from the highest ever used, as they do after a reopen.
   *
   * Refused with `STRATA_REWIND_UNSAFE` (`details.reason`) when the result would be inconsistent: the
   * point lies inside a compacted range (`compacted`), a scope was opened or closed after it
   * (`scope-changed`), or a tool result after it answers a call before it (`tool-call-split`);
   * `STRATA_SEQ_CONFLICT` when another writer appended since `expectedLastSeq` or while archiving;
   * `STRATA_INVALID_OPTIONS` for a bad argument. A refused rewind changes nothing. Emits `rewind`.
   *
   * @example
   * await thread.rewind({ afterSeq: lastUserMessage.seq }) // regenerate the answer
   */
  async rewind(options: RewindOptions): Promise<RewindResult<L>> {
    const seqOption = (name: string, value: unknown) => {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
        invalidOptions(
          `rewind(): ${name} must be a whole number of at least 0 (got ${JSON.stringify(value)}).`,
          {
            [name]: value,
          },
        )
      }
    }
    if (typeof options !== 'object' || options === null)
      invalidOptions('rewind() needs { afterSeq }, e.g. rewind({ afterSeq: 12 }).')
    seqOption('afterSeq', options.afterSeq)
    if (options.expectedLastSeq !== undefined) seqOption('expectedLastSeq', options.expectedLastSeq)
    const { afterSeq, expectedLastSeq } = options
    // A waterfall summary of items the rewind archives must not land after it.
    if (this.#waterfallRun !== undefined) await this.#waterfallRun
    const result = await this.#exclusive(async () => {
      await this.#refresh()
      const lastSeq = this.#log.lastSeq
      if (expectedLastSeq !== undefined && expectedLastSeq !== lastSeq) {
        throw new StrataError({
          code: 'STRATA_SEQ_CONFLICT',
          message: `Thread '${this.id}' changed since seq ${expectedLastSeq} (its last seq is now ${lastSeq}: another writer appended), so it was not rewound and nothing was archived. Read it again and decide anew.`,
          details: { threadId: this.id, expectedSeq: expectedLastSeq, actualSeq: lastSeq },
        })
      }
      if (afterSeq > lastSeq) {
        invalidOptions(
          `rewind(): afterSeq ${afterSeq} is past the end of thread '${this.id}' (its last seq is ${lastSeq}).`,
          { afterSeq, lastSeq },
        )
      }
      const plan = planRewind(this.#log.itemsAfter(afterSeq), afterSeq, this.id)
      if (plan.archive.length === 0) return { afterSeq, archived: [], kept: plan.keep }
      const seqs = plan.archive.map((item) => item.seq)
      try {
        await this.#deps.store.archive(this.id, { seqs, expectedSeq: lastSeq })
      } catch (error) {
        if (!StrataError.isInstance(error, 'STRATA_SEQ_CONFLICT')) throw error
        throw new StrataError({
          code: 'STRATA_SEQ_CONFLICT',
          message: `Another writer appended to thread '${this.id}' while it was being rewound after seq ${afterSeq}, so nothing was archived. Read it again and decide anew.`,
          cause: error,
          details: { threadId: this.id, afterSeq, expectedSeq: lastSeq },
        })
      }
      this.#log.removeArchived(new Set(seqs))
      return { afterSeq, archived: plan.archive, kept: plan.keep }
    })
    if (result.archived.length > 0) {
      this.#deps.events.emit('rewind', { threadId: this.id, afterSeq, archived: result.archived })
    }
    return result
  }

  /**
   * Writes messages built from the current log, with the automatic transition a new request may bring
   * and the reopening of scopes a late tool result would hide; emits the transition and starts the
   * waterfall. Returns the messages as stored.
   */
  async #appendMessages(build: () => NormalizedMessage[]): Promise<MessageItem<L>[]> {
    let closed: { count: number; event: ClosingEvent } | undefined
    let messageCount = 0
    const stored = await this.#exclusive(() =>
      this.#write(async () => {
        const messages = build()
        messageCount = messages.length
        if (messages.length === 0) return []
        const auto = await this.#autoTransitionItems(messages)
        closed = auto === undefined ? undefined : { count: auto.items.length, event: auto.event }
        return [...(auto?.items ?? []), ...this.#reopenAfterLateResults(this.#messageItems(messages))]
      }),
    )
    if (closed !== undefined) {
      const [transition, summary] = stored as [TransitionItem<L>, SummaryItem<L>]
      this.#deps.events.emit('transition', { threadId: this.id, transition, summary, ...closed.event })
    }
    if (stored.length > 0) this.#startWaterfall()
    const messages = stored.slice(closed?.count ?? 0) as MessageItem<L>[]
    return messageCount === messages.length ? messages : messages.filter((item) => item.scope === undefined)
  }

  /**
   * A tool result keeps its call's level. When scopes were opened after the call (a tool that enters a
   * task, or a result that arrives late), the result at the broader level would end their views, so
   * each such scope is reopened right after it (an opening item with `scope.continuedFrom`; the scope
   * itself, its seq and title, stay as they are).
   */
  #reopenAfterLateResults(items: UnsequencedItem<L>[]): UnsequencedItem<L>[] {
    const { ladder } = this.#deps
    const current = ladder.rank(this.level)
    let last = -1
    let broadest = current
    items.forEach((item, index) => {
      const rank = ladder.rank(item.level)
      if (rank < current) {
        last = index
        broadest = Math.min(broadest, rank)
      }
    })
    if (last < 0) return items
    const reopened = this.#log.scopes
      .filter((scope) => ladder.rank(scope.level) > broadest)
      .map((scope) => this.#reopeningItem(scope, scope.seq))
    return [...items.slice(0, last + 1), ...reopened, ...items.slice(last + 1)]
  }

  /** The opening item of a scope that goes on: its title and instructions again, marked as continued. */
  #reopeningItem(scope: OpenScope<L>, continuedFrom: number): UnsequencedItem<L> {
    const reopening = normalizeMessage({
      role: 'user',
      content: `${capitalize(scope.level)} (continued): ${scope.title}${scope.instructions ? `\n\n${scope.instructions}` : ''}`,
    })
    const item = this.#newMessageItem(
      reopening,
      scope.level,
      turnIdOf(this.#log.currentTurn),
    ) as MessageItem<L>
    item.scope = { title: scope.title, continuedFrom }
    if (scope.instructions !== undefined) item.scope.instructions = scope.instructions
    return item as UnsequencedItem<L>
  }

  /**
   * Opens a scope one level narrower than the current one and writes its opening item (a user message
   * at the new level carrying the title and instructions), so the narrower view starts with what the
   * scope is for. Broader views do not see it.
   */
  async enter(level: L, options: EnterOptions): Promise<MessageItem<L>> {
    const { ladder } = this.#deps
    ladder.assert(level)
    if (typeof options?.title !== 'string' || options.title.trim().length === 0) {
      invalidOptions(
        `enter('${level}') needs a non-empty title, e.g. enter('${level}', { title: 'Draw a house' }).`,
      )
    }
    if (options.instructions !== undefined && typeof options.instructions !== 'string') {
      invalidOptions('enter(): instructions must be a string.')
    }
    const meta = options.meta
    const opening = normalizeMessage({
      role: 'user',
      content: `${capitalize(level)}: ${options.title}${options.instructions ? `\n\n${options.instructions}` : ''}`,
      ...(meta === undefined ? {} : { meta }),
    })
    return this.#exclusive(async () => {
      const [item] = await this.#write(() => {
        const expected = ladder.child(this.level)
        if (expected !== level) {
          const hint =
            expected === undefined
              ? `'${this.level}' is already the narrowest level`
              : `enter '${expected}' first`
          throw new StrataError({
            code: 'STRATA_INVALID_SCOPE',
            message: `Cannot enter '${level}' from '${this.level}': scopes open one level narrower at a time (${hint}).`,
            details: { level, current: this.level },
          })
        }
        const item = this.#newMessageItem(opening, level, turnIdOf(this.#log.currentTurn)) as MessageItem<L>
        item.scope = { title: options.title }
        if (options.instructions !== undefined) item.scope.instructions = options.instructions
        return [item]
      })
      return item as MessageItem<L>
    })
  }

  /**
   * Closes the innermost scope: writes, at the parent level, a transition (agent-facing and user-facing
   * texts, the seq range it covers) and a scope summary. The closed scope's items leave the parent's
   * view; they stay in the log.
   */
  async exit(options: ExitOptions<L> = {}): Promise<ExitResult<L>> {
    const { outcome = 'complete' } = options
    if (!OUTCOMES.includes(outcome)) {
      invalidOptions(
        `exit(): outcome must be 'complete', 'cancelled' or 'aborted' (got ${JSON.stringify(outcome)}).`,
      )
    }
    if (options.reason !== undefined && !REASONS.includes(options.reason)) {
      invalidOptions(
        `exit(): unknown reason ${JSON.stringify(options.reason)}; use one of ${REASONS.join(', ')}.`,
      )
    }
    for (const key of ['summary', 'agentFacingMessage'] as const) {
      if (options[key] !== undefined && typeof options[key] !== 'string')
        invalidOptions(`exit(): ${key} must be a string.`)
    }
    if (options.userFacingMessage !== undefined && options.userFacingMessage !== null) {
      if (typeof options.userFacingMessage !== 'string')
        invalidOptions('exit(): userFacingMessage must be a string or null.')
    }
    if (options.level !== undefined) this.#deps.ladder.assert(options.level)

    return this.#exclusive(async () => {
      let event: ClosingEvent
      const stored = await this.#write(async () => {
        const scope = this.#log.scopes.at(-1)
        if (scope === undefined) {
          throw new StrataError({
            code: 'STRATA_NO_OPEN_SCOPE',
            message: 'exit() was called with no open scope: call enter(level, { title }) first.',
            details: { threadId: this.id },
          })
        }
        if (options.level !== undefined && options.level !== scope.level) {
          throw new StrataError({
            code: 'STRATA_SCOPE_MISMATCH',
            message: `exit({ level: '${options.level}' }) does not match the innermost open scope, '${scope.level}' ("${scope.title}"). Exit that one first.`,
            details: { level: options.level, open: scope.level },
          })
        }
        const closing = await this.#closingItems(scope, {
          outcome,
          reason: options.reason ?? this.#defaultReason(scope.level, outcome),
          ...(options.summary === undefined ? {} : { summary: options.summary }),
          ...(options.agentFacingMessage === undefined
            ? {}
            : { agentFacingMessage: options.agentFacingMessage }),
          ...(options.userFacingMessage === undefined
            ? {}
            : { userFacingMessage: options.userFacingMessage }),
        })
        event = closing.event
        return closing.items
      })
      const result = { transition: stored[0] as TransitionItem<L>, summary: stored[1] as SummaryItem<L> }
      this.#deps.events.emit('transition', { threadId: this.id, ...result, ...event! })
      return result
    })
  }

  /**
   * The normative level view of the active log (default: the current level), oldest first. The items
   * are frozen: copy one (`structuredClone`) to change it.
   */
  async view(level?: L): Promise<Item<L>[]> {
    const target = level === undefined ? this.level : this.#deps.ladder.assert(level)
    return this.#exclusive(async () => {
      await this.#refresh()
      return levelView(this.#log.items, target, this.#deps.ladder)
    })
  }

  /**
   * The context to send to a model: system prompt, memory slots, then the level view, with every tool
   * call next to its results. Deterministic: the same log gives a byte-identical result.
   */
  async context(options: ContextOptions<L> = {}): Promise<ThreadContext> {
    const level = options.level === undefined ? undefined : this.#deps.ladder.assert(options.level)
    if (options.system !== undefined && typeof options.system !== 'string') {
      invalidOptions('context(): system must be a string.')
    }
    return this.#exclusive(async () => {
      await this.#refresh()
      if (this.#budgetRequested !== undefined && this.#retry.ready(this.#deps.clock())) {
        await this.#compactToBudget('budget')
      }
      const target = level ?? this.level
      const { budget, autoTransitions } = this.#deps.compaction
      // The content channel shows results the model has not answered yet in full, the rest as citations.
      const fullView = await this.content.expand(
        levelView(this.#activeWindow(), target, this.#deps.ladder),
        this.#log.items,
      )
      // With automatic transitions, the broadest level shows only the newest closed scopes.
      const view =
        autoTransitions !== false && target === this.#deps.ladder.broadest
          ? keepRecentScopes(fullView, autoTransitions.keepScopes)
          : fullView
      // Under a budget no single item may overflow the context: an oversized one is shown cut.
      const shown =
        budget === false
          ? view
          : truncateOversized(view, {
              maxTokens: Math.floor(budget.inputBudget * OVERSIZED_SHARE),
              counter: this.#deps.tokenCounter,
              countItem: (item) => (item.type === 'message' ? this.#countTokens(item) : 0),
            })
      const messages = renderContext({
        ...(options.system === undefined ? {} : { system: options.system }),
        memoryItems: this.#log.memoryItems,
        view: shown,
      })
      const counter = this.#deps.tokenCounter
      const contextTokens = messages.reduce((sum, message) => sum + this.#countTokens(message), 0)
      const systemTokens = options.system
        ? countMessageTokens({ content: [{ type: 'text', text: options.system }] }, counter)
        : 0
      const totalTokens = this.#log.rawTokens + systemTokens
      const savedTokens = Math.max(0, totalTokens - contextTokens)
      const stats: ContextStats = {
        level: target,
        totalTokens,
        contextTokens,
        savedTokens,
        savedRatio: totalTokens === 0 ? 0 : savedTokens / totalTokens,
        itemsTotal: this.#log.itemsTotal,
        itemsVisible: view.length,
        messages: messages.length,
        tokenCounter: counter.name,
      }
      this.#lastContextTokens = contextTokens
      this.#deps.events.emit('context', { threadId: this.id, level: target, stats })
      return { messages: jsonCopy(messages), stats }
    })
  }

  /**
   * Records the provider-reported usage of the last model call. Status shows it beside Strata's own
   * estimate of that context, so the token counter can be checked against the provider.
   */
  async reportUsage(usage: UsageReport): Promise<void> {
    const valid = (value: unknown) => typeof value === 'number' && Number.isInteger(value) && value >= 0
    if (!valid(usage?.inputTokens) || (usage.outputTokens !== undefined && !valid(usage.outputTokens))) {
      invalidOptions(
        'reportUsage() needs { inputTokens } (and optional outputTokens) as non-negative integers.',
        {
          usage,
        },
      )
    }
    return this.#exclusive(async () => {
      const lastUsage: JsonObject = { inputTokens: usage.inputTokens, ts: this.#deps.clock() }
      if (usage.outputTokens !== undefined) lastUsage.outputTokens = usage.outputTokens
      if (this.#lastContextTokens !== undefined) lastUsage.estimatedTokens = this.#lastContextTokens
      const { budget } = this.#deps.compaction
      if (budget !== false) {
        const urgency = shouldCompact({
          reportedInputTokens: usage.inputTokens,
          inputBudget: budget.inputBudget,
          compactionRatio: budget.compactionRatio,
        })
        // Compaction runs before the next context is built, never inside the caller's response.
        if (urgency === 'none') {
          this.#budgetHold = undefined
        } else if (this.#budgetHoldReleased(budget)) {
          this.#budgetRequested = urgency
          this.#reportedInputTokens = usage.inputTokens
        }
      }
      await this.#updateState({ lastUsage })
    })
  }

  /**
   * Switches to an application mode (`idle`, `working-solo`, `orchestrating` by default), entering or
   * exiting scopes until the thread is at the mode's level.
   */
  async setMode(mode: string, options: { title?: string; outcome?: ScopeOutcome } = {}): Promise<void> {
    const target = Object.hasOwn(this.#deps.modes, mode) ? this.#deps.modes[mode] : undefined
    if (target === undefined) {
      throw new StrataError({
        code: 'STRATA_UNKNOWN_MODE',
        message: `Unknown mode ${JSON.stringify(mode)}: this memory's modes are ${
          Object.keys(this.#deps.modes)
            .map((name) => `'${name}'`)
            .join(', ') || 'none (pass modes to createMemory)'
        }.`,
        details: { mode },
      })
    }
    const { ladder } = this.#deps
    while (ladder.rank(this.level) > ladder.rank(target)) {
      await this.exit({ outcome: options.outcome ?? 'complete' })
    }
    while (ladder.rank(this.level) < ladder.rank(target)) {
      await this.enter(ladder.child(this.level)!, { title: options.title ?? mode })
    }
    await this.#exclusive(() => this.#updateState({ mode }))
    this.#mode = mode
  }

  /**
   * Compaction by hand: waits for a running waterfall compaction (starting one when a plan is due) and,
   * with `force` or when the budget asked for it, compacts old whole turns into an episodic summary and
   * facts and archives them. Needs the policy enabled in `createMemory({ compaction })`.
   */
  async compact({ force = false }: { force?: boolean } = {}): Promise<void> {
    const { waterfall, budget } = this.#deps.compaction
    if (waterfall === false && budget === false) {
      invalidOptions(
        'compact(): no compaction policy is enabled; pass compaction: { waterfall, budget } to createMemory.',
      )
    }
    if (waterfall !== false) {
      this.#startWaterfall({ manual: true })
      await this.#waterfallRun
    }
    if (budget !== false && (force || this.#budgetRequested !== undefined)) {
      await this.#exclusive(async () => {
        await this.#refresh()
        await this.#compactToBudget('manual')
      })
    }
  }

  /** Counts, open scopes, tokens and the last reported usage. */
  async status(): Promise<ThreadStatus<L>> {
    return this.#exclusive(async () => {
      await this.#refresh()
      const byLevel: Record<string, number> = {}
      const byType: Record<string, number> = {}
      for (const item of this.#log.items) {
        byLevel[item.level] = (byLevel[item.level] ?? 0) + 1
        byType[item.type] = (byType[item.type] ?? 0) + 1
      }
      const state = await this.#deps.store.getState(this.id)
      const status: ThreadStatus<L> = {
        threadId: this.id,
        level: this.level,
        mode: this.#mode,
        scopes: [...this.scopes],
        lastSeq: this.#log.lastSeq,
        turnId: turnIdOf(this.#log.currentTurn),
        items: { active: this.#log.items.length, archived: this.#log.archivedCount, byLevel, byType },
        tokens: { total: this.#log.rawTokens, counter: this.#deps.tokenCounter.name },
        compaction: {
          summaries: summaryCounts(this.#log.items, this.#deps.tokenCounter),
          // The same fact written again with a later confidence is one fact.
          facts: mergeFacts(
            this.#log.memoryItems.filter((item): item is FactItem<L> => item.type === 'fact'),
            [],
          ).length,
          waterfall: this.#log.waterfallCursor,
          ...(this.#budgetRequested === undefined ? {} : { budgetRequested: this.#budgetRequested }),
          ...(this.#retry.retryAt === undefined ? {} : { retryAt: this.#retry.retryAt }),
        },
      }
      if (state?.lastUsage !== undefined) status.lastUsage = state.lastUsage as ThreadStatus['lastUsage']
      const last = this.#lastCompaction ?? (state?.lastCompaction as LastCompaction | undefined)
      if (last !== undefined) status.compaction.last = last
      return status
    })
  }

  /**
   * The thread's memory as one text in the DESIGN's snapshot format: `[MEMORY:EPISODIC]` (the newest 3
   * episodic summaries), `[MEMORY:SEMANTIC]` (the newest 20 facts, the same fact once) and
   * `[RECENT TURNS]` (the user and assistant text of the last `budget.rawTailTurns` turns and the
   * current one, from the level's view). For a system prompt, a hand-off to another agent or a log.
   *
   * @example
   * const text = await thread.snapshot()
   * // [MEMORY:EPISODIC]\n1) Set up the repo …\n[MEMORY:SEMANTIC]\n- The user is Ana\n[RECENT TURNS]\nTurn 12: …
   */
  async snapshot(options: { level?: L } = {}): Promise<string> {
    const target = options.level === undefined ? this.level : this.#deps.ladder.assert(options.level)
    return this.#exclusive(async () => {
      await this.#refresh()
      const memory = this.#log.memoryItems
      const { budget } = this.#deps.compaction
      const view = levelView(this.#activeWindow(), target, this.#deps.ladder)
      return renderSnapshot({
        episodic: memory.flatMap((item) =>
          item.type === 'summary' && item.tier === 'episodic' ? [item.text] : [],
        ),
        facts: mergeFacts(
          memory.filter((item): item is FactItem<L> => item.type === 'fact'),
          [],
        ).map((fact) => fact.text),
        recentTurns: snapshotTurns(view, (budget === false ? 4 : budget.rawTailTurns) + 1),
      })
    })
  }

  /** Tool calls paired with their results by `toolCallId`, optionally for one turn. */
  async toolInteractions(options: { turnId?: string } = {}): Promise<ToolInteraction<L>[]> {
    return this.#exclusive(async () => {
      await this.#refresh()
      const all = toolInteractions(this.#log.items)
      return options.turnId === undefined
        ? all
        : all.filter((interaction) => interaction.turnId === options.turnId)
    })
  }

  /** A copy of the active log, oldest first. */
  async items(): Promise<Item<L>[]> {
    return this.#exclusive(async () => {
      await this.#refresh()
      return jsonCopy(this.#log.items)
    })
  }

  /** The history the views walk: under the waterfall, only what its summaries do not cover yet. */
  #activeWindow(): Item<L>[] {
    if (this.#deps.compaction.waterfall === false) return this.#log.items
    return this.#log.itemsAfter(this.#log.waterfallCursor.summarizedThroughSeq)
  }

  /**
   * The list as the matching reads it, mapped lazily. The one `divergence()` mapped is kept for the
   * `appendUnseen()` that follows it with the same list (an adapter asks both on every call), so its
   * messages are mapped and fingerprinted once; any other list is mapped anew.
   */
  #incomingConversation<T extends { role: string }>(
    incoming: readonly T[],
    toMessage: ((message: T) => MessageInput) | undefined,
  ): IncomingConversation<T> {
    const recent = this.#recentIncoming
    this.#recentIncoming = undefined
    if (recent?.list === incoming && recent.length === incoming.length && recent.toMessage === toMessage) {
      return recent.conversation as unknown as IncomingConversation<T>
    }
    const conversation = new IncomingConversation(incoming, (message: T, index) =>
      normalizeMessage(
        toMessage === undefined ? (message as unknown as MessageInput) : toMessage(message),
        index,
      ),
    )
    this.#recentIncoming = {
      list: incoming,
      length: incoming.length,
      toMessage,
      conversation: conversation as unknown as IncomingConversation<{ role: string }>,
    }
    return conversation
  }

  #historyTokens(): number {
    let total = 0
    for (const item of this.#log.items) if (item.type === 'message') total += this.#countTokens(item)
    return total
  }

  /**
   * What the waterfall's contexts draw on: the messages it has not summarized yet and its latest short-
   * and long-term summaries. A waterfall compaction moves the first into the second.
   */
  #waterfallTokens(): number {
    let total = 0
    for (const item of this.#activeWindow()) if (item.type === 'message') total += this.#countTokens(item)
    for (const tier of ['short-term', 'long-term'] as const) {
      const summary = this.#log.latestSummary(tier)
      if (summary !== undefined)
        total += this.#countTokens({ content: [{ type: 'text', text: summary.text }] })
    }
    return total
  }

  #summarize(items: readonly Item<L>[], options: SummarizeOptions) {
    return withTimeout(this.#deps.summarizer, {
      timeoutMs: this.#deps.compaction.summarizerTimeoutMs,
    }).summarize(items, options)
  }

  #emitEnd(
    trigger: CompactionTrigger,
    tokensBefore: number,
    started: number,
    outcome: Partial<CompactionEndEvent>,
  ) {
    const now = this.#deps.clock()
    if (outcome.error !== undefined) this.#retry.failed(now)
    else if (outcome.itemsWritten) this.#retry.succeeded()
    const event: CompactionEndEvent = {
      threadId: this.id,
      trigger,
      tokensBefore,
      tokensAfter: outcome.tokensAfter ?? tokensBefore,
      itemsArchived: 0,
      itemsWritten: 0,
      durationMs: now - started,
      ...outcome,
      ...(outcome.error === undefined ? {} : { retryAt: this.#retry.retryAt! }),
    }
    const { threadId: _, error, ...fields } = event
    const last: LastCompaction = { ...fields, ts: now }
    if (error !== undefined) last.error = error instanceof Error ? error.message : String(error)
    this.#lastCompaction = last
    // Status shows it after a restart too; a failing state write must not turn into an unhandled rejection.
    this.#exclusive(() => this.#updateState({ lastCompaction: { ...last } as JsonObject })).catch(
      () => undefined,
    )
    this.#deps.events.emit('compaction-end', event)
  }

  /**
   * Starts the waterfall in the background when a plan is due: short-term ← summary of the items
   * outside the immediate window not yet summarized; long-term ← summary of the previous short-term and
   * long-term. Contexts are never made to wait; the next one uses the summaries once they are written.
   */
  #startWaterfall({ manual = false }: { manual?: boolean } = {}) {
    const options = this.#deps.compaction.waterfall
    if (options === false || this.#waterfallRun !== undefined) return
    if (!manual && !this.#retry.ready(this.#deps.clock())) return
    const plan = planWaterfall(this.#log.items, { ...options, ...this.#log.waterfallCursor })
    if (plan === undefined) return
    const run = async () => {
      const started = this.#deps.clock()
      const tokensBefore = this.#waterfallTokens()
      this.#deps.events.emit('compaction-start', { threadId: this.id, trigger: 'waterfall', tokensBefore })
      try {
        const wanted = new Set(plan.shortTermSeqs)
        const items = this.#log.items.filter((item) => wanted.has(item.seq))
        const previousShort = this.#log.latestSummary('short-term')
        const previousLong = this.#log.latestSummary('long-term')
        const short = await this.#summarize(items, {
          tier: 'short-term',
          ...(previousShort === undefined ? {} : { previousSummary: previousShort.text }),
        })
        const written: Omit<SummaryItem<L>, 'seq'>[] = [
          this.#summaryItem('short-term', short.summary, plan.range, plan.turnIds),
        ]
        if (plan.longTermFromPrevious && previousShort !== undefined) {
          const inputs = previousLong === undefined ? [previousShort] : [previousLong, previousShort]
          const long = await this.#summarize(inputs, {
            tier: 'long-term',
            ...(previousLong === undefined ? {} : { previousSummary: previousLong.text }),
          })
          const from = previousLong?.range.fromSeq ?? previousShort.range.fromSeq
          written.push(
            this.#summaryItem('long-term', long.summary, { fromSeq: from, toSeq: previousShort.range.toSeq }),
          )
        }
        // Commit only if no other writer summarized these items and none of them was archived meanwhile
        // (a rewind or a budget compaction, in this process or another: the log is read again first);
        // else the next append re-plans.
        const stored = await this.#exclusive(async () => {
          await this.#refresh()
          return this.#write(() => {
            const active = new Set(this.#log.items.map((item) => item.seq))
            const archived = plan.shortTermSeqs.some((seq) => !active.has(seq))
            return this.#log.waterfallCursor.summarizedThroughSeq >= plan.range.fromSeq || archived
              ? []
              : (written as UnsequencedItem<L>[])
          })
        })
        this.#emitEnd('waterfall', tokensBefore, started, {
          tokensAfter: this.#waterfallTokens(),
          itemsWritten: stored.length,
          ...(stored.length === 0 ? { skipped: 'superseded' } : {}),
        })
      } catch (error) {
        // Nothing was written: the cursor did not move, so the next append plans the same compaction again.
        this.#emitEnd('waterfall', tokensBefore, started, { error })
      }
    }
    this.#waterfallRun = run().finally(() => {
      this.#waterfallRun = undefined
    })
  }

  /**
   * Budget compaction, inside the thread's exclusive section: whole turns older than the raw tail become
   * one episodic summary and new semantic facts, written first; then those turns move to the archive.
   * A summarizer failure leaves the log untouched and keeps the request for the next context.
   */
  async #compactToBudget(trigger: CompactionTrigger, attempt = 1): Promise<void> {
    const budget = this.#deps.compaction.budget
    const rawTailTurns = budget === false ? 4 : budget.rawTailTurns
    const started = this.#deps.clock()
    const tokensBefore = this.#historyTokens()
    const plan = planBudgetCompaction(this.#log.items, { rawTailTurns })
    if (plan === undefined) {
      this.#budgetRequested = undefined
      // A prompt that is large without old turns (a huge system prompt) must not re-trigger every turn.
      const first = this.#budgetHold === undefined
      this.#budgetHold = tokensBefore
      if (first) {
        this.#emitEnd(trigger, tokensBefore, started, {
          skipped: 'nothing-to-compact',
          warning:
            'The prompt is over the compaction threshold but holds no whole turn older than the raw tail: ' +
            'the system prompt, the memory slots or the current turns alone fill the budget. Shorten the ' +
            'system prompt, lower budget.rawTailTurns or raise budget.maxContextTokens. Budget compaction ' +
            'waits until the history has grown; reported once until a prompt is under the threshold.',
        })
      }
      return
    }
    this.#deps.events.emit('compaction-start', { threadId: this.id, trigger, tokensBefore })
    const seqs = new Set(plan.seqs)
    const items = this.#log.items.filter((item) => seqs.has(item.seq))
    const known = this.#log.memoryItems.filter((item): item is FactItem<L> => item.type === 'fact')
    const recalled = recalledFacts(known)
    let result: SummarizeResult
    try {
      const previous = this.#log.latestSummary('episodic')
      result = await this.#summarize(items, {
        tier: 'episodic',
        ...(previous === undefined ? {} : { previousSummary: previous.text }),
        // The facts recalled into every context: the summarizer is told not to extract them again.
        ...(recalled.length === 0 ? {} : { knownFacts: recalled }),
      })
    } catch (error) {
      this.#emitEnd(trigger, tokensBefore, started, { error })
      return
    }
    const fresh = newFacts(known, recalled, result.facts)
    const written: UnsequencedItem<L>[] = [
      this.#summaryItem(
        'episodic',
        result.summary,
        plan.range,
        plan.turns.map((turn) => turn.turnId),
      ),
      ...fresh.map((fact) => this.#factItem(fact)),
    ]
    let superseded = false
    await this.#write(() => {
      // Another writer may have compacted meanwhile: commit only if every planned item is still active.
      const active = new Set(this.#log.items.map((item) => item.seq))
      superseded = plan.seqs.some((seq) => !active.has(seq))
      return superseded ? [] : written
    })
    if (superseded) {
      if (attempt < MAX_WRITE_ATTEMPTS) return this.#compactToBudget(trigger, attempt + 1)
      this.#emitEnd(trigger, tokensBefore, started, { skipped: 'superseded' })
      return
    }
    let archived = 0
    for (let attempt = 1; ; attempt++) {
      try {
        archived = await this.#deps.store.archive(this.id, {
          seqs: plan.seqs,
          expectedSeq: this.#log.lastSeq,
        })
        break
      } catch (error) {
        // The planned turns are older than anything another writer can add: re-read and archive them.
        if (!StrataError.isInstance(error, 'STRATA_SEQ_CONFLICT') || attempt >= MAX_WRITE_ATTEMPTS)
          throw error
        await this.#refresh()
      }
    }
    this.#log.removeArchived(seqs)
    this.#budgetRequested = undefined
    const tokensAfter = this.#historyTokens()
    const warning = this.#holdIfStillOver(trigger, tokensBefore, tokensAfter)
    this.#emitEnd(trigger, tokensBefore, started, {
      tokensAfter,
      itemsArchived: archived,
      itemsWritten: written.length,
      ...(warning === undefined ? {} : { warning }),
    })
  }

  /**
   * After a budget compaction: whether the last reported prompt, less what the compaction saved, is still
   * over the threshold. Then compacting again on the next turn would not help (the rest of the prompt
   * alone is over it): budget requests wait for the history to grow, and the first time says why.
   */
  #holdIfStillOver(trigger: CompactionTrigger, tokensBefore: number, tokensAfter: number) {
    const budget = this.#deps.compaction.budget
    if (budget === false || trigger !== 'budget') return undefined
    const threshold = budget.compactionRatio * budget.inputBudget
    const estimated = this.#reportedInputTokens - (tokensBefore - tokensAfter)
    if (estimated <= threshold) {
      this.#budgetHold = undefined
      return undefined
    }
    const first = this.#budgetHold === undefined
    this.#budgetHold = tokensAfter
    if (!first) return undefined
    return (
      `The prompt is still about ${Math.round(estimated)} tokens after compacting, over the threshold of ` +
      `${Math.round(threshold)}: the system prompt, the memory slots and the raw tail alone fill the ` +
      'budget. Budget compaction waits until the history has grown; shorten the system prompt, lower ' +
      'budget.rawTailTurns or raise budget.maxContextTokens. Reported once until a prompt is under the ' +
      'threshold.'
    )
  }

  /**
   * Whether a budget request may go ahead: always, unless compaction was found unable to reach the
   * threshold; then once the history has grown by the budget's headroom above the threshold.
   */
  #budgetHoldReleased(budget: { inputBudget: number; compactionRatio: number }): boolean {
    if (this.#budgetHold === undefined) return true
    const growth = Math.max(1, (1 - budget.compactionRatio) * budget.inputBudget)
    return this.#historyTokens() - this.#budgetHold >= growth
  }

  #summaryItem(
    tier: SummaryItem['tier'],
    text: string,
    range: SeqRange,
    turnIds?: string[],
  ): Omit<SummaryItem<L>, 'seq'> {
    const item: Omit<SummaryItem<L>, 'seq'> = {
      id: this.#deps.generateId(),
      ts: this.#deps.clock(),
      level: this.#deps.ladder.broadest,
      turnId: turnIdOf(this.#log.currentTurn),
      type: 'summary',
      tier,
      text,
      range: { ...range },
      salience: tier === 'long-term' ? 0.8 : 0.6,
    }
    if (turnIds !== undefined) item.turnIds = [...turnIds]
    return item
  }

  #factItem(fact: SummarizedFact): Omit<FactItem<L>, 'seq'> {
    return {
      id: this.#deps.generateId(),
      ts: this.#deps.clock(),
      level: this.#deps.ladder.broadest,
      turnId: turnIdOf(this.#log.currentTurn),
      type: 'fact',
      text: fact.text,
      tags: [...(fact.tags ?? [])],
      confidence: fact.confidence ?? 0.5,
      salience: fact.salience ?? 0.5,
    }
  }

  #countTokens(message: { content: readonly MessagePart[] }): number {
    let total = MESSAGE_OVERHEAD_TOKENS
    for (const part of message.content) {
      let tokens = this.#partTokens.get(part)
      if (tokens === undefined) {
        tokens = countPartTokens(part, this.#deps.tokenCounter)
        this.#partTokens.set(part, tokens)
      }
      total += tokens
    }
    return total
  }

  #exclusive<T>(operation: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(operation, operation)
    this.#queue = run.catch(() => undefined)
    return run
  }

  /**
   * Catches up with other writers: new items are read and taken in; when the active log shrank
   * (another process archived items), the log is read again whole. One `head` call when nothing changed.
   */
  async #refresh() {
    const { store } = this.#deps
    const head = await store.head(this.id)
    if (head.lastSeq === this.#log.lastSeq && head.activeCount === this.#log.items.length) return
    const fresh =
      head.lastSeq > this.#log.lastSeq ? await store.read(this.id, { fromSeq: this.#log.lastSeq + 1 }) : []
    if (this.#log.items.length + fresh.length !== head.activeCount) {
      this.#log = await loadThreadLog<L>(store, this.id, this.#deps.tokenCounter)
      return
    }
    for (const item of fresh) this.#log.absorb(item as Item<L>)
  }

  /**
   * Builds items from the current derived state and appends them with the seq check; when another
   * writer got there first, reads its items and builds again.
   */
  async #write(build: () => UnsequencedItem<L>[] | Promise<UnsequencedItem<L>[]>): Promise<Item<L>[]> {
    for (let attempt = 1; ; attempt++) {
      // Large tool results and attachments go to the content store; the log keeps their citations.
      const items = await this.content.offload(await build(), this.#log.items)
      if (items.length === 0) return []
      try {
        const stored = await this.#deps.store.append(this.id, items, { expectedSeq: this.#log.lastSeq })
        for (const item of stored) this.#log.absorb(item as Item<L>)
        return stored as Item<L>[]
      } catch (error) {
        if (!StrataError.isInstance(error, 'STRATA_SEQ_CONFLICT') || attempt >= MAX_WRITE_ATTEMPTS)
          throw error
        if (attempt > 1) await backOff(attempt)
        await this.#refresh()
      }
    }
  }

  #newMessageItem(message: NormalizedMessage, level: L, turnId: string): Omit<MessageItem<L>, 'seq'> {
    const item: Omit<MessageItem<L>, 'seq'> = {
      id: message.id ?? this.#deps.generateId(),
      ts: message.ts ?? this.#deps.clock(),
      level,
      turnId,
      type: 'message',
      role: message.role,
      content: message.content,
    }
    if (message.meta !== undefined) item.meta = message.meta
    return item
  }

  #messageItems(messages: readonly NormalizedMessage[]): UnsequencedItem<L>[] {
    const log = this.#log
    const ids = new Set<string>()
    // Calls made earlier in this batch; the log's own map is only read, so an append costs O(batch).
    const batchCalls = new Map<string, { level: L; turnId: string }>()
    // New turns count on from the highest ever used; the others join the current turn.
    let next = log.turn
    let turn = log.currentTurn
    return messages.map((message, index) => {
      if (message.id !== undefined) {
        if (log.ids.has(message.id) || ids.has(message.id)) {
          throw new StrataError({
            code: 'STRATA_DUPLICATE_ITEM_ID',
            message: `message[${index}].id '${message.id}' is already in thread '${this.id}': ids must be unique; omit id to have one generated.`,
            details: { id: message.id, index },
          })
        }
        ids.add(message.id)
      }
      if (startsTurn(message)) turn = ++next
      let level = this.level
      let turnId = turnIdOf(turn)
      for (const part of message.content) {
        if (part.type === 'tool-call') batchCalls.set(part.toolCallId, { level, turnId })
      }
      const result = message.content.find((part) => part.type === 'tool-result')
      if (result !== undefined) {
        const origin = batchCalls.get(result.toolCallId) ?? log.calls.get(result.toolCallId)
        if (origin === undefined) {
          throw new StrataError({
            code: 'STRATA_UNKNOWN_TOOL_CALL',
            message: `message[${index}] holds a result for tool call '${result.toolCallId}', which this thread has never seen. Append the assistant message with the call first.`,
            details: { toolCallId: result.toolCallId, index },
          })
        }
        // A call and its result are one unit for every view: the result keeps the call's level and turn.
        level = origin.level
        turnId = origin.turnId
      }
      return this.#newMessageItem(message, level, turnId)
    }) as UnsequencedItem<L>[]
  }

  async #scopeSummary(
    items: readonly Item<L>[],
    scope: OpenScope<L>,
    outcome: ScopeOutcome,
    explicit: string | undefined,
  ): Promise<{ text: string; name: string; error?: { summarizerError: unknown } }> {
    if (explicit !== undefined) return { text: explicit, name: 'explicit' }
    const options = { tier: 'scope' as const, scope: { title: scope.title, level: scope.level, outcome } }
    try {
      const { summary } = await this.#deps.summarizer.summarize(items, options)
      return { text: summary, name: this.#deps.summarizer.name }
    } catch (error) {
      // A scope must be closable even when an LLM summarizer is down: the offline summary stands in.
      const { summary } = await fallbackSummarizer.summarize(items, options)
      return { text: summary, name: fallbackSummarizer.name, error: { summarizerError: error } }
    }
  }

  /**
   * The transition and scope summary that close `scope` at its parent level, built from the current log:
   * the scope's items leave the parent's view, the transition stands in for them.
   */
  async #closingItems(
    scope: OpenScope<L>,
    options: {
      outcome: ScopeOutcome
      reason: TransitionReason
      summary?: string
      agentFacingMessage?: string
      userFacingMessage?: string | null
    },
  ): Promise<{ items: UnsequencedItem<L>[]; event: ClosingEvent }> {
    const parent = this.#deps.ladder.parent(scope.level)!
    const scopeItems = this.#log.itemsAfter(scope.seq)
    const written = await this.#scopeSummary(scopeItems, scope, options.outcome, options.summary)
    const range = { fromSeq: scope.seq, toSeq: this.#log.lastSeq }
    const rank = this.#deps.ladder.rank(scope.level)
    // Actions: the scope's own items and its nested scopes', not tool results nor reopened openings.
    const actions = scopeItems.filter(
      (item) =>
        !(item.type === 'message' && (item.role === 'tool' || item.scope !== undefined)) &&
        this.#deps.ladder.rank(item.level) >= rank,
    ).length
    const base = { level: parent, turnId: turnIdOf(this.#log.currentTurn), ts: this.#deps.clock() }
    const transition: Omit<TransitionItem<L>, 'seq'> = {
      ...base,
      id: this.#deps.generateId(),
      type: 'transition',
      fromLevel: scope.level,
      reason: options.reason,
      agentFacingMessage:
        options.agentFacingMessage ?? `[ACTIONS]: <${actions} ${scope.level} actions filtered for brevity>`,
      userFacingMessage:
        options.userFacingMessage === undefined
          ? `${capitalize(scope.level)} "${scope.title}" ${closingWords(options.outcome, options.reason)}.`
          : options.userFacingMessage,
      range,
    }
    const summary: Omit<SummaryItem<L>, 'seq'> = {
      ...base,
      id: this.#deps.generateId(),
      type: 'summary',
      tier: 'scope',
      text: written.text,
      range,
      salience: 0.5,
    }
    return {
      items: [transition, summary] as UnsequencedItem<L>[],
      event: { title: scope.title, summarizer: written.name, ...written.error },
    }
  }

  /**
   * Automatic transitions, checked as a new request arrives (so no turn is ever cut): when the current
   * scope is past a limit, the items that close the part seen so far and reopen the same scope, so the
   * application stays at its level and the scope goes on with a fresh view.
   */
  async #autoTransitionItems(
    messages: readonly NormalizedMessage[],
  ): Promise<{ items: UnsequencedItem<L>[]; event: ClosingEvent } | undefined> {
    const options = this.#deps.compaction.autoTransitions
    const first = messages[0]
    if (options === false || first === undefined || !startsTurn(first)) return undefined
    const scope = this.#log.scopes.at(-1)
    if (scope === undefined) return undefined
    let scopeTokens: number | undefined
    if (options.maxScopeTokens !== undefined) {
      scopeTokens = 0
      for (const item of this.#log.itemsAfter(scope.seq - 1))
        if (item.type === 'message') scopeTokens += this.#countTokens(item)
    }
    const plan = planAutoTransition(this.#log.items, this.#deps.ladder, scope.level, {
      now: this.#deps.clock(),
      narrowest: options.narrowest,
      middle: options.middle,
      ...(options.maxScopeTokens === undefined ? {} : { maxScopeTokens: options.maxScopeTokens }),
      ...(scopeTokens === undefined ? {} : { scopeTokens }),
    })
    if (plan === undefined) return undefined
    const closing = await this.#closingItems(scope, { outcome: 'complete', reason: plan.reason })
    return { items: [...closing.items, this.#reopeningItem(scope, scope.seq)], event: closing.event }
  }

  #defaultReason(level: L, outcome: ScopeOutcome): TransitionReason {
    if (outcome !== 'complete') return outcome
    return level === this.#deps.ladder.narrowest ? 'task-complete' : 'project-complete'
  }

  async #updateState(patch: JsonObject) {
    const state = (await this.#deps.store.getState(this.id)) ?? {}
    await this.#deps.store.setState(this.id, { ...state, ...patch })
  }
}

const fallbackSummarizer = patternSummarizer()

/** Summary items of the active log by tier, with their text's tokens. */
function summaryCounts(items: readonly Item[], counter: TokenCounter) {
  const counts: Record<SummaryTier, { count: number; tokens: number }> = {
    scope: { count: 0, tokens: 0 },
    'short-term': { count: 0, tokens: 0 },
    'long-term': { count: 0, tokens: 0 },
    episodic: { count: 0, tokens: 0 },
  }
  for (const item of items) {
    if (item.type !== 'summary') continue
    counts[item.tier].count++
    counts[item.tier].tokens += counter.count(item.text)
  }
  return counts
}
const outcomeWords: Record<ScopeOutcome, string> = {
  complete: 'completed',
  cancelled: 'was cancelled',
  aborted: 'was aborted',
}
const limitWords: Partial<Record<TransitionReason, string>> = {
  'size-limit': 'reached its size limit; the part so far was summarized and it goes on',
  'time-limit': 'was idle past its time limit; the part so far was summarized and it goes on',
  'token-budget': 'reached its token limit; the part so far was summarized and it goes on',
}
const closingWords = (outcome: ScopeOutcome, reason: TransitionReason) =>
  limitWords[reason] ?? outcomeWords[outcome]

/** What a `transition` event adds to the items that close a scope. */
interface ClosingEvent {
  title: string
  summarizer: string
  summarizerError?: unknown
}

/** The texts of the facts a context shows (the newest {@link MAX_FACTS}, each once). */
function recalledFacts(known: readonly FactItem[]): string[] {
  return mergeFacts(known, [])
    .slice(-MAX_FACTS)
    .map((fact) => fact.text)
}

/**
 * The facts worth writing. A fact the thread already knows (same text once normalised) is written again
 * when its confidence changed, or when it had dropped out of the facts a context shows: found again, it
 * is recent again. A fact recalled into the context with the same confidence is not written anew.
 */
function newFacts(
  known: readonly FactItem[],
  recalled: readonly string[],
  incoming: readonly SummarizedFact[],
): SummarizedFact[] {
  const before = new Map<string, FactItem>()
  for (const fact of mergeFacts(known, [])) before.set(normalizeFactText(fact.text), fact)
  const shown = new Set(recalled.map(normalizeFactText))
  const fresh: SummarizedFact[] = []
  for (const fact of mergeFacts<SummarizedFact>([], incoming)) {
    const earlier = before.get(normalizeFactText(fact.text))
    if (earlier === undefined) {
      fresh.push(fact)
      continue
    }
    const confidence = fact.confidence ?? earlier.confidence
    const shownAlready = shown.has(normalizeFactText(fact.text))
    if (shownAlready && confidence === earlier.confidence) continue
    // Written as the thread first wrote it, with the tags of both and the latest confidence.
    const [merged] = mergeFacts<SummarizedFact>([{ text: earlier.text, tags: earlier.tags }], [fact])
    fresh.push({ ...merged!, ...(confidence === undefined ? {} : { confidence }) })
  }
  return fresh
}
