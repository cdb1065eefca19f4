import type { NormalizedMessage, UnsequencedItem } from '../../items'
import { startsTurn } from '../../items/turns'
import type { ClosingEvent, ScopeClosing } from '../../thread/scope-closing'
import type { CompactionState } from '../compaction-options'
import { planAutoTransition } from './auto-transition-plan'

/**
 * Automatic transitions, checked as a new request arrives (so no turn is ever cut): when the current
 * scope is past a limit, the items that close the part seen so far and reopen the same scope, so the
 * application stays at its level and the scope goes on with a fresh view.
 */
export async function autoTransitionItems<L extends string>(
  state: CompactionState<L>,
  closing: ScopeClosing<L>,
  messages: readonly NormalizedMessage[],
): Promise<{ items: UnsequencedItem<L>[]; event: ClosingEvent } | undefined> {
  const { deps, log } = state
  const options = deps.compaction.autoTransitions
  const first = messages[0]
  if (options === false || first === undefined || !startsTurn(first)) return undefined
  const scope = log.scopes.at(-1)
  if (scope === undefined) return undefined
  let scopeTokens: number | undefined
  if (options.maxScopeTokens !== undefined) {
    scopeTokens = 0
    for (const item of log.itemsAfter(scope.seq - 1))
      if (item.type === 'message') scopeTokens += state.countTokens(item)
  }
  // The plan only counts: the log's items need not be frozen for it.
  const plan = planAutoTransition(log.unfrozenItems, deps.ladder, scope.level, {
    now: deps.clock(),
    narrowest: options.narrowest,
    middle: options.middle,
    ...(options.maxScopeTokens === undefined ? {} : { maxScopeTokens: options.maxScopeTokens }),
    ...(scopeTokens === undefined ? {} : { scopeTokens }),
  })
  if (plan === undefined) return undefined
  const closed = await closing.closingItems(scope, { outcome: 'complete', reason: plan.reason })
  return { items: [...closed.items, closing.reopeningItem(scope, scope.seq)], event: closed.event }
}
