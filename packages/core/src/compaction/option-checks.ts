import { invalidOptions, shownValue } from '../errors'

/** `STRATA_INVALID_OPTIONS` unless `value` is a whole number of at least `minimum` (`name` says which option). */
export function wholeNumber(value: number, name: string, minimum: number) {
  if (!Number.isSafeInteger(value) || value < minimum) {
    invalidOptions(
      `compaction: ${name} must be a whole number of at least ${minimum} (got ${shownValue(value)}).`,
    )
  }
}

/** The fields of `value` that are not undefined. */
export const definedOnly = <T extends object>(value: T): Partial<T> =>
  Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>
