import type { AutoTransitionsOptions } from '../compaction/auto-transition/auto-transition-options'
import type { BudgetOptions } from '../compaction/budget/budget-options'
import type { CompactionOptions } from '../compaction/policy-registry'
import type { WaterfallOptions } from '../compaction/waterfall/waterfall-options'
import type { ContentOptions } from '../content/content-options'
import { invalidOptions } from '../errors'
import type { ResourceOptions } from '../resources/resource-options'
import type { TelemetryOptions } from '../telemetry/telemetry-tracer'

// The keys `createMemory` knows, at each place of its options. A misspelt or misplaced key
// (`createMemory({ budget })` for `compaction: { budget }`) would otherwise be ignored without a word,
// leaving the app without the behaviour it asked for. Each list is checked against its type: a key
// added to an options type and not here fails the type check (`MemoryOptions`'s in the test, which
// imports create-memory.ts without a circle).

type Keys<T> = Record<keyof T, true>

/** The keys of `MemoryOptions` (`option-keys.test.ts` checks them against the type). */
export const MEMORY_OPTION_KEYS = {
  store: true,
  levels: true,
  summarizer: true,
  tokenCounter: true,
  modes: true,
  clock: true,
  generateId: true,
  compaction: true,
  content: true,
  telemetry: true,
  resources: true,
  embedder: true,
} as const

const COMPACTION = {
  autoTransitions: true,
  waterfall: true,
  budget: true,
  summarizerTimeoutMs: true,
  retry: true,
} satisfies Keys<CompactionOptions>

const BUDGET = {
  inputTokens: true,
  model: true,
  maxContextTokens: true,
  maxOutputTokens: true,
  safetyMargin: true,
  compactionRatio: true,
  rawTailTurns: true,
  chunkItems: true,
} satisfies Keys<BudgetOptions>

const WATERFALL = { window: true, every: true } satisfies Keys<WaterfallOptions>

const AUTO_TRANSITIONS = {
  narrowest: true,
  middle: true,
  maxScopeTokens: true,
  keepScopes: true,
} satisfies Keys<AutoTransitionsOptions>

const CONTENT = {
  offloadAboveBytes: true,
  tools: true,
  plugins: true,
  attachments: true,
  citationTimeoutMs: true,
  briefAfterTurns: true,
  maxCitations: true,
} satisfies Keys<ContentOptions>

const RESOURCES = { index: true, workingMemory: true, recall: true } satisfies Keys<ResourceOptions>

const TELEMETRY = { tracer: true } satisfies Keys<TelemetryOptions>

/** Each checked place of the options: its path as a message names it, and its keys. */
const PLACES: readonly { path: string[]; keys: Record<string, true> }[] = [
  { path: [], keys: MEMORY_OPTION_KEYS },
  { path: ['compaction'], keys: COMPACTION },
  { path: ['compaction', 'budget'], keys: BUDGET },
  { path: ['compaction', 'waterfall'], keys: WATERFALL },
  { path: ['compaction', 'autoTransitions'], keys: AUTO_TRANSITIONS },
  { path: ['content'], keys: CONTENT },
  { path: ['resources'], keys: RESOURCES },
  { path: ['telemetry'], keys: TELEMETRY },
]

const named = (path: readonly string[]) => (path.length === 0 ? 'createMemory' : path.join('.'))

/** Where else a key is known: `budget` given at the top is `compaction.budget`. */
function elsewhere(key: string, path: readonly string[]): string | undefined {
  const place = PLACES.find(
    (candidate) => candidate.path.join('.') !== path.join('.') && Object.hasOwn(candidate.keys, key),
  )
  return place === undefined ? undefined : [...place.path, key].join('.')
}

/** A known key one letter apart (a typo): `buget` for `budget`. */
export function nearestKey(key: string, keys: readonly string[]): string | undefined {
  const lower = key.toLowerCase()
  return keys.find((known) => editDistanceAtMostTwo(lower, known.toLowerCase()))
}

/** Every key of an options type, for {@link checkOptionKeys}: `satisfies OptionKeys<T>` lists them all. */
export type OptionKeys<T> = Record<keyof T, true>

/**
 * Refuses a key of `options` that `known` does not list, as `createMemory` does: a misspelt option
 * (`threadID` for `threadId`) would otherwise be ignored without a word, and the app would run
 * without what it asked for. `STRATA_INVALID_OPTIONS` names the key, the known one it looks like, and
 * the keys `caller` takes.
 *
 * @example
 * checkOptionKeys('strataMiddleware()', options, { ...ADAPTER_OPTION_KEYS, threadId: true })
 */
export function checkOptionKeys(
  caller: string,
  options: unknown,
  known: Readonly<Record<string, true>>,
): void {
  if (typeof options !== 'object' || options === null) return
  for (const key of Object.keys(options)) {
    if (Object.hasOwn(known, key)) continue
    const keys = Object.keys(known)
    const suggestion = nearestKey(key, keys)
    invalidOptions(
      `${caller}: unknown option '${key}'${suggestion === undefined ? '' : ` (did you mean '${suggestion}'?)`}. It takes ${keys.join(', ')}.`,
      { option: key, ...(suggestion === undefined ? {} : { suggestion }) },
    )
  }
}

/** Whether `a` becomes `b` in at most two edits (insertions, deletions, substitutions). */
function editDistanceAtMostTwo(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 2) return false
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, substitution)
    }
    previous = row
  }
  return previous[b.length]! <= 2
}

/**
 * Refuses an option `createMemory` does not know, at the top and inside `compaction` (and its
 * policies), `content`, `resources` and `telemetry`: `STRATA_INVALID_OPTIONS` naming the key, where it
 * belongs when it is known elsewhere or looks like a typo, and the keys that place takes.
 */
export function checkMemoryOptionKeys(options: object): void {
  for (const { path, keys } of PLACES) {
    let value: unknown = options
    for (const step of path) value = (value as Record<string, unknown> | undefined)?.[step]
    // A value that is not an object (false for a policy turned off, or a wrong type) is its resolver's to judge.
    if (typeof value !== 'object' || value === null || Array.isArray(value)) continue
    for (const key of Object.keys(value)) {
      if (Object.hasOwn(keys, key)) continue
      const known = Object.keys(keys)
      const typo = nearestKey(key, known)
      const hint = elsewhere(key, path) ?? (typo === undefined ? undefined : [...path, typo].join('.'))
      const option = [...path, key].join('.')
      invalidOptions(
        `createMemory: unknown option '${option}'${hint === undefined ? '' : ` (did you mean '${hint}'?)`}. ${named(path)} takes ${known.join(', ')}.`,
        { option, ...(hint === undefined ? {} : { suggestion: hint }) },
      )
    }
  }
}
