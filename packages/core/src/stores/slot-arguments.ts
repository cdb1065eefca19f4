import { invalidOptions } from '../errors'
import { assertSerializable, type JsonObject } from '../items'
import { SLOT_NAME_PATTERN } from './store'
import { isPlainObject } from './store-arguments'

/*
 * The slot capability's argument checks, shared by every store (exported for store authors from
 * `@strata-memory/core/store-kit`), so each raises the same typed error.
 */

/** Validates a slot name (see `SLOT_NAME_PATTERN`); returns it. `STRATA_INVALID_OPTIONS` otherwise. */
export function checkSlotName(name: unknown, method: string): string {
  if (typeof name === 'string' && SLOT_NAME_PATTERN.test(name)) return name
  return invalidOptions(
    `${method}: a slot name is a lower-case letter, then lower-case letters, digits and dashes, 1–64 in all (e.g. 'log-digest'); got ${JSON.stringify(name)}.`,
    { name },
  )
}

/** Validates `setSlot`'s value: a plain, JSON-safe object, or undefined (remove the slot). */
export function checkSlotValue(value: unknown): asserts value is JsonObject | undefined {
  if (value === undefined) return
  if (!isPlainObject(value))
    invalidOptions(
      'setSlot(threadId, name, value) needs value as a plain object, or undefined to remove it.',
      {},
    )
  assertSerializable(value, 'value')
}
