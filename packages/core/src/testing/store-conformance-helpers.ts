import { StrataError, type StrataErrorCode } from '../errors'
import type { Item } from '../items'

/** Ids every store refuses with `STRATA_INVALID_THREAD_ID` (thread and resource ids alike). */
export const INVALID_THREAD_IDS: readonly unknown[] = [
  '../x',
  'a/b',
  'a\\b',
  '{x}',
  '',
  'x'.repeat(129),
  '.hidden',
  '..',
  'a b',
  'a:b',
  'tab\t',
  'line\n',
  'ünïcode',
  undefined,
  42,
]

/** The seqs of items, in order. */
export const seqsOf = (items: readonly Item[]): number[] => items.map((item) => item.seq)

/** Calls `call` and returns its Strata error, failing unless it rejects with exactly `code`. */
export async function expectStrataError(
  call: () => Promise<unknown>,
  code: StrataErrorCode,
  label = 'the call',
): Promise<StrataError> {
  let pending: Promise<unknown>
  try {
    pending = call()
  } catch (error) {
    throw new Error(
      `${label} threw synchronously (${String(error)}); store methods must return a rejected promise.`,
    )
  }
  let error: unknown
  try {
    await pending
  } catch (caught) {
    error = caught
  }
  if (error === undefined) throw new Error(`${label} succeeded; expected a StrataError with code ${code}.`)
  if (!StrataError.isInstance(error, code)) {
    throw new Error(`${label} failed with ${String(error)}; expected a StrataError with code ${code}.`, {
      cause: error,
    })
  }
  return error
}

export function describeValue(value: unknown): string {
  return `thread id ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`
}

/** A deep copy, taken before a test mutates the original. */
export function deepCopy<T>(items: T): T {
  return JSON.parse(JSON.stringify(items)) as T
}

/** Mutates every object and array reachable from `value`, to prove a store kept its own copy. */
export function scribble(value: unknown): void {
  if (Array.isArray(value)) {
    for (const element of value) scribble(element)
    value.push('scribbled')
  } else if (typeof value === 'object' && value !== null) {
    const object = value as Record<string, unknown>
    for (const [key, element] of Object.entries(object)) {
      scribble(element)
      if (typeof element === 'string') object[key] = `${element} scribbled`
      if (typeof element === 'number') object[key] = element + 1
    }
    object.scribbled = true
  }
}
