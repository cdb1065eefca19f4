import { invalidOptions } from '../../errors'
import { wholeNumber } from '../option-checks'
import type { MiddleLimits, NarrowestLimits } from './auto-transition-plan'

/**
 * Options of automatic transitions: when the current scope grows past a limit, the thread closes the
 * part of it seen so far (a transition with reason `size-limit`, `time-limit` or `token-budget`, and a
 * scope summary at the enclosing scope's level) and reopens the same scope, so the application stays at its level.
 * Checked as each message is stored, so a task worked inside one request closes too; never between a
 * tool call and its result, and idle time counts only when a new request arrives.
 */
export interface AutoTransitionsOptions {
  /** Limits of the narrowest level; false turns them off. @default { items: 20, toolActions: 10 } */
  narrowest?: NarrowestLimits | false
  /** Limits of the middle levels; false turns them off. @default { items: 50, requests: 30, idleMs: 3_600_000 } */
  middle?: MiddleLimits | false
  /** Close a scope whose items reach this many tokens (reason `token-budget`). @default off */
  maxScopeTokens?: number
  /**
   * Closed scopes (transitions and their scope summaries) a context of the broadest level shows; older
   * ones stay in the log and reachable, but leave the context.
   * @default 10
   */
  keepScopes?: number
}

/** The automatic transitions' options with defaults applied and checked, or false (off). */
export type ResolvedAutoTransitions =
  | {
      narrowest: NarrowestLimits | false
      middle: MiddleLimits | false
      maxScopeTokens?: number
      keepScopes: number
    }
  | false

/** What the automatic transitions read of a thread's resolved compaction options. */
export interface AutoTransitionCompaction {
  autoTransitions: ResolvedAutoTransitions
}

/** Applies the defaults of the automatic transitions and validates: `STRATA_INVALID_OPTIONS` with what to change. */
export function resolveAutoTransitions(
  autoTransitions: AutoTransitionsOptions | false = false,
): ResolvedAutoTransitions {
  if (autoTransitions === false) return false
  const { narrowest = {}, middle = {}, maxScopeTokens, keepScopes = 10 } = autoTransitions
  for (const [name, limits, known] of [
    ['narrowest', narrowest, ['items', 'toolActions']],
    ['middle', middle, ['items', 'requests', 'idleMs']],
  ] as const) {
    if (limits === false) continue
    if (typeof limits !== 'object' || limits === null)
      invalidOptions(`compaction: autoTransitions.${name} must be an object of limits or false.`)
    for (const [key, value] of Object.entries(limits)) {
      if (!(known as readonly string[]).includes(key))
        invalidOptions(`compaction: autoTransitions.${name}.${key} is not a limit; use ${known.join(', ')}.`)
      if (value !== undefined) wholeNumber(value, `autoTransitions.${name}.${key}`, 1)
    }
  }
  if (maxScopeTokens !== undefined) wholeNumber(maxScopeTokens, 'autoTransitions.maxScopeTokens', 1)
  wholeNumber(keepScopes, 'autoTransitions.keepScopes', 1)
  return {
    narrowest,
    middle,
    keepScopes,
    ...(maxScopeTokens === undefined ? {} : { maxScopeTokens }),
  }
}
