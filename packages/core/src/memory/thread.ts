import type { CompactionPolicies } from '../compaction/compaction-policies'
import { CompactionReport } from '../compaction/compaction-report'
import {
  type CompactionDependencies,
  type CompactionState,
  threadPolicies,
} from '../compaction/policy-registry'
import type { ContentBinding, ThreadContent } from '../content'
import type { ContextMessage } from '../context'
import type { UnseenMessagesResult } from '../history'
import type { Item, MessageInput, MessageItem, NormalizedMessage } from '../items'
import type { Resource } from '../resources'
import { contextSpanAttributes, traced } from '../telemetry'
import { ScopeClosing } from '../thread-state/scope-closing'
import { type HoldOptions, type ThreadHold, ThreadHolds } from '../thread-state/thread-hold'
import type { OpenScope, ThreadLog } from '../thread-state/thread-log'
import { ThreadState } from '../thread-state/thread-state'
import { WritePath } from '../thread-state/write-path'
import type { ToolInteraction } from '../views'
import { ContextAssembly } from './context-assembly'
import { MessageAppend, normalizeInputs } from './message-append'
import {
  type MarkFailedOptions,
  markFailed,
  type RequestFailure,
  type RequestFailureParts,
  requestFailures,
} from './request-failures'
import { Scopes } from './scopes'
import { ThreadBudget } from './thread-budget'
import { threadContent } from './thread-content'
import { threadDependencies } from './thread-dependencies'
import type { ThreadResourceLink } from './thread-resource'
import { rewindThread, type ThreadRewindParts, threadDivergence } from './thread-rewind'
import { reportUsage, type ThreadStatusParts, threadStatus } from './thread-status'
import {
  type Transcript,
  type TranscriptOptions,
  type TranscriptParts,
  threadTranscript,
} from './thread-transcript'
import type {
  AppendFitOptions,
  AppendMessageOptions,
  AppendUnseenOptions,
  ContextOptions,
  Divergence,
  DivergenceOptions,
  EnterOptions,
  ExitOptions,
  ExitResult,
  RewindOptions,
  RewindResult,
  ScopeOutcome,
  ThreadContext,
  ThreadStatus,
  UnseenOptions,
  UsageReport,
} from './thread-types'

export type { HoldOptions, ThreadHold } from '../thread-state/thread-hold'
export type { ThreadDependencies } from '../thread-state/thread-state'
export type { MarkFailedOptions, RequestFailure } from './request-failures'
export type { Transcript, TranscriptOptions } from './thread-transcript'
export type * from './thread-types'

/**
 * One conversation's memory: an append-only log of items tagged with levels and turns, and the views
 * and contexts built from it. Get one with `memory.thread(id)`. Operations on one thread object run one
 * at a time; writers in other processes are detected by the store's seq check and retried.
 */
export class Thread<L extends string = string> {
  readonly id: string
  readonly #state: CompactionState<L>
  readonly #writes: WritePath<L>
  readonly #scopes: Scopes<L>
  readonly #append: MessageAppend<L>
  readonly #contexts: ContextAssembly<L>
  readonly #policies: CompactionPolicies<L>
  readonly #rewindParts: ThreadRewindParts<L>
  readonly #statusParts: ThreadStatusParts<L>
  readonly #failureParts: RequestFailureParts<L>
  readonly #transcriptParts: TranscriptParts<L>
  readonly #holds: ThreadHolds
  readonly #resource: ThreadResourceLink | undefined

  /**
   * The content channel: large results stored once beside the history, and what the memory tools
   * (`memoryTools(thread)`) read and write. See the core README, "Content channel".
   */
  readonly content: ThreadContent

