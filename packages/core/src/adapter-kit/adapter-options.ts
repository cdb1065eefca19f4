import { invalidOptions } from '../errors'
import { HISTORY_MODES, type HistoryMode } from '../history'
import type { DivergenceHandling, Memory } from '../memory'
import type { OptionKeys } from '../memory/option-keys'
import { assertResourceId } from '../stores/resource-arguments'

export { HISTORY_MODES } from '../history'
export { checkOptionKeys, nearestKey, type OptionKeys } from '../memory/option-keys'

/** Every {@link DivergenceHandling}, in the order error messages list them. */
export const DIVERGENCE_HANDLINGS: readonly DivergenceHandling[] = ['rewind', 'reject']

/**
 * The options every framework adapter takes alike (its options interface extends this one and says
 * what its framework adds: defaults, per-call overrides). {@link checkAdapterOptions} checks them.
 */
export interface AdapterOptions<L extends string = string> {
  /** The memory whose threads the adapter reads and writes (`createMemory()`). */
  memory: Memory<L>
  /**
   * The resource (a user, a team, an account) the threads belong to: each thread is bound to it on its
   * first open (`memory.thread(id, { resource })`), so its context shows the resource's working memory
   * (and recalls). Another resource on a bound thread is `STRATA_INVALID_OPTIONS`, thrown before
   * anything is stored. Needs a store with `flags.resources`.
   * @default none: a thread keeps the binding the store holds
   */
  resource?: string
  /**
   * The level whose context the model is sent.
   * @default the thread's current level
   */
  level?: NoInfer<L>
  /**
   * The thread's system prompt, sent with the memory slots.
   * @default none
   */
  system?: string
  /**
   * What the framework's messages hold: `'full'` the whole history on every call, `'new'` only new
   * messages, `'auto'` told from the stored tail (see `unseenMessages`). A call after a failed one
   * reads `'new'` as `'auto'`, so a retry is stored once.
   */
  history?: HistoryMode
  /**
   * What a call does whose history shares messages with the thread but does not continue it (a
   * regenerated answer, an edited message, a fork from an earlier checkpoint). `'rewind'`: the messages
   * the thread stored after the last one the history still holds move to the archive (nothing is
   * deleted), then the history's new messages are stored; a rewind that is not safe is refused with
   * `STRATA_INVALID_MESSAGE` and its reason. `'reject'`: every such call is refused with
   * `STRATA_INVALID_MESSAGE`. Refused, nothing is stored. Calls in `history: 'new'` mode never diverge.
   * @default 'rewind'
   */
  onDivergence?: DivergenceHandling
}

/** The keys of {@link AdapterOptions}, which each adapter's own options extend. */
export const ADAPTER_OPTION_KEYS = {
  memory: true,
  resource: true,
  level: true,
  system: true,
  history: true,
  onDivergence: true,
} as const satisfies OptionKeys<AdapterOptions>

/** The shared options an adapter goes on with: checked, `history` and `onDivergence` with their defaults. */
export type CheckedAdapterOptions<L extends string = string> = Omit<
  AdapterOptions<L>,
  'history' | 'onDivergence'
> & {
  history: HistoryMode
  onDivergence: DivergenceHandling
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
 * Checks a memory given as a function's first argument (`strataTools(memory, …)`): the memory from
 * `createMemory()`, else `STRATA_INVALID_OPTIONS`; `{ memory }` (the middleware's shape) is named as such.
 */
export function checkMemoryArgument(call: string, memory: unknown): void {
  const candidate = memory as { thread?: unknown; memory?: { thread?: unknown } } | null | undefined
  if (typeof candidate?.thread === 'function') return
  if (typeof candidate?.memory?.thread === 'function')
    invalidOptions(`${call} takes the memory itself as its first argument, not { memory }.`)
  invalidOptions(`${call} needs the memory from createMemory() first.`)
}

/**
 * Checks an adapter's `resource` option: none, or a resource id (the thread-id rule). A value that is
 * not a string is `STRATA_INVALID_OPTIONS`; a string outside the rule `STRATA_INVALID_THREAD_ID`.
 */
export function checkResourceOption(caller: string, resource: unknown): void {
  if (resource === undefined) return
  if (typeof resource !== 'string')
    invalidOptions(`${caller}: resource must be a resource id string.`, { resource })
  assertResourceId(resource)
}

/**
 * The checks every adapter makes of the options it shares with the others ({@link AdapterOptions}),
 * before anything is stored: `memory` the memory from `createMemory()`, `level` one of its ladder's,
 * `system` a string, `history` a {@link HistoryMode}, `onDivergence` a {@link DivergenceHandling},
 * `resource` a resource id. A bad one throws `STRATA_INVALID_OPTIONS` (a level outside the ladder
 * `STRATA_INVALID_LEVEL`, a resource outside the id rule `STRATA_INVALID_THREAD_ID`) whose message
 * starts with `caller` and names the option. Gives the shared options back, `history` defaulting to the
 * adapter's `defaults.history` and `onDivergence` to `'rewind'`.
 *
 * @example
 * const { memory, level, system, history, onDivergence, resource } = checkAdapterOptions('strataMiddleware()', options, { history: 'auto' })
 */
export function checkAdapterOptions<L extends string>(
  caller: string,
  options: Partial<AdapterOptions<L>> | undefined,
  defaults: { history: HistoryMode },
): CheckedAdapterOptions<L> {
  const {
    memory,
    level,
    system,
    history = defaults.history,
    onDivergence = 'rewind',
    resource,
  } = options ?? ({} as Partial<AdapterOptions<L>>)
  checkMemoryOption(caller, memory)
  if (level !== undefined) (memory as Memory<L>).ladder.assert(level)
  if (system !== undefined && typeof system !== 'string')
    invalidOptions(`${caller}: system must be a string.`, { system })
  checkOneOf<HistoryMode>(caller, 'history', history, HISTORY_MODES)
  checkOneOf<DivergenceHandling>(caller, 'onDivergence', onDivergence, DIVERGENCE_HANDLINGS)
  checkResourceOption(caller, resource)
  return {
    memory: memory as Memory<L>,
    history,
    onDivergence,
    ...(level === undefined ? {} : { level }),
    ...(system === undefined ? {} : { system }),
    ...(resource === undefined ? {} : { resource }),
  }
}
