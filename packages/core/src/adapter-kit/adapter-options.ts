import { invalidOptions } from '../errors'
import { HISTORY_MODES, type HistoryMode } from '../history'
import { assertThreadId } from '../items'
import type { DivergenceHandling } from '../memory'

export { HISTORY_MODES } from '../history'

/** Every {@link DivergenceHandling}, in the order error messages list them. */
export const DIVERGENCE_HANDLINGS: readonly DivergenceHandling[] = ['rewind', 'reject']

/** The options every adapter takes alike, as the app passed them (unchecked). */
export interface AdapterOptionsInput {
  /** The memory from `createMemory()`. */
  memory: unknown
  /** A level of the memory's ladder. */
  level?: unknown
  /** The thread's system prompt. */
  system?: unknown
  /** What the framework's messages hold ({@link HistoryMode}). */
  history?: unknown
  /** What a history that leaves the thread does ({@link DivergenceHandling}). */
  onDivergence?: unknown
  /** The resource the threads belong to: a resource id (the thread-id rule). */
  resource?: unknown
}

const listed = (values: readonly string[]) =>
  values.length === 1
    ? `'${values[0]}'`
    : `${values
        .slice(0, -1)
        .map((value) => `'${value}'`)
        .join(', ')} or '${values.at(-1)}'`

/**
 * Checks that a value is one of `values`, else `STRATA_INVALID_OPTIONS`:
 * `strataMiddleware(): history must be 'auto', 'full' or 'new' (got "all").`
 */
export function checkOneOf<T extends string>(
  caller: string,
  name: string,
  value: unknown,
  values: readonly T[],
): asserts value is T {
  if (!values.includes(value as T)) {
    invalidOptions(`${caller}: ${name} must be ${listed(values)} (got ${JSON.stringify(value)}).`, {
      [name]: value,
    })
  }
}

/** Checks an adapter's `memory` option: the memory from `createMemory()`, else `STRATA_INVALID_OPTIONS`. */
export function checkMemoryOption(caller: string, memory: unknown): void {
  const candidate = memory as { thread?: unknown; store?: { getState?: unknown } } | null | undefined
  if (typeof candidate?.thread !== 'function' || typeof candidate.store?.getState !== 'function') {
    invalidOptions(`${caller} needs { memory }: pass the memory from createMemory().`)
  }
}

/**
 * Checks an adapter's `resource` option: none, or a resource id (the thread-id rule). A value that is
 * not a string is `STRATA_INVALID_OPTIONS`; a string outside the rule `STRATA_INVALID_THREAD_ID`.
 */
export function checkResourceOption(caller: string, resource: unknown): void {
  if (resource === undefined) return
  if (typeof resource !== 'string')
    invalidOptions(`${caller}: resource must be a resource id string.`, { resource })
  assertThreadId(resource as string)
}

/**
 * The checks every adapter makes of the options it shares with the others, before anything is stored:
 * `memory` the memory from `createMemory()`, `level` one of its ladder's, `system` a string, `history`
 * a {@link HistoryMode}, `onDivergence` a {@link DivergenceHandling}, `resource` a resource id. An option
 * left out is not checked (the adapter's default applies). A bad one throws `STRATA_INVALID_OPTIONS`
 * (a level outside the ladder `STRATA_INVALID_LEVEL`, a resource outside the id rule
 * `STRATA_INVALID_THREAD_ID`) whose message starts with `caller` and names the option.
 *
 * @example
 * checkAdapterOptions('strataMiddleware()', { memory, level, system, history, onDivergence, resource })
 */
export function checkAdapterOptions(caller: string, options: AdapterOptionsInput): void {
  const { memory, level, system, history, onDivergence, resource } = options
  checkMemoryOption(caller, memory)
  if (level !== undefined) (memory as { ladder: { assert(level: unknown): void } }).ladder.assert(level)
  if (system !== undefined && typeof system !== 'string')
    invalidOptions(`${caller}: system must be a string.`, { system })
  if (history !== undefined) checkOneOf<HistoryMode>(caller, 'history', history, HISTORY_MODES)
  if (onDivergence !== undefined)
    checkOneOf<DivergenceHandling>(caller, 'onDivergence', onDivergence, DIVERGENCE_HANDLINGS)
  checkResourceOption(caller, resource)
}
