import { runTool } from '../content/memory-tools'
import type { JsonObject } from '../items'
import { DEFAULT_LEVELS } from '../levels'
import { checkEnterInput, checkExitInput, SCOPE_OUTCOMES } from './scope-tool-input'
import type {
  EnterScopeOutput,
  ExitScopeOutput,
  ScopeTool,
  ScopeToolScope,
  ScopeTools,
  ScopeToolsOptions,
  ThreadWithScopes,
} from './scope-tool-types'

const openScopes = <L extends string>(thread: ThreadWithScopes<L>): ScopeToolScope<L>[] =>
  thread.scopes.map(({ level, title }) => ({ level, title }))

const describeScopes = (scopes: readonly ScopeToolScope[]): string =>
  scopes.map((scope) => `${scope.level} "${scope.title}"`).join(' > ')

function enterSchema(levels: readonly string[]): JsonObject {
  return {
    type: 'object',
    properties: {
      level: {
        type: 'string',
        enum: [...levels],
        description: `The scope's level; it must be narrower than the current one. Levels broad to narrow: ${levels.join(', ')}.`,
      },
      title: { type: 'string', description: 'A short name for the work, e.g. "Fix the login bug".' },
      instructions: {
        type: 'string',
        description:
          'What to do inside the scope and what to report; the scope shows only this and its own steps.',
      },
    },
    required: ['level', 'title'],
  }
}

const exitSchema: JsonObject = {
  type: 'object',
  properties: {
    outcome: {
      type: 'string',
      enum: [...SCOPE_OUTCOMES],
      description:
        'complete (default): the work is done; cancelled: it is no longer wanted; aborted: it failed or cannot go on.',
    },
    summary: {
      type: 'string',
      description:
        'What was done and found, with every result, name and number needed later: after exit it is all that remains of the scope in view.',
    },
  },
  required: ['summary'],
}

/**
 * The two scope tools bound to one thread, framework-neutral like {@link memoryTools}: `enter_scope`
 * opens a narrower scope (a task inside the conversation), `exit_scope` closes the innermost one with
 * a summary that takes its place. A bad input, or a call the thread refuses (no open scope, a level it
 * cannot enter from here), gives `{ error: { code, message } }`, never a throw.
 *
 * @example
 * const tools = scopeTools(thread, { levels: memory.ladder.levels })
 * await tools.enter_scope.execute({ level: 'task', title: 'Compare the two quotes' })
 * await tools.exit_scope.execute({ outcome: 'complete', summary: 'Quote B is 12% cheaper.' })
 */
export function scopeTools<L extends string>(
  thread: ThreadWithScopes<L>,
  options: ScopeToolsOptions<L> = {},
): ScopeTools<L> {
  const { levels = DEFAULT_LEVELS as unknown as readonly L[] } = options
  const enterable = levels.slice(1)
  return {
    enter_scope: {
      name: 'enter_scope',
      description:
        "Open a focused scope for a self-contained piece of work (a task with several steps or tool calls). Inside it you see the user's current request, the scope's title and instructions, and its own steps: the rest of the broader conversation is hidden until you call exit_scope. Open one level narrower than the current one.",
      inputSchema: enterSchema(enterable),
      execute: (input) =>
        runTool<EnterScopeOutput<L>>(async () => {
          const { level, title, instructions } = checkEnterInput(input, enterable)
          await thread.enter(level, { title, ...(instructions === undefined ? {} : { instructions }) })
          const scopes = openScopes(thread)
          return {
            level: thread.level,
            scopes,
            message: `You are now in ${level} "${title}"${scopes.length > 1 ? ` (${describeScopes(scopes)})` : ''}. You see the user's current request and this scope's title, instructions and steps; the rest of the broader conversation is hidden until exit_scope.`,
          }
        }),
    } satisfies ScopeTool<unknown, EnterScopeOutput<L>>,
    exit_scope: {
      name: 'exit_scope',
      description:
        "Close the innermost open scope when its work is done, cancelled or failed. Your summary replaces the scope's steps and tool calls in the broader view, so put in it every result you will need later. You return to the level the scope was opened from.",
      inputSchema: exitSchema,
      execute: (input) =>
        runTool<ExitScopeOutput<L>>(async () => {
          const { outcome, summary } = checkExitInput(input)
          const closing = thread.scopes.at(-1)
          await thread.exit({ outcome, summary })
          // exit() refuses when no scope is open, so `closing` is set here.
          const closed = { level: closing!.level, title: closing!.title }
          const scopes = openScopes(thread)
          const where = scopes.length === 0 ? 'no scope is open' : `open: ${describeScopes(scopes)}`
          return {
            level: thread.level,
            closed,
            outcome,
            scopes,
            message: `Closed ${closed.level} "${closed.title}" (${outcome}). You are back at ${thread.level} (${where}): you see the broader conversation again, with your summary in place of the scope's steps.`,
          }
        }),
    } satisfies ScopeTool<unknown, ExitScopeOutput<L>>,
  }
}
