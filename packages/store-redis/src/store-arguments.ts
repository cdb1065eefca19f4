import { StrataError } from '@strata-memory/core'

/* Small helpers of the Redis store; the argument checks shared by every store come from core. */

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function invalidOptions(message: string, details: Record<string, unknown>): never {
  throw new StrataError({ code: 'STRATA_INVALID_OPTIONS', message, details })
}

/** A seq bound as a Redis score: `-inf`/`+inf` for open or infinite bounds. */
export function scoreOf(bound: number | undefined, open: '-inf' | '+inf'): string {
  if (bound === undefined) return open
  if (bound === Number.POSITIVE_INFINITY) return '+inf'
  if (bound === Number.NEGATIVE_INFINITY) return '-inf'
  return String(bound)
}
