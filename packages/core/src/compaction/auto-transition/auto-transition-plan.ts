import type { Item } from '../../items'
import { startsTurn } from '../../items/turns'
import type { LevelLadder } from '../../levels'
import { isContextMemoryItem, levelView } from '../../views'
import { assertInteger } from '../turn-boundaries'

/** Limits of the narrowest level (`task` by default). */
export interface NarrowestLimits {
  /** Items in the level view. @default 20 */
  items?: number
  /** Tool calls in the level view. @default 10 */
  toolActions?: number
}

/** Limits of the levels between the broadest and the narrowest (`project` by default). */
export interface MiddleLimits {
  /** Items in the level view (its own items and the transitions of closed narrower scopes). @default 50 */
  items?: number
  /** User requests (messages that start a turn) inside the scope, at any level. @default 30 */
  requests?: number
  /** Milliseconds since the last request. @default 3_600_000 (1 h) */
  idleMs?: number
}

/** Options of {@link planAutoTransition}. */
export interface AutoTransitionOptions {
  /** The current time, epoch ms. */
  now: number
  /** When the previous request came in. @default the ts of the newest user request in the scope, else of its first item */
  lastRequestTs?: number
  /** Limits of the narrowest level; false turns them off. @default { items: 20, toolActions: 10 } */
  narrowest?: NarrowestLimits | false
  /** Limits of the middle levels; false turns them off. @default { items: 50, requests: 30, idleMs: 3_600_000 } */
  middle?: MiddleLimits | false
  /** Tokens of the scope's items, as the engine counted them. */
  scopeTokens?: number
  /** Close any non-broadest scope once `scopeTokens` reaches this. @default off */
  maxScopeTokens?: number
}

/** A transition the engine should write. */
export interface AutoTransitionPlan<L extends string = string> {
  reason: 'size-limit' | 'time-limit' | 'token-budget'
  /** The level being closed. */
  level: L
  /** The scope's first item (normally its opening item). */
  fromSeq: number
  /** The scope's last history item. */
  toSeq: number
  /** What was counted, for events and status. */
  counts: { items: number; toolActions: number; requests: number; idleMs: number }
}

/**
 * Decides whether the scope at `level` (the thread's current level) should close automatically.
 *
 * Counting: `items` and `toolActions` are counted over the level view, which for the current level is
 * the scope's own run since the previous transition out of that level; `requests` counts user messages
 * that start a turn from the scope's first item on, at any level. A limit fires when its count reaches
 * it; the first match wins in the order size, time, token. The broadest level never closes.
 *
 * It never plans while a tool call in the scope waits for its result, nor while the newest item is a
 * user request still waiting for its answer: call it after a response is stored (or before the next
 * request is appended, which also makes idle time meaningful). The transition hides nothing from the
 * log: the scope's items stay readable, as for any transition.
 *
 * @example
 * planAutoTransition(items, ladder, thread.level, { now: Date.now() })
 */
export function planAutoTransition<L extends string>(
  items: readonly Item<L>[],
  ladder: LevelLadder<L>,
  level: L,
  options: AutoTransitionOptions,
): AutoTransitionPlan<L> | undefined {
  const rank = ladder.rank(level)
  const { now, lastRequestTs, scopeTokens, maxScopeTokens } = options ?? ({} as AutoTransitionOptions)
  assertInteger(now, 'now', 0)
  if (lastRequestTs !== undefined) assertInteger(lastRequestTs, 'lastRequestTs', 0)
  if (scopeTokens !== undefined) assertInteger(scopeTokens, 'scopeTokens', 0)
  if (maxScopeTokens !== undefined) assertInteger(maxScopeTokens, 'maxScopeTokens', 1)
  const narrowest = limits({ items: 20, toolActions: 10 }, options.narrowest, 'narrowest')
  const middle = limits({ items: 50, requests: 30, idleMs: 3_600_000 }, options.middle, 'middle')
  if (rank === 0) return undefined

  const view = levelView(items, level, ladder)
  if (view.length === 0) return undefined
  const fromSeq = view[0]!.seq
  const scope = items.filter((item) => item.seq >= fromSeq && !isContextMemoryItem(item))
  const newest = scope.at(-1)!
  if (newest.type === 'message' && startsTurn(newest)) return undefined

  const results = new Set<string>()
  const calls: string[] = []
  let requests = 0
  let requestTs = scope[0]!.ts
  for (const item of scope) {
    if (item.type !== 'message') continue
    if (startsTurn(item)) {
      requests++
      requestTs = item.ts
    }
    for (const part of item.content) {
      if (part.type === 'tool-call') calls.push(part.toolCallId)
      else if (part.type === 'tool-result') results.add(part.toolCallId)
    }
  }
  if (calls.some((id) => !results.has(id))) return undefined

  let toolActions = 0
  for (const item of view) {
    if (item.type !== 'message') continue
    for (const part of item.content) if (part.type === 'tool-call') toolActions++
  }
  const idleMs = Math.max(0, now - (lastRequestTs ?? requestTs))
  const counts = { items: view.length, toolActions, requests, idleMs }
  const plan = (reason: AutoTransitionPlan['reason']): AutoTransitionPlan<L> => ({
    reason,
    level,
    fromSeq,
    toSeq: newest.seq,
    counts,
  })

  const isNarrowest = level === ladder.narrowest
  if (isNarrowest && narrowest !== undefined) {
    if (counts.items >= narrowest.items || toolActions >= narrowest.toolActions) return plan('size-limit')
  }
  if (!isNarrowest && middle !== undefined) {
    if (counts.items >= middle.items || requests >= middle.requests) return plan('size-limit')
    if (idleMs >= middle.idleMs) return plan('time-limit')
  }
  if (maxScopeTokens !== undefined && scopeTokens !== undefined && scopeTokens >= maxScopeTokens)
    return plan('token-budget')
  return undefined
}

/** The defaults with the given limits over them (undefined keeps a default), validated; undefined when off. */
function limits<T extends Record<string, number>>(
  defaults: T,
  given: Partial<T> | false | undefined,
  name: string,
): T | undefined {
  if (given === false) return undefined
  const merged: Record<string, number> = { ...defaults }
  for (const [key, value] of Object.entries(given ?? {})) if (value !== undefined) merged[key] = value
  for (const [key, value] of Object.entries(merged)) assertInteger(value, `${name}.${key}`, 1)
  return merged as T
}