  /** @internal Use `memory.thread(id)`. */
  constructor(
    id: string,
    memoryDeps: CompactionDependencies<L>,
    log: ThreadLog<L>,
    mode: string | undefined,
    binding: ContentBinding = { owner: id, access: 'own' },
    lastUsage?: unknown,
    resource?: ThreadResourceLink,
    budget: ThreadBudget = new ThreadBudget(),
  ) {
    this.id = id
    this.#resource = resource
    const holds = new ThreadHolds({
      threadId: id,
      store: () => memoryDeps.store,
      refresh: () => writes.exclusive(() => writes.refresh()),
      ...(memoryDeps.holds === undefined ? {} : { registry: memoryDeps.holds }),
    })
    this.#holds = holds
    const deps = threadDependencies(memoryDeps, holds, budget)
    const state = new ThreadState(id, deps, log, mode)
    const writes = new WritePath(state)
    // Budget compaction plans over every active item: an open that sealed some reads them back first.
    budget.onBudget = () => writes.exclusive(() => state.log.unsealAfter(0))
    const report = new CompactionReport(state, writes)
    const closing = new ScopeClosing(state)
    this.#state = state
    this.#writes = writes
    // Every compaction policy the registry lists, met only through their contract.
    const policies = threadPolicies({ state, writes, report, closing, lastUsage })
    this.#policies = policies
    this.#scopes = new Scopes(state, writes, closing)
    this.#append = new MessageAppend(state, writes, closing, policies)
    this.#contexts = new ContextAssembly(state, writes, policies, resource)
    if (resource !== undefined) state.afterAppend = (items) => resource.afterAppend(items)
    this.#rewindParts = { state, writes, append: this.#append, policies }
    this.#statusParts = { state, writes, contexts: this.#contexts, policies, report }
    this.#failureParts = { state, writes }
    this.#transcriptParts = { state, writes }
    this.content = threadContent({ state, binding, contexts: this.#contexts, resource })
  }

  /** The current level: the innermost open scope's, or the broadest when none is open. */
  get level(): L {
    return this.#state.level
  }

  /**
   * The resource the thread belongs to (`memory.thread(id, { resource })`, or the binding the store
   * held when it was opened), or undefined. Its working memory and recalls are shown in the context.
   */
  get resource(): Resource | undefined {
    return this.#resource?.resource()
  }

  /** The current mode, when the application uses modes (`setMode`). */
  get mode(): string | undefined {
    return this.#state.mode
  }

  /** The open scopes, outermost first. */
  get scopes(): readonly OpenScope<L>[] {
    return this.#state.log.scopes.map((scope) => ({ ...scope }))
  }

  /**
   * Appends messages tagged with the current level and turn. A user message starts a new turn; a tool
   * result takes the level and turn of its call. Validates everything before writing: on any error
   * nothing is stored.
   *
   * AI SDK `ModelMessage`s (typed tool outputs) need `{ format: 'ai-sdk' }`: without a format, an
   * output shaped exactly like the AI SDK's typed output is refused as ambiguous. A UIMessage (parts,
   * no content) is refused with a pointer to `convertToModelMessages`.
   *
   * With `{ fit: { system, alongside } }` (under `compaction.budget`), a message after which the context
   * could not fit the input budget is refused with `STRATA_BUDGET_EXCEEDED` before anything is stored.
   *
   * @example
   * await thread.append({ role: 'user', content: 'Draw a house' })
   * await thread.append(await convertToModelMessages(uiMessages), { format: 'ai-sdk' })
   */
  append(
    input: MessageInput | readonly MessageInput[],
    options?: AppendMessageOptions & { format?: 'core' },
  ): Promise<MessageItem<L>[]>
  /** AI SDK `ModelMessage`s (or one), mapped by `fromModelMessage` before they are stored. */
  append(
    input: object | readonly object[],
    options: { format: 'ai-sdk'; fit?: AppendFitOptions },
  ): Promise<MessageItem<L>[]>
  async append(input: unknown, options: AppendMessageOptions = {}): Promise<MessageItem<L>[]> {
    const { format, fit } = options ?? {}
    const messages = normalizeInputs(input, format)
    return this.#append.appendMessages(() => messages, this.#fitCheck(fit))
  }

  /**
   * Refuses with `STRATA_BUDGET_EXCEEDED`, writing nothing, messages whose context could not fit the
   * input budget beside `fit` — the check `append` and `appendUnseen` make with their `fit` option, on
   * its own, for a caller that must know before it changes the thread in another way (an adapter
   * before it rewinds for an edited request). Resolves when they would fit, or without a budget.
   */
  checkFit(input: MessageInput | readonly MessageInput[], fit: AppendFitOptions): Promise<void> {
    const messages = normalizeInputs(input, 'core')
    return this.#writes.exclusive(async () => {
      await this.#writes.refresh()
      await this.#contexts.checkFit(messages, fit)
    })
  }

