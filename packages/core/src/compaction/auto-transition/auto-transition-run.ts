import type { Item, NormalizedMessage, UnsequencedItem } from '../../items'
import { startsTurn } from '../../items/turns'
import type { ClosingEvent, ScopeClosing } from '../../thread-state/scope-closing'
import type { PolicyState } from '../compaction-policy'
import type { AutoTransitionCompaction } from './auto-transition-options'
import { planAutoTransition } from './auto-transition-plan'

/**
 * Automatic transitions, checked as each message is stored (an agent may work a whole task inside one
 * request), never between a tool call and its result: when the current scope is past a limit, the items
 * that close the part seen so far and reopen the same scope, so the application stays at its level and
 * the scope goes on with a fresh view. Idle time counts only when a new request arrives.
 */
export async function autoTransitionItems<L extends string>(
  state: PolicyState<L, AutoTransitionCompaction>,
  closing: ScopeClosing<L>,
  messages: readonly NormalizedMessage[],
): Promise<{ items: UnsequencedItem<L>[]; event: ClosingEvent } | undefined> {
  const { deps, log } = state
  const options = deps.compaction.autoTransitions
  const first = messages[0]
  if (options === false || first === undefined) return undefined
  // A result goes where its call is: never after a transition that closed (or reopened) the call's scope.
  if (first.content.some((part) => part.type === 'tool-result')) return undefined
  const scope = log.scopes.at(-1)
  if (scope === undefined) return undefined
  // The scope's view starts at its opening item: the plan needs only the items from there.
  // The plan only counts: the items need not be frozen for it.
  const items = log.unfrozenItemsAfter(scope.seq - 1)
  let scopeTokens: number | undefined
  if (options.maxScopeTokens !== undefined) {
    scopeTokens = 0
    for (const item of items) if (item.type === 'message') scopeTokens += state.logMessageTokens(item)
  }
  // Not while a call of the scope waits for its result, also one from before a reopening the view starts at.
  if (waitingCall(items)) return undefined
  const now = deps.clock()
  const plan = planAutoTransition(items, deps.ladder, scope.level, {
    now,
    // Between the steps of one request the scope is not idle: idle time counts when a request arrives.
    ...(startsTurn(first) ? {} : { lastRequestTs: now }),
    narrowest: options.narrowest,
    middle: options.middle,
    ...(options.maxScopeTokens === undefined ? {} : { maxScopeTokens: options.maxScopeTokens }),
    ...(scopeTokens === undefined ? {} : { scopeTokens }),
  })
  if (plan === undefined) return undefined
  const closed = await closing.closingItems(scope, { outcome: 'complete', reason: plan.reason })
  return { items: [...closed.items, closing.reopeningItem(scope, scope.seq)], event: closed.event }
}

/** Whether a tool call among `items` has no result among them. */
function waitingCall(items: readonly Item[]): boolean {
  const open = new Set<string>()
  for (const item of items) {
    if (item.type !== 'message') continue
    for (const part of item.content) {
      if (part.type === 'tool-call') open.add(part.toolCallId)
      else if (part.type === 'tool-result') open.delete(part.toolCallId)
    }
  }
  return open.size > 0
}
