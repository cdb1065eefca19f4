import { mergeFacts, renderSnapshot, snapshotTurns } from '../compaction'
import type { CompactionPolicies } from '../compaction/compaction-policies'
import type { CompactionState } from '../compaction/policy-registry'
import { briefPart, partSource } from '../content/content-reference'
import type { ActiveItem } from '../content/content-spaces'
import type { ContextMessage, ContextStats } from '../context'
import { fitToBudget } from '../context/budget-fit'
import { cutPart } from '../context/cut-part'
import { renderHead } from '../context/render-context'
import { handOutView, type RenderedView, renderedView } from '../context/rendered-view'
import { invalidOptions, StrataError } from '../errors'
import type { FactItem, Item, MessagePart, NormalizedMessage } from '../items'
import { jsonCopy } from '../items/json'
import { startsTurn } from '../items/turns'
import { deepFreeze } from '../thread-state/frozen-items'
import { turnIdOf } from '../thread-state/thread-log'
import type { WritePath } from '../thread-state/write-path'
import type { TokenCounter } from '../tokens'
import { countMessageTokens } from '../tokens'
import { levelView, type ToolInteraction, toolInteractions } from '../views'
import type { ThreadResourceLink } from './thread-resource'
import type { AppendFitOptions, ContextOptions, ThreadContext } from './thread-types'

/** What a thread shows: level views, model contexts, snapshots, tool interactions and the raw log. */
export class ContextAssembly<L extends string> {
  readonly #state: CompactionState<L>
  readonly #writes: WritePath<L>
  readonly #policies: CompactionPolicies<L>
  readonly #resource: ThreadResourceLink | undefined
  /** The tokens of the last context built, for `reportUsage`. */
  lastContextTokens: number | undefined
  /** The view the last context without a budget rendered, which the next one extends (see `renderedView`). */
  #rendered: RenderedView | undefined
  /** The log whose stored part counts the contexts took in (see `ThreadState.takeStoredCounts`). */
  #countsOf: object | undefined

  constructor(
    state: CompactionState<L>,
    writes: WritePath<L>,
    policies: CompactionPolicies<L>,
    resource?: ThreadResourceLink,
  ) {
    this.#state = state
    this.#writes = writes
    this.#policies = policies
    this.#resource = resource
  }

