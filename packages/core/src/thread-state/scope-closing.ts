import {
  type Item,
  type MessageItem,
  normalizeMessage,
  type SummaryItem,
  type TransitionItem,
  type TransitionReason,
  type UnsequencedItem,
} from '../items'
import { patternSummarizer, type Summarizer } from '../summarizers'
import { type OpenScope, turnIdOf } from './thread-log'
import type { ThreadState } from './thread-state'

// Made at the first failure, not at load: a call at a module's top level is kept by every bundler,
// and with it the pattern summarizer, in any bundle that reaches this file's chunk.
let offline: Summarizer | undefined
const fallbackSummarizer = (): Summarizer => (offline ??= patternSummarizer())

/** How a scope ended, as its transition records it. */
export type ScopeOutcome = 'complete' | 'cancelled' | 'aborted'

export const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)

/** What a `transition` event adds to the items that close a scope. */
export interface ClosingEvent {
  title: string
  summarizer: string
  summarizerError?: unknown
}

/** How a scope is closed: what `exit` and the automatic transitions pass. */
export interface ClosingOptions {
  outcome: ScopeOutcome
  reason: TransitionReason
  summary?: string
  agentFacingMessage?: string
  userFacingMessage?: string | null
}

/** Builds the items that close a scope and the ones that reopen it, from the thread's current log. */
export class ScopeClosing<L extends string> {
  readonly #state: ThreadState<L>

  constructor(state: ThreadState<L>) {
    this.#state = state
  }

  /**
   * The opening item of a scope that goes on: its title and instructions again, with
   * `scope.continuedFrom`. Worded "continued" unless `continued` is false: a scope whose view the model
   * has not seen yet reads as new.
   */
  reopeningItem(scope: OpenScope<L>, continuedFrom: number, continued = true): UnsequencedItem<L> {
    const state = this.#state
    const label = continued ? `${capitalize(scope.level)} (continued)` : capitalize(scope.level)
    const reopening = normalizeMessage({
      role: 'user',
      content: `${label}: ${scope.title}${scope.instructions ? `\n\n${scope.instructions}` : ''}`,
    })
    const item = state.newMessageItem(
      reopening,
      scope.level,
      turnIdOf(state.log.currentTurn),
    ) as MessageItem<L>
    item.scope = { title: scope.title, continuedFrom }
    if (scope.instructions !== undefined) item.scope.instructions = scope.instructions
    return item as UnsequencedItem<L>
  }

  /**
   * The opening that reopens `scope` after a tool result at a broader level ended its view (the result
   * of the call that opened it, as `enter_scope`'s is, or a late one). Worded as new while nothing has
   * happened inside the scope since it was opened: the first opening is then hidden in every view, and
   * this one is the only one the model sees of a new scope. "Continued" once the scope has items of its
   * own, or when its opening already continues a scope an automatic transition summarized.
   */
  lateReopeningItem(scope: OpenScope<L>): UnsequencedItem<L> {
    return this.reopeningItem(scope, scope.seq, !this.#isUntouched(scope))
  }

  /** Whether the scope's opening is a new one and only openings (its own, nested scopes') came after it. */
  #isUntouched(scope: OpenScope<L>): boolean {
    const { log, deps } = this.#state
    // An open scope's items are never sealed (see `sealableIndexes`).
    const items = log.unfrozenItemsAfter(scope.seq - 1)
    const opening = items[0]
    if (opening?.seq !== scope.seq || opening.type !== 'message' || opening.scope === undefined) return false
    if (opening.scope.continuedFrom !== undefined) return false
    const rank = deps.ladder.rank(scope.level)
    for (let index = 1; index < items.length; index++) {
      const item = items[index]!
      if (deps.ladder.rank(item.level) < rank) continue
      if (!(item.type === 'message' && item.scope !== undefined)) return false
    }
    return true
  }

  /**
   * The transition and scope summary that close `scope` at the enclosing scope's level (the level it
   * was opened from: the open scope before it, or the broadest when none), built from the current log:
   * the scope's items leave that level's view, the transition stands in for them.
   */
  async closingItems(
    scope: OpenScope<L>,
    options: ClosingOptions,
  ): Promise<{ items: UnsequencedItem<L>[]; event: ClosingEvent }> {
    const { log, deps } = this.#state
    const enclosing = enclosingLevel(log.scopes, scope, deps.ladder.broadest)
    const scopeItems = log.itemsAfter(scope.seq)
    const written = await this.#scopeSummary(scopeItems, scope, options.outcome, options.summary)
    const range = { fromSeq: scope.seq, toSeq: log.lastSeq }
    const rank = deps.ladder.rank(scope.level)
    // Actions: the scope's own items and its nested scopes', not tool results nor reopened openings.
    const actions = scopeItems.filter(
      (item) =>
        !(item.type === 'message' && (item.role === 'tool' || item.scope !== undefined)) &&
        deps.ladder.rank(item.level) >= rank,
    ).length
    const base = { level: enclosing, turnId: turnIdOf(log.currentTurn), ts: deps.clock() }
    const transition: Omit<TransitionItem<L>, 'seq'> = {
      ...base,
      id: deps.generateId(),
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
      id: deps.generateId(),
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

  async #scopeSummary(
    items: readonly Item<L>[],
    scope: OpenScope<L>,
    outcome: ScopeOutcome,
    explicit: string | undefined,
  ): Promise<{ text: string; name: string; error?: { summarizerError: unknown } }> {
    if (explicit !== undefined) return { text: explicit, name: 'explicit' }
    const { summarizer } = this.#state.deps
    const options = { tier: 'scope' as const, scope: { title: scope.title, level: scope.level, outcome } }
    try {
      const { summary } = await summarizer.summarize(items, options)
      return { text: summary, name: summarizer.name }
    } catch (error) {
      // A scope must be closable even when an LLM summarizer is down: the offline summary stands in.
      const fallback = fallbackSummarizer()
      const { summary } = await fallback.summarize(items, options)
      return { text: summary, name: fallback.name, error: { summarizerError: error } }
    }
  }
}

/**
 * The level a scope returns to when it closes: the level of the open scope it was entered from, or the
 * broadest when it is the outermost. A scope may skip levels (`global` → `task`), so this is not the
 * ladder's parent of its level.
 */
export function enclosingLevel<L extends string>(
  scopes: readonly OpenScope<L>[],
  scope: OpenScope<L>,
  broadest: L,
): L {
  const index = scopes.findLastIndex((open) => open.seq === scope.seq && open.level === scope.level)
  return (index > 0 ? scopes[index - 1]!.level : undefined) ?? broadest
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
