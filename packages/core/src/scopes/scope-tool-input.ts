import { checkKeys, invalidToolInput, isObject } from '../content/tool-input'
import type { ScopeOutcome } from '../memory'
import type { EnterScopeInput, ExitScopeInput } from './scope-tool-types'

/*
 * Checks of the scope tools' inputs. They come from a model, so every message names the field, what was
 * wrong and what to send instead; the tools return them as `{ error: { code, message } }`.
 */

export const SCOPE_OUTCOMES: readonly ScopeOutcome[] = ['complete', 'cancelled', 'aborted']

const MAX_TITLE = 200

function nonEmptyString(tool: string, value: unknown, message: string, key: string): string {
  if (typeof value !== 'string' || value.trim().length === 0)
    invalidToolInput(tool, message, { [key]: value })
  return value as string
}

/** Checks `enter_scope`'s input against the levels it may open. */
export function checkEnterInput<L extends string>(input: unknown, levels: readonly L[]): EnterScopeInput<L> {
  const tool = 'enter_scope'
  if (!isObject(input)) {
    invalidToolInput(tool, `the input must be an object like { "level": "${levels[0]}", "title": "…" }.`)
  }
  checkKeys(tool, input, ['level', 'title', 'instructions'])
  if (!levels.includes(input.level as L)) {
    invalidToolInput(
      tool,
      `level must be one of ${levels.map((level) => `"${level}"`).join(', ')} (got ${JSON.stringify(input.level)}).`,
      { level: input.level },
    )
  }
  const title = nonEmptyString(
    tool,
    input.title,
    'title is required: a short non-empty name for the work, e.g. "Fix the login bug".',
    'title',
  )
  if (title.length > MAX_TITLE) {
    invalidToolInput(tool, `title must be at most ${MAX_TITLE} characters; put the detail in instructions.`)
  }
  const checked: EnterScopeInput<L> = { level: input.level as L, title }
  if (input.instructions !== undefined) {
    if (typeof input.instructions !== 'string') {
      invalidToolInput(tool, 'instructions must be a string (or left out).', {
        instructions: input.instructions,
      })
    }
    checked.instructions = input.instructions as string
  }
  return checked
}

/** Checks `exit_scope`'s input; the outcome defaults to `complete`. */
export function checkExitInput(input: unknown): Required<ExitScopeInput> {
  const tool = 'exit_scope'
  if (!isObject(input)) {
    invalidToolInput(tool, 'the input must be an object like { "outcome": "complete", "summary": "…" }.')
  }
  checkKeys(tool, input, ['outcome', 'summary'])
  const outcome = input.outcome ?? 'complete'
  if (!SCOPE_OUTCOMES.includes(outcome as ScopeOutcome)) {
    invalidToolInput(
      tool,
      `outcome must be one of ${SCOPE_OUTCOMES.map((name) => `"${name}"`).join(', ')} (got ${JSON.stringify(outcome)}).`,
      { outcome },
    )
  }
  const summary = nonEmptyString(
    tool,
    input.summary,
    'summary is required: a non-empty account of what was done and found, which replaces the scope in the broader view.',
    'summary',
  )
  return { outcome: outcome as ScopeOutcome, summary }
}