  /** Reads what other writers stored first, then runs `read` in the thread's exclusive section. */
  #fresh<T>(read: () => T | Promise<T>): Promise<T> {
    return this.#writes.exclusive(async () => {
      await this.#writes.refresh()
      return read()
    })
  }

  view(level?: L): Promise<Item<L>[]> {
    const state = this.#state
    const target = level === undefined ? state.level : state.deps.ladder.assert(level)
    // Only the view's items are handed out: only they need freezing, not the whole log.
    return this.#fresh(() => state.log.handOut(levelView(state.log.entries, target, state.deps.ladder)))
  }

  /** The level view of the active window, with the items and view ids the content channel reads. */
  history() {
    const state = this.#state
    return this.#fresh(async () => {
      const view = state.contextView(state.level)
      // Sealed items read back for the memory tools, which reach everything the thread held.
      const items: readonly Item<L>[] = await state.log.full(0, { frozen: true })
      return { items, viewIds: new Set(view.map((item) => item.id)), level: state.level }
    })
  }

  /** The ids of the items the current level's view shows (what `memory_query` calls in view). */
  viewIds(): Promise<ReadonlySet<string>> {
    const state = this.#state
    return this.#fresh(() => new Set(state.contextView(state.level).map((item) => item.id)))
  }

  /**
   * The active item with id `itemId`, whole (a sealed one read back from the store for this call
   * only: one item, not the log), and whether the current level's view shows it; undefined when no
   * active item has that id. What `memory_retrieve` reads for an item id.
   */
  activeItem(itemId: string): Promise<ActiveItem | undefined> {
    const state = this.#state
    return this.#fresh(async () => {
      const entries = state.log.entries
      let index = entries.length - 1
      while (index >= 0 && entries[index]!.id !== itemId) index--
      if (index < 0) return undefined
      const [item] = await state.log.whole([entries[index]!])
      const inView = state.contextView(state.level).some((shown) => shown.id === itemId)
      return { item: item!, inView }
    })
  }

  context<M = ContextMessage>(
    options: ContextOptions<L>,
    map?: (message: ContextMessage) => M,
  ): Promise<ThreadContext<M>> {
    const state = this.#state
    const { deps } = state
    const level = options.level === undefined ? undefined : deps.ladder.assert(options.level)
    if (options.system !== undefined && typeof options.system !== 'string') {
      invalidOptions('context(): system must be a string.')
    }
    if (options.alongside !== undefined && typeof options.alongside !== 'string') {
      invalidOptions('context(): alongside must be a string: the text sent with the context but outside it.')
    }
    if (map !== undefined && typeof map !== 'function') {
      invalidOptions('context(options, map): map must be a function from a context message to what you send.')
    }
    // Read-only: a compaction the last write or usage report started has run first (it is queued in
    // the thread's exclusive section ahead of this), and nothing here writes.
    return this.#fresh(async () => {
      const target = level ?? state.level
      const preview = target !== state.level
      // The input budget the policies hold the context to (the budget's, calibrated), or none.
      const budget = this.#policies.inputBudget()
      // The level's view with the turn's request in it: the budget fit keeps it (`keptIds`).
      // Frozen once (each item the first time a context shows it): the context's parts are then the
      // log's own, handed out without a copy, and what is worked out per item is cached.
      const logView = state.log.handOut(state.contextView(target))
      // Once a log (opened, or read again whole): the parts it shows unchanged are counted already.
      if (this.#countsOf !== state.log) {
        this.#countsOf = state.log
        state.takeStoredCounts(logView)
      }
      // The content channel shows results the model has not answered yet in full, the rest as citations.
      const fullView = await state.content.expand(logView, state.log.entries)
      // The policies may narrow the view (the automatic transitions keep the newest closed scopes).
      const view = this.#policies.beforeContext(fullView, target)
      const counter = deps.tokenCounter
      const textTokens = (text: string | undefined) =>
        text ? countMessageTokens({ content: [{ type: 'text', text }] }, counter) : 0
      const systemTokens = textTokens(options.system)
      const alongsideTokens = textTokens(options.alongside)
      // The resource's slots: under a budget the recalls go first, then the working memory, when the
      // context cannot fit them beside what it must keep.
      const slots = (await this.#resource?.slots(state.log.request)) ?? {}
      let pinned = [slots.working, slots.recall].filter((slot) => slot !== undefined)
      const tokensOf = (slots: readonly string[]) => slots.reduce((sum, slot) => sum + textTokens(slot), 0)
      let pinnedTokens = tokensOf(pinned)
      let fitted:
        | { messages: ContextMessage[]; omitted: number }
        | { messages: ContextMessage[]; omitted: number; tokens: number }
      if (budget === undefined) {
        // Only what the view added since the last context is rendered (the rest is reused): the same
        // messages `renderContext` gives, handed out as it hands them out.
        const head = renderHead({
          ...(options.system === undefined ? {} : { system: options.system }),
          pinned,
          memoryItems: state.log.memoryItems,
        })
        const rendered = renderedView(view, this.#rendered, (message) => {
          for (const part of message.content) if (!Object.isFrozen(part)) deepFreeze(part)
          return state.countTokens(message)
        })
        this.#rendered = rendered
        let tokens = rendered.tokens
        for (const message of head) tokens += state.countTokens(message)
        // Mapped, the rendered messages go to `map` as they are: no copy is made only to be converted.
        const messages =
          map === undefined ? handOutView(rendered, handOut(head)) : handOut(head).concat(rendered.messages)
        fitted = { messages, omitted: 0, tokens }
      } else {
        // The slots never push out what the context must keep whole (the request, the scopes'
        // openings): the recalls leave first, then the working memory.
        const room =
          pinned.length === 0 ? 0 : this.#slotRoom(budget, view, logView, systemTokens + alongsideTokens)
        if (pinned.length > 0 && pinnedTokens > room) {
          // Both, else the working memory, else the recalls, else neither: the first that has room.
          const choices = [[slots.working], [slots.recall]].map((choice) =>
            choice.filter((slot) => slot !== undefined),
          )
          pinned = choices.find((choice) => choice.length > 0 && tokensOf(choice) <= room) ?? []
          pinnedTokens = tokensOf(pinned)
        }
        for (;;) {
          try {
            fitted = this.#fitted(budget, view, logView, options.system, systemTokens, alongsideTokens, {
              pinned,
            })
            break
          } catch (error) {
            if (pinned.length === 0 || !StrataError.isInstance(error, 'STRATA_BUDGET_EXCEEDED')) throw error
            pinned.pop()
            pinnedTokens = tokensOf(pinned)
          }
        }
        handOut(fitted.messages)
      }
      const { messages } = fitted
      // A fitted context was counted as it was built.
      const contextTokens =
        'tokens' in fitted
          ? fitted.tokens
          : messages.reduce((sum, message) => sum + state.countTokens(message), 0)
      const totalTokens = state.log.rawTokens + systemTokens + pinnedTokens
      const savedTokens = Math.max(0, totalTokens - contextTokens)
      const stats: ContextStats = {
        level: target,
        totalTokens,
        contextTokens,
        savedTokens,
        savedRatio: totalTokens === 0 ? 0 : savedTokens / totalTokens,
        itemsTotal: state.log.itemsTotal,
        itemsVisible: view.length,
        messages: messages.length,
        tokenCounter: counter.name,
      }
      if (budget !== undefined) {
        stats.inputBudget = budget
        stats.omittedItems = fitted.omitted
      }
      // Mapped before anything is recorded: a `map` that throws leaves the thread as it was.
      const out = map === undefined ? (messages as M[]) : messages.map((message) => map(message))
      // A preview of another level is not what the next call sends: usage is not compared with it.
      if (!preview) {
        // What the provider is sent: the context and the text sent alongside it.
        this.lastContextTokens = contextTokens + alongsideTokens
        this.#policies.afterContext({ systemTokens: systemTokens + alongsideTokens })
      }
      deps.events.emit('context', { threadId: state.id, level: target, stats })
      return { messages: out, stats }
    })
  }

  /** The budget left for the resource's slots beside the system prompt and what the context keeps whole. */
  #slotRoom(
    budget: number,
    view: readonly Item<L>[],
    logView: readonly Item<L>[],
    systemTokens: number,
  ): number {
    const keep = keptIds(logView)
    let keptTokens = 0
    for (const item of view)
      if (keep.has(item.id) && item.type === 'message') keptTokens += this.#state.countTokens(item)
    return budget - systemTokens - keptTokens
  }

  /**
   * The context fitted to the budget ({@link fitToBudget}): a cut part ends with a note naming the id
   * `memory_retrieve` returns in full. A typed error when the system prompt and the current request
   * alone are over it.
   */
  #fitted(
    budget: number,
    view: Item<L>[],
    logView: readonly Item<L>[],
    system: string | undefined,
    systemTokens: number,
    alongsideTokens: number,
    {
      memoryItems = this.#state.log.memoryItems,
      refused = '',
      pinned = [],
    }: { memoryItems?: readonly Item<L>[]; refused?: string; pinned?: readonly string[] } = {},
  ) {
    const state = this.#state
    const counter = state.deps.tokenCounter
    const pinnedTokens = pinned.reduce(
      (sum, slot) => sum + countMessageTokens({ content: [{ type: 'text', text: slot }] }, counter),
      0,
    )
    // A part's note names the id that returns its whole original: found through the log's own item.
    const logItems = new Map<string, Item<L>>(logView.map((item) => [item.id, item]))
    const logItem = (item: Item<L>) => logItems.get(item.id) ?? item
    const fit = fitToBudget({
      system,
      pinned,
      systemTokens: systemTokens + pinnedTokens,
      memoryItems,
      view,
      keep: keptIds(logView),
      // What is sent alongside the context takes its share of the budget first.
      budget: Math.max(0, budget - alongsideTokens),
      countMessage: (message) => state.countTokens(message),
      shrink: (item, maxTokens, brief) => shrunkItem(item, maxTokens, brief, counter, logItem(item)),
      sourceId: (item, part) => partSource(part, logItem(item)).id,
    })
    if (fit.fits) return fit
    throw new StrataError({
      code: 'STRATA_BUDGET_EXCEEDED',
      message:
        `The context of thread '${state.id}' cannot fit its input budget of ${budget} tokens: the system ` +
        `prompt (${fit.systemTokens + alongsideTokens} tokens${alongsideTokens > 0 ? `, ${alongsideTokens} of them sent alongside the context` : ''}) ` +
        `and the current request (${fit.requestTokens} tokens) alone ` +
        `are over it.${refused} Shorten the system prompt or the request (a large attachment can go through the ` +
        'content channel), or raise compaction.budget.',
      details: {
        threadId: state.id,
        inputBudget: budget,
        systemTokens: fit.systemTokens + alongsideTokens,
        requestTokens: fit.requestTokens,
      },
    })
  }

  /**
   * The `fit` check of `append` and `appendUnseen`, run before anything is written: the context with
   * `messages` appended must be able to fit the budget, or `STRATA_BUDGET_EXCEEDED` is thrown. What a
   * fit cannot leave out is measured as {@link fitToBudget} measures it in `context()`: the system
   * prompt, the text sent alongside, the current request (the newest user message, new or stored) and
   * the scopes' opening items, each at its smallest. The new messages are taken at the current level,
   * before any automatic transition they may bring (which only closes scopes: it can leave out more),
   * and the ids they will get (a stored attachment's memory id) at their costliest: the check may
   * refuse a request that would have fit by a few tokens, never accept one that does not.
   */
  checkFit(messages: readonly NormalizedMessage[], options: AppendFitOptions): Promise<void> | undefined {
    const state = this.#state
    const budget = this.#policies.inputBudget()
    if (budget === undefined) return undefined
    const { system, alongside } = checkFitOptions(options)
    return (async () => {
      const level = state.level
      const lastSeq = state.log.lastSeq
      const added = messages.map(
        (message, index) =>
          ({
            ...message,
            type: 'message',
            // A cut note names the id a message gets when stored (a memory id for an attachment):
            // counted as a generated one at its costliest, so the check never falls short of what the
            // context will show (it may refuse a request that would fit by a few tokens).
            id: message.id ?? `mem_a1b2c3d4-e5f6-a7b8-c9d0-${String(index).padStart(12, 'e1f2a3b4c5d6')}`,
            seq: lastSeq + 1 + index,
            ts: message.ts ?? 0,
            level,
            turnId: turnIdOf(state.log.currentTurn),
          }) as unknown as Item<L>,
      )
      // The view context() would build (the turn's request in it, one opening per scope), then only
      // what the fit cannot leave out: expanded alone, not the whole view.
      const logView = [...state.contextView(level), ...added]
      const keep = keptIds(logView)
      const kept = logView.filter((item) => keep.has(item.id))
      const view = await state.content.expand(kept, [...state.log.entries, ...added])
      const textTokens = (text: string | undefined) =>
        text ? countMessageTokens({ content: [{ type: 'text', text }] }, state.deps.tokenCounter) : 0
      this.#fitted(budget, view, kept, system, textTokens(system), textTokens(alongside), {
        memoryItems: [],
        refused: ' Nothing was stored.',
      })
    })()
  }

  snapshot(options: { level?: L }): Promise<string> {
    const state = this.#state
    const target = options.level === undefined ? state.level : state.deps.ladder.assert(options.level)
    return this.#fresh(() => {
      const memory = state.log.memoryItems
      const view = state.contextView(target)
      return renderSnapshot({
        episodic: memory.flatMap((item) =>
          item.type === 'summary' && item.tier === 'episodic' ? [item.text] : [],
        ),
        facts: mergeFacts(
          memory.filter((item): item is FactItem<L> => item.type === 'fact'),
          [],
        ).map((fact) => fact.text),
        recentTurns: snapshotTurns(view, (this.#policies.rawTailTurns() ?? 4) + 1),
      })
    })
  }

  toolInteractions(options: { turnId?: string }): Promise<ToolInteraction<L>[]> {
    return this.#fresh(async () => {
      const all = toolInteractions(await this.#state.log.full(0, { frozen: true }))
      return options.turnId === undefined
        ? all
        : all.filter((interaction) => interaction.turnId === options.turnId)
    })
  }

  items(): Promise<Item<L>[]> {
    // A copy: the log's items need not be frozen for it.
    return this.#fresh(async () => jsonCopy(await this.#state.log.full()))
  }
}

