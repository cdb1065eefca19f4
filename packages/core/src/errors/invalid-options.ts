import { StrataError } from './strata-error'
import type { StrataErrorDetails } from './strata-error-details'

/**
 * Throws `STRATA_INVALID_OPTIONS`: the one way Strata's packages refuse an option, an argument or a
 * configuration. The message says what to pass instead.
 *
 * @example
 * if (typeof options.title !== 'string') invalidOptions("enter() needs a title, e.g. { title: 'Draw a house' }.")
 */
export function invalidOptions(
  message: string,
  details: StrataErrorDetails['STRATA_INVALID_OPTIONS'] = {},
): never {
  throw new StrataError({ code: 'STRATA_INVALID_OPTIONS', message, details })
}

/**
 * A refused value as an error message shows it: a string quoted (`'3000'` given for a number reads
 * `"3000"`, not `3000`, which looks right), anything else as `String` gives it.
 *
 * @example
 * invalidOptions(`limit must be a whole number (got ${shownValue(limit)}).`)
 */
export function shownValue(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value)
}
