import { mergeFacts, renderSnapshot, snapshotTurns } from '../compaction'
import type { BudgetRunner } from '../compaction/budget/budget-run'
import type { CompactionState } from '../compaction/compaction-options'
import { type ContextStats, renderContext } from '../context'
import { OVERSIZED_SHARE, truncateOversized } from '../context/truncate-oversized'
import { invalidOptions } from '../errors'
import type { FactItem, Item } from '../items'
import { jsonCopy } from '../items/json'
import type { WritePath } from '../thread/write-path'
import { countMessageTokens } from '../tokens'
import { keepRecentScopes, levelView, type ToolInteraction, toolInteractions } from '../views'
import type { ContextOptions, ThreadContext } from './thread-types'

/** What a thread shows: level views, model contexts, snapshots, tool interactions and the raw log. */
export class ContextAssembly<L extends string> {
  readonly #state: CompactionState<L>
  readonly #writes: WritePath<L>
  readonly #budget: BudgetRunner<L>
  /** The tokens of the last context built, for `reportUsage`. */
  lastContextTokens: number | undefined

  constructor(state: CompactionState<L>, writes: WritePath<L>, budget: BudgetRunner<L>) {
    this.#state = state
    this.#writes = writes
    this.#budget = budget
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
    return this.#fresh(() => state.log.handOut(levelView(state.log.unfrozenItems, target, state.deps.ladder)))
  }

  /** The level view of the active window, with the items and view ids the content channel reads. */
  history() {
    const state = this.#state
    return this.#fresh(() => {
      const view = levelView(state.activeWindow(), state.level, state.deps.ladder)
      return { items: state.log.items, viewIds: new Set(view.map((item) => item.id)), level: state.level }
    })
  }

  context(options: ContextOptions<L>): Promise<ThreadContext> {
    const state = this.#state
    const { deps } = state
    const level = options.level === undefined ? undefined : deps.ladder.assert(options.level)
    if (options.system !== undefined && typeof options.system !== 'string') {
      invalidOptions('context(): system must be a string.')
    }
    return this.#fresh(async () => {
      if (this.#budget.due()) await this.#budget.compact('budget')
      const target = level ?? state.level
      const { budget, autoTransitions } = deps.compaction
      // The content channel shows results the model has not answered yet in full, the rest as citations.
      // Nothing below hands out a stored item (the messages are copies): the log need not be frozen.
      const fullView = await state.content.expand(
        levelView(state.unfrozenWindow(), target, deps.ladder),
        state.log.unfrozenItems,
      )
      // With automatic transitions, the broadest level shows only the newest closed scopes.
      const view =
        autoTransitions !== false && target === deps.ladder.broadest
          ? keepRecentScopes(fullView, autoTransitions.keepScopes)
          : fullView
      // Under a budget no single item may overflow the context: an oversized one is shown cut.
      const shown =
        budget === false
          ? view
          : truncateOversized(view, {
              maxTokens: Math.floor(budget.inputBudget * OVERSIZED_SHARE),
              counter: deps.tokenCounter,
              countItem: (item) => (item.type === 'message' ? state.countTokens(item) : 0),
            })
      const messages = renderContext({
        ...(options.system === undefined ? {} : { system: options.system }),
        memoryItems: state.log.memoryItems,
        view: shown,
      })
      const counter = deps.tokenCounter
      const contextTokens = messages.reduce((sum, message) => sum + state.countTokens(message), 0)
      const systemTokens = options.system
        ? countMessageTokens({ content: [{ type: 'text', text: options.system }] }, counter)
        : 0
      const totalTokens = state.log.rawTokens + systemTokens
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
      this.lastContextTokens = contextTokens
      deps.events.emit('context', { threadId: state.id, level: target, stats })
      return { messages: jsonCopy(messages), stats }
    })
  }

  snapshot(options: { level?: L }): Promise<string> {
    const state = this.#state
    const target = options.level === undefined ? state.level : state.deps.ladder.assert(options.level)
    return this.#fresh(() => {
      const memory = state.log.memoryItems
      const { budget } = state.deps.compaction
      // Rendered to text: nothing of the log is handed out.
      const view = levelView(state.unfrozenWindow(), target, state.deps.ladder)
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

  toolInteractions(options: { turnId?: string }): Promise<ToolInteraction<L>[]> {
    return this.#fresh(() => {
      const all = toolInteractions(this.#state.log.items)
      return options.turnId === undefined
        ? all
        : all.filter((interaction) => interaction.turnId === options.turnId)
    })
  }

  items(): Promise<Item<L>[]> {
    // A copy: the log's items need not be frozen for it.
    return this.#fresh(() => jsonCopy(this.#state.log.unfrozenItems as Item<L>[]))
  }
}
