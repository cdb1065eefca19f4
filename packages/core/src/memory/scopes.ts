import { invalidOptions, StrataError } from '../errors'
import {
  type MessageItem,
  normalizeMessage,
  type SummaryItem,
  type TransitionItem,
  type TransitionReason,
} from '../items'
import { type ClosingEvent, capitalize, type ScopeClosing } from '../thread-state/scope-closing'
import { turnIdOf } from '../thread-state/thread-log'
import type { ThreadState } from '../thread-state/thread-state'
import type { WritePath } from '../thread-state/write-path'
import type { EnterOptions, ExitOptions, ExitResult, ScopeOutcome } from './thread-types'

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

/** Opening and closing scopes by hand (`enter`, `exit`) and by mode (`setMode`). */
export class Scopes<L extends string> {
  readonly #state: ThreadState<L>
  readonly #writes: WritePath<L>
  readonly #closing: ScopeClosing<L>

  constructor(state: ThreadState<L>, writes: WritePath<L>, closing: ScopeClosing<L>) {
    this.#state = state
    this.#writes = writes
    this.#closing = closing
  }

  async enter(level: L, options: EnterOptions): Promise<MessageItem<L>> {
    const state = this.#state
    const { ladder } = state.deps
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
    return this.#writes.exclusive(async () => {
      const [item] = await this.#writes.write(() => {
        const current = state.level
        if (ladder.rank(level) <= ladder.rank(current)) {
          const narrower = ladder.levels.slice(ladder.rank(current) + 1)
          const allowed =
            narrower.length === 0
              ? `'${current}' is already the narrowest level: exit() first`
              : `from '${current}' you may enter ${narrower.map((name) => `'${name}'`).join(' or ')}`
          throw new StrataError({
            code: 'STRATA_INVALID_SCOPE',
            message: `Cannot enter '${level}' from '${current}': a scope opens a level narrower than the current one (${allowed}).`,
            details: { level, current, allowed: narrower },
          })
        }
        const item = state.newMessageItem(opening, level, turnIdOf(state.log.currentTurn)) as MessageItem<L>
        item.scope = { title: options.title }
        if (options.instructions !== undefined) item.scope.instructions = options.instructions
        return [item]
      })
      return item as MessageItem<L>
    })
  }

  async exit(options: ExitOptions<L>): Promise<ExitResult<L>> {
    const state = this.#state
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
    if (options.level !== undefined) state.deps.ladder.assert(options.level)

    return this.#writes.exclusive(async () => {
      let event: ClosingEvent
      const stored = await this.#writes.write(async () => {
        const scope = state.log.scopes.at(-1)
        if (scope === undefined) {
          throw new StrataError({
            code: 'STRATA_NO_OPEN_SCOPE',
            message: 'exit() was called with no open scope: call enter(level, { title }) first.',
            details: { threadId: state.id },
          })
        }
        if (options.level !== undefined && options.level !== scope.level) {
          throw new StrataError({
            code: 'STRATA_SCOPE_MISMATCH',
            message: `exit({ level: '${options.level}' }) does not match the innermost open scope, '${scope.level}' ("${scope.title}"). Exit that one first.`,
            details: { level: options.level, open: scope.level },
          })
        }
        const closing = await this.#closing.closingItems(scope, {
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
      state.deps.events.emit('transition', { threadId: state.id, ...result, ...event! })
      return result
    })
  }

  async setMode(mode: string, options: { title?: string; outcome?: ScopeOutcome }): Promise<void> {
    const state = this.#state
    const { modes, ladder } = state.deps
    const target = Object.hasOwn(modes, mode) ? modes[mode] : undefined
    if (target === undefined) {
      throw new StrataError({
        code: 'STRATA_UNKNOWN_MODE',
        message: `Unknown mode ${JSON.stringify(mode)}: this memory's modes are ${
          Object.keys(modes)
            .map((name) => `'${name}'`)
            .join(', ') || 'none (pass modes to createMemory)'
        }.`,
        details: { mode },
      })
    }
    while (ladder.rank(state.level) > ladder.rank(target)) {
      await this.exit({ outcome: options.outcome ?? 'complete' })
    }
    while (ladder.rank(state.level) < ladder.rank(target)) {
      await this.enter(ladder.child(state.level)!, { title: options.title ?? mode })
    }
    await this.#writes.exclusive(() => this.#writes.updateState({ mode }))
    state.mode = mode
  }

  #defaultReason(level: L, outcome: ScopeOutcome): TransitionReason {
    if (outcome !== 'complete') return outcome
    return level === this.#state.deps.ladder.narrowest ? 'task-complete' : 'project-complete'
  }
}
