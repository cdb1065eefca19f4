import { describe, expect, it } from 'vitest'
import { StrataError } from '../errors'
import { assertSerializable, MAX_JSON_DEPTH, MAX_JSON_SIZE } from './serializable'

/** What assertSerializable throws for a value: its code and details, or undefined when it passes. */
function refusal(value: unknown) {
  try {
    assertSerializable(value, 'value')
    return undefined
  } catch (error) {
    if (!StrataError.isInstance(error)) throw error
    return { code: error.code, details: error.details }
  }
}

const nested = (depth: number) => {
  let value: unknown = 'leaf'
  for (let level = 0; level < depth; level++) value = { next: value }
  return value
}

describe('assertSerializable', () => {
  it('passes plain JSON, undefined object properties and null-prototype objects', () => {
    const value = {
      a: [1, 'two', true, null, { b: undefined }],
      c: Object.assign(Object.create(null), { d: 1 }),
    }
    expect(refusal(value)).toBeUndefined()
    expect(refusal(nested(MAX_JSON_DEPTH - 1))).toBeUndefined()
  })

  it('names the first thing that is not plain JSON, wherever the fast walk gave up', () => {
    const cycle: Record<string, unknown> = { a: 1 }
    cycle.self = { back: cycle }
    expect(refusal({ list: [1, undefined] })).toEqual({
      code: 'STRATA_NOT_SERIALIZABLE',
      details: { path: 'value.list[1]' },
    })
    expect(refusal({ n: Number.NaN })).toEqual({
      code: 'STRATA_NOT_SERIALIZABLE',
      details: { path: 'value.n' },
    })
    expect(refusal({ at: new Date(0) })).toEqual({
      code: 'STRATA_NOT_SERIALIZABLE',
      details: { path: 'value.at' },
    })
    expect(refusal(cycle)).toEqual({ code: 'STRATA_NOT_SERIALIZABLE', details: { path: 'value.self.back' } })
    expect(refusal([() => 1])).toEqual({ code: 'STRATA_NOT_SERIALIZABLE', details: { path: 'value[0]' } })
    expect(refusal(nested(MAX_JSON_DEPTH + 1))?.details).toMatchObject({ reason: 'depth' })
    expect(refusal(['x'.repeat(MAX_JSON_SIZE)])?.details).toMatchObject({ reason: 'size' })
  })
})
