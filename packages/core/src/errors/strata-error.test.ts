import { describe, expect, it } from 'vitest'
import { StrataError } from './strata-error'

describe('StrataError', () => {
  it('carries a stable code, details and cause', () => {
    const cause = new Error('disk full')
    const error = new StrataError({
      code: 'STRATA_STORE_FAILED',
      message: 'Could not write.',
      cause,
      details: { seq: 3 },
    })
    expect(error).toBeInstanceOf(Error)
    expect(error.name).toBe('StrataError')
    expect(error.code).toBe('STRATA_STORE_FAILED')
    expect(error.cause).toBe(cause)
    expect(error.details).toEqual({ seq: 3 })
  })

  it('isInstance recognises errors from another copy of the package by the shared marker', () => {
    // A second copy of the package defines its own class but the same registered symbol.
    const foreign = Object.assign(new Error('conflict'), {
      [Symbol.for('@strata-memory/core/error')]: true,
      code: 'STRATA_SEQ_CONFLICT',
    })
    expect(foreign instanceof StrataError).toBe(false)
    expect(StrataError.isInstance(foreign)).toBe(true)
    expect(StrataError.isInstance(foreign, 'STRATA_SEQ_CONFLICT')).toBe(true)
    expect(StrataError.isInstance(foreign, 'STRATA_CORRUPT_LOG')).toBe(false)
    expect(StrataError.isInstance(new Error('plain'))).toBe(false)
    expect(StrataError.isInstance(null)).toBe(false)
  })
})
