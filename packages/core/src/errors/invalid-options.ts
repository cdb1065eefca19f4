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
