import type { Item } from '../items'

/** At most this many distinct values are shared (a log with more levels or roles than that is odd). */
const SHARED_VALUES = 256

const sharedValues = new Map<string, string>()

/** Replaces `fields[key]`, when it is a string, by the one string kept for its text. */
function share(fields: Record<string, unknown>, key: string): void {
  const value = fields[key]
  if (typeof value !== 'string') return
  const known = sharedValues.get(value)
  if (known !== undefined) fields[key] = known
  else if (sharedValues.size < SHARED_VALUES && value.length <= 64) sharedValues.set(value, value)
}

/** The turn id of the last item shared: a turn's items follow each other, so they share its string. */
let lastTurnId: unknown

/**
 * Makes a freshly parsed item share one string per value for the fields nearly every item repeats:
 * its level, type and role, its counter's name, and (with the items before it) its turn's id.
 * `JSON.parse` makes a new string for each of them on every line, and an open of a long thread holds
 * one per item and field: at 100k items about 2 MiB of the 45 MiB an open keeps, and as many bytes
 * again copied by the young generation's collections, which decide how large it grows. Changes
 * nothing but which string object a field holds. Returns `item`.
 */
export function shareItemStrings<T extends Item>(item: T): T {
  const fields = item as unknown as Record<string, unknown>
  share(fields, 'level')
  share(fields, 'type')
  share(fields, 'role')
  const turnId = fields.turnId
  if (typeof turnId === 'string') {
    if (turnId === lastTurnId) fields.turnId = lastTurnId
    else lastTurnId = turnId
  }
  const tokens = fields.tokens
  if (typeof tokens === 'object' && tokens !== null) share(tokens as Record<string, unknown>, 'counter')
  return item
}
