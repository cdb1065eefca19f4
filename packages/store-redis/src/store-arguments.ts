import { StrataError } from '@strata-memory/core'

/* Small helpers of the Redis store; the argument checks shared by every store come from core. */

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function invalidOptions(message: string, details: Record<string, unknown>): never {
  throw new StrataError({ code: 'STRATA_INVALID_OPTIONS', message, details })
}
