import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { jsonCopy } from './json-copy'

describe('jsonCopy', () => {
  it('equals a JSON round trip, keys in order', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const expected = JSON.parse(JSON.stringify(value)) as unknown
        const copy = jsonCopy(value)
        expect(copy).toStrictEqual(expected)
        expect(JSON.stringify(copy)).toBe(JSON.stringify(expected))
      }),
    )
  })

  it('drops undefined properties, writes -0 as 0 and keeps an own __proto__ key as data', () => {
    const value = JSON.parse('{"a":1,"__proto__":{"polluted":true},"c":[-0]}') as Record<string, unknown>
    value.b = undefined
    const copy = jsonCopy(value)
    expect(Object.keys(copy)).toEqual(['a', '__proto__', 'c'])
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
    expect(Object.is((copy.c as number[])[0], 0)).toBe(true)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('shares nothing mutable with the original', () => {
    const value = { list: [{ deep: 'x' }] }
    const copy = jsonCopy(value)
    copy.list[0]!.deep = 'changed'
    expect(value.list[0]!.deep).toBe('x')
  })
})