  /** The `fit` check of an append, when asked for (see {@link AppendFitOptions}). */
  #fitCheck(fit: AppendFitOptions | undefined) {
    return fit === undefined
      ? undefined
      : (messages: readonly NormalizedMessage[]) => this.#contexts.checkFit(messages, fit)
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
   * With `fit: { system, alongside }` (under `compaction.budget`) the new messages are refused with
   * `STRATA_BUDGET_EXCEEDED` before anything is written when the context with them could not fit the
   * input budget: the system prompt, the text sent alongside and what the fit cannot leave out (the
   * current request and the scopes' opening items, at their smallest). Adapters pass what they will
   * pass to `context()`, so a call refused for its budget leaves the thread exactly as it was.
   *
   * @example
   * await thread.appendUnseen(fullHistoryFromTheClient, { history: 'full' })
   * await thread.appendUnseen(newMessages, { fit: { system, alongside: agentPrompt } })
   */
  async appendUnseen<T extends { role: string }>(
    incoming: readonly T[],
    options: AppendUnseenOptions<T> = {},
  ): Promise<MessageItem<L>[]> {
    return this.#append.appendUnseen(incoming, options, this.#fitCheck(options.fit))
  }

  /**
   * The messages of `incoming` the thread has not stored, told as `appendUnseen` tells them (the same
   * options, the same stored tail of `window` messages: see `unseenMessages` for the rule), with
   * nothing written and no hold taken: for a read-only request, which shows its unstored messages after
   * the context. Costs the compared tail, not the history: unlike `unseenMessages(await thread.items())`
   * it reads no whole log back on a thread whose open sealed items. `aligned: false` is returned, not
   * refused; a malformed message it compares is refused as `appendUnseen` refuses it.
   *
   * @example
   * const { unseen, aligned } = await thread.unseen(messages, { history: 'full', toMessage })
   */
  async unseen<T extends { role: string }>(
    incoming: readonly T[],
    options: UnseenOptions<T> = {},
  ): Promise<UnseenMessagesResult<T>> {
    return this.#append.unseen(incoming, options)
  }

  /**
   * Where `incoming`, a framework's re-sent history, leaves the stored conversation: what `useChat`
   * sends after regenerating an answer (the answer is missing) or editing a message (the messages from
   * it on differ). Undefined when the list continues the thread, holds only new messages, or shares no
   * stored message with it (see `unseenMessages` for how messages are matched; `'new'` lists never
   * diverge). The stored tail must line up with the list's end position by position, so answers that
   * all read the same do not hide a regenerate; in `'auto'` mode a lone user message that repeats the
   * first stored one is taken for a new message (it may be one), so regenerating the very first answer
   * needs `'full'`. A list that begins inside the conversation (another middleware replaced its
   * older messages with a summary) needs `partial: true`. Only the last 256 stored
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
    options: DivergenceOptions<T> = {},
  ): Promise<Divergence | undefined> {
    return threadDivergence(this.#rewindParts, incoming, options)
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
    return rewindThread(this.#rewindParts, options)
  }

  /**
   * Opens a scope at any level narrower than the current one (a worker at the broadest level may take a
   * task directly) and writes its opening item (a user message at the new level carrying the title and
   * instructions), so the narrower view starts with what the scope is for. Broader views do not see it.
   * The current level or a broader one is `STRATA_INVALID_SCOPE`.
   *
   * @example
   * await thread.enter('task', { title: 'Fix the login bug' }) // from 'global' or 'project'
   */
  async enter(level: L, options: EnterOptions): Promise<MessageItem<L>> {
    return this.#scopes.enter(level, options)
  }

  /**
   * Closes the innermost scope: writes, at the enclosing scope's level (the level it was entered from),
   * a transition (agent-facing and user-facing texts, the seq range it covers) and a scope summary, and
   * the thread returns to that level. The closed scope's items leave that level's view; they stay in
   * the log.
   */
  async exit(options: ExitOptions<L> = {}): Promise<ExitResult<L>> {
    return this.#scopes.exit(options)
  }

  /**
   * The normative level view of the active log (default: the current level), oldest first. The items
   * are frozen: copy one (`structuredClone`) to change it.
   */
  async view(level?: L): Promise<Item<L>[]> {
    return this.#contexts.view(level)
  }

  /**
   * The context to send to a model: system prompt, memory slots, then the level view, with every tool
   * call next to its results. Deterministic: the same log gives a byte-identical result. Read-only: a
   * preview of another level changes nothing. Under `compaction.budget` it is never over the input
   * budget (fitted as the core README's "Token budget" says); `STRATA_BUDGET_EXCEEDED` when the system
   * prompt and the current request alone are. The messages and their part lists are the caller's; the
   * parts are frozen (most are the log's own, handed out without a copy): copy one (`structuredClone`)
   * to change it.
   */
  context(options?: ContextOptions<L>): Promise<ThreadContext>
  /**
   * The context with each message made into what the caller sends (a framework's message type) by
   * `map`, which gets the context's own messages rather than copies: theirs to read, not to keep or
   * change (their parts are frozen; what `map` returns must not hold a message or its part list). For
   * adapters that convert every message anyway: the copy `context()` hands out is skipped.
   */
  context<M>(options: ContextOptions<L>, map: (message: ContextMessage) => M): Promise<ThreadContext<M>>
  async context<M = ContextMessage>(
    options: ContextOptions<L> = {},
    map?: (message: ContextMessage) => M,
  ): Promise<ThreadContext<M>> {
    const { tracer } = this.#state.deps
    if (tracer === undefined) return this.#contexts.context(options, map)
    const attributes = { 'strata.thread.id': this.id, 'strata.level': options.level ?? this.level }
    return traced(tracer, 'strata.context', attributes, async (span) => {
      const built = await this.#contexts.context(options, map)
      span?.setAttributes(contextSpanAttributes(built.stats))
      return built
    })
  }

  /**
   * Records the provider-reported usage of the last model call. Status shows it beside Strata's own
   * estimate of that context, so the token counter can be checked against the provider.
   */
  async reportUsage(usage: UsageReport): Promise<void> {
    return reportUsage(this.#statusParts, usage)
  }

  /**
   * Switches to an application mode (`idle`, `working-solo`, `orchestrating` by default), entering or
   * exiting scopes until the thread is at the mode's level.
   */
  async setMode(mode: string, options: { title?: string; outcome?: ScopeOutcome } = {}): Promise<void> {
    return this.#scopes.setMode(mode, options)
  }

  /**
   * Compaction by hand: waits for a running waterfall compaction (starting one when a plan is due) and,
   * with `force` or when the budget asks for it (the current context's estimate, or the last usage
   * report, over its threshold), compacts old whole turns and old steps of the newest turns into an
   * episodic summary and facts and archives them. Needs the policy enabled in `createMemory({ compaction })`.
   */
  async compact({ force = false }: { force?: boolean } = {}): Promise<void> {
    return this.#policies.compact({ force })
  }

  /**
   * Holds the thread for one request (a `generate`/`stream`/`invoke` of the agent with all its steps,
   * until its last write or a human-in-the-loop interrupt): until the hold is released, another
   * `hold()` of this thread — through this thread object, another memory object or another process —
   * is refused with `STRATA_THREAD_BUSY` (`details.threadId`, and `expiresAt` when known), and so is
   * every write of the thread that does not come through this thread object, before it writes
   * anything. A holder that dies stops renewing its lease, which lapses after `ttlMs`. Needs a store
   * with the lease capability (contract `v2`, `flags.leases`); otherwise `STRATA_STORE_CAPABILITY`.
   * The hold belongs to this thread object: writes through it while it is held count as the holder's.
   *
   * @example
   * await using hold = await thread.hold() // STRATA_THREAD_BUSY → answer 409
   * await thread.append({ role: 'user', content: 'Hello' })
   */
  async hold(options?: HoldOptions): Promise<ThreadHold> {
    return this.#holds.hold(options)
  }

  /**
   * Settles when the thread's background work has ended: a waterfall or budget compaction started after
   * a write. Never rejects (a failed compaction is reported on `compaction-end` and retried). Hand it to
   * the platform so a serverless function is not stopped before it ends, e.g. `after(thread.settled())`
   * in a Next.js route, or `ctx.waitUntil(thread.settled())`.
   */
  async settled(): Promise<void> {
    await Promise.all([this.#policies.settled(), this.#resource?.settled()])
    // A compaction the budget ran queues the digest of what it archived.
    await this.#writes.settled()
  }

  /**
   * Marks a stored request failed: its model call failed after the user message was stored (a provider
   * error, a dropped stream). That is not a refusal: the message stays in the log, which does not
   * change (it is append-only); the mark goes in the thread's stored state, so another process, a
   * reloaded chat or a retry sees it. Marks the turn's request (the newest user message that started a
   * turn) unless `itemId` names another active user message. Marking a request again replaces its
   * mark. A mark counts until an assistant message is stored after it (the retry's answer) or its
   * message leaves the active log (a rewind); the state keeps the newest 20 marks that count.
   *
   * A write like any other: refused with `STRATA_THREAD_BUSY` while another request holds the thread
   * (the holder's thread object passes). An `itemId` that names no active user message (a scope's
   * opening is not a request), an empty `reason` or a thread without a request is
   * `STRATA_INVALID_OPTIONS`, and the state stays as it was. The adapters call it on a provider
   * failure; see the core README, "Failed requests".
   *
   * @example
   * try { await model.generate(context) } catch (error) {
   *   await thread.markFailed({ reason: error.message, code: error.code })
   *   throw error
   * }
   */
  async markFailed(options: MarkFailedOptions): Promise<RequestFailure> {
    return markFailed(this.#failureParts, options)
  }

  /**
   * The failed requests that still count (see {@link Thread.markFailed}), oldest first: each user
   * message whose model call failed and that no answer followed yet. Empty when none.
   */
  async failures(): Promise<RequestFailure[]> {
    return requestFailures(this.#failureParts)
  }

  /** Counts, open scopes, tokens, the last reported usage and the failed requests. */
  async status(): Promise<ThreadStatus<L>> {
    return threadStatus(this.#statusParts)
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
    return this.#contexts.snapshot(options)
  }

  /** Tool calls paired with their results by `toolCallId`, optionally for one turn. */
  async toolInteractions(options: { turnId?: string } = {}): Promise<ToolInteraction<L>[]> {
    return this.#contexts.toolInteractions(options)
  }

  /**
   * The conversation as people saw it, for a chat that reloads it: messages (scope openings
   * included) and transitions, oldest first, with every offloaded part (a large tool result, a long
   * user message, an inline file) read back from the content channel whole. Turns a compaction
   * archived are included unless `archived: false`; messages a rewind archived (a regenerated answer,
   * an edited message and what followed it) never are. `turns` pages from the end, `beforeSeq` reads
   * the page before one already read. Summaries and facts are memory, not chat: left out.
   *
   * @example
   * const { items, fromSeq, more } = await thread.transcript({ turns: 20 })
   * const earlier = more ? await thread.transcript({ turns: 20, beforeSeq: fromSeq }) : undefined
   */
  async transcript(options: TranscriptOptions = {}): Promise<Transcript<L>> {
    return threadTranscript(this.#transcriptParts, options, (id) => this.content.get(id))
  }

  /** A copy of the active log, oldest first. */
  async items(): Promise<Item<L>[]> {
    return this.#contexts.items()
  }
}
