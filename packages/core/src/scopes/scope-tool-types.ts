import type { MemoryToolError } from '../content'
import type { JsonObject } from '../items'
import type { EnterOptions, ExitOptions, ExitResult, ScopeOutcome } from '../memory'

/** The names of the two scope tools. */
export type ScopeToolName = 'enter_scope' | 'exit_scope'

/** What {@link scopeTools} needs of a thread: its scopes and the calls that open and close them. */
export interface ThreadWithScopes<L extends string = string> {
  readonly level: L
  readonly scopes: readonly { level: L; title: string }[]
  enter(level: L, options: EnterOptions): Promise<unknown>
  exit(options?: ExitOptions<L>): Promise<ExitResult<L>>
}

/** Input of `enter_scope`. */
export interface EnterScopeInput<L extends string = string> {
  /** A level narrower than the current one, e.g. `task`. */
  level: L
  /** What the scope is for; the first thing the narrower view shows. */
  title: string
  /** Longer instructions for the work inside the scope. */
  instructions?: string
}

/** Input of `exit_scope`. */
export interface ExitScopeInput {
  /** @default 'complete' */
  outcome?: ScopeOutcome
  /** What the scope did and found; it replaces the scope's detail in the broader view. */
  summary: string
}

/** One open scope, as the scope tools report it. */
export interface ScopeToolScope<L extends string = string> {
  level: L
  title: string
}

/** Output of `enter_scope`. */
export interface EnterScopeOutput<L extends string = string> {
  /** The thread's level now: the scope just opened. */
  level: L
  /** The open scopes, outermost first. */
  scopes: ScopeToolScope<L>[]
  /** What the model now sees, in a sentence. */
  message: string
}

/** Output of `exit_scope`. */
export interface ExitScopeOutput<L extends string = string> {
  /** The thread's level now: the enclosing scope's, the one the closed scope was entered from. */
  level: L
  /** The scope just closed. */
  closed: ScopeToolScope<L>
  outcome: ScopeOutcome
  /** The open scopes left, outermost first. */
  scopes: ScopeToolScope<L>[]
  /** What the model now sees, in a sentence. */
  message: string
}

/** A framework-neutral scope tool: adapters wrap it in their framework's tool type. */
// biome-ignore lint/correctness/noUnusedVariables: Input documents what execute accepts; adapters map it to their schema types.
export interface ScopeTool<Input, Output> {
  name: ScopeToolName
  description: string
  /** JSON Schema (type/properties/required/enum/description). */
  inputSchema: JsonObject
  /** Runs the tool. The input is checked here; a bad one, or a refusal by the thread, gives a {@link MemoryToolError}. */
  execute(input: unknown): Promise<Output | MemoryToolError>
}

/** The two scope tools bound to one thread. */
export interface ScopeTools<L extends string = string> {
  enter_scope: ScopeTool<EnterScopeInput<L>, EnterScopeOutput<L>>
  exit_scope: ScopeTool<ExitScopeInput, ExitScopeOutput<L>>
}

/** Options of {@link scopeTools}. */
export interface ScopeToolsOptions<L extends string = string> {
  /**
   * The memory's level ladder, broad to narrow (`memory.ladder.levels`): `enter_scope` lists every
   * level but the broadest.
   * @default DEFAULT_LEVELS (`['global', 'project', 'task']`)
   */
  levels?: readonly L[]
}
