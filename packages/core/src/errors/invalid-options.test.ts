import { describe, expect, it } from 'vitest'
import { invalidOptions, shownValue } from './invalid-options'
import { StrataError } from './strata-error'

describe('invalidOptions', () => {
  it('throws STRATA_INVALID_OPTIONS with the message and details', () => {
    const run = () => invalidOptions('limit must be a whole number.', { limit: 'x' })
    expect(run).toThrow(StrataError)
    expect(run).toThrow('limit must be a whole number.')
    try {
      run()
    } catch (error) {
      expect(error).toMatchObject({ code: 'STRATA_INVALID_OPTIONS', details: { limit: 'x' } })
    }
  })
})

describe('shownValue', () => {
  it('quotes a string, so a number given as text does not read as a number', () => {
    expect(shownValue('3000')).toBe('"3000"')
    expect(shownValue('30s')).toBe('"30s"')
    expect(shownValue('')).toBe('""')
  })

  it('shows anything else as String does', () => {
    expect(shownValue(3000)).toBe('3000')
    expect(shownValue(Number.NaN)).toBe('NaN')
    expect(shownValue(undefined)).toBe('undefined')
    expect(shownValue(null)).toBe('null')
    expect(shownValue(true)).toBe('true')
  })
})