/**
 * The context's messages as the caller gets them: each message (built for this context) and its list
 * of parts its own, each part deep-frozen rather than copied. Most parts are the log's own (frozen once,
 * not copied on every call), and the caller's lists can be changed without touching the log.
 */
function handOut(messages: ContextMessage[]): ContextMessage[] {
  // The messages themselves are built for this context: only their lists may be the log's.
  for (const message of messages) {
    for (const part of message.content) if (!Object.isFrozen(part)) deepFreeze(part)
    // Spread, not slice(): V8 slices a frozen array (the log's lists are) an order of magnitude slower.
    message.content = [...message.content]
  }
  return messages
}

/** The `fit` option, checked: an object with string `system` and `alongside` when given. */
function checkFitOptions(options: AppendFitOptions): AppendFitOptions {
  if (typeof options !== 'object' || options === null) {
    invalidOptions('fit must be an object like { system?: string, alongside?: string }.')
  }
  for (const key of ['system', 'alongside'] as const) {
    if (options[key] !== undefined && typeof options[key] !== 'string')
      invalidOptions(`fit.${key} must be a string: the text the next context() is given as ${key}.`)
  }
  return options
}

/** A view item with its long parts cut for a context over its budget; `brief`: a citation shows its brief form. */
function shrunkItem<I extends Item>(
  item: I,
  maxTokens: number,
  brief: boolean,
  counter: TokenCounter,
  logItem: Item,
): I {
  if (item.type !== 'message') return item
  const owner = logItem.type === 'message' ? logItem : { id: item.id }
  let changed = false
  const content = item.content.map((part) => {
    const source = (shown: MessagePart) => partSource(shown, owner)
    const cut = cutPart(brief ? briefPart(part) : part, maxTokens, item.id, { counter, source })
    if (cut !== part) changed = true
    return cut
  })
  return changed ? { ...item, content } : item
}

/** The ids of what a context always keeps: the view's newest user request and its scopes' opening items. */
function keptIds(view: readonly Item[]): Set<string> {
  const ids = new Set<string>()
  let request: string | undefined
  for (const item of view) {
    if (item.type !== 'message') continue
    if (item.scope !== undefined) ids.add(item.id)
    else if (startsTurn(item)) request = item.id
  }
  if (request !== undefined) ids.add(request)
  return ids
}
