import { afterEach, describe, expect, it } from 'vitest'
import { StrataError } from '../errors'
import { MAX_JSON_SIZE } from '../items/serializable'
import { checkStoredSize, copyItem } from './item-copy'

/** What the copy must equal: the item through JSON, without its seq. */
function throughJson(item: object): Record<string, unknown> {
  const { seq: _seq, ...rest } = JSON.parse(JSON.stringify(item)) as Record<string, unknown>
  return rest
}

const base = { id: 'a', ts: 1, level: 'task', type: 'message', role: 'user' }

describe('copyItem', () => {
  afterEach(() => {
    delete (Object.prototype as Record<string, unknown>).polluted
  })

  it('copies an item deeply, equal to its JSON round trip, sharing no object with it', () => {
    const item = { ...base, content: [{ type: 'text', text: 'hi' }], meta: { tags: ['x'], n: null } }
    const copy = copyItem(item)!
    expect(copy).toStrictEqual(throughJson(item))
    expect(copy.content).not.toBe(item.content)
    expect((copy.content as object[])[0]).not.toBe(item.content[0])
    expect(copy.meta).not.toBe(item.meta)
  })

  it('drops undefined properties, a top-level seq and symbol keys, and writes -0 as 0, as JSON does', () => {
    const hidden = Symbol('hidden')
    const cases: object[] = [
      { ...base, turnId: undefined, meta: { a: undefined, b: 1 } },
      { ...base, seq: 7, meta: { seq: 3 } },
      { ...base, [hidden]: 1, meta: { [hidden]: 2, c: 3 } },
      { ...base, meta: { zero: -0, list: [-0, 1] } },
      Object.assign(Object.create(null), base, { meta: Object.assign(Object.create(null), { d: 4 }) }),
      JSON.parse('{"id":"p","__proto__":{"x":1},"meta":{"__proto__":[1]}}'),
    ]
    for (const item of cases) {
      const copy = copyItem(item)!
      expect(copy, JSON.stringify(item)).toStrictEqual(throughJson(item))
      expect(Object.getOwnPropertySymbols(copy)).toEqual([])
      expect(Object.is((copy.meta as Record<string, unknown> | undefined)?.zero, -0)).toBe(false)
    }
  })

  it('copies own keys only when someone added an enumerable key to Object.prototype', () => {
    ;(Object.prototype as Record<string, unknown>).polluted = { deep: true }
    const item = { ...base, meta: { own: 1 } }
    const copy = copyItem(item)!
    expect(Object.hasOwn(copy, 'polluted')).toBe(false)
    expect(Object.hasOwn(copy.meta as object, 'polluted')).toBe(false)
    expect(Object.keys(copy)).toEqual(Object.keys(throughJson(item)))
  })

  it('leaves what is not plain JSON to the careful path (undefined)', () => {
    const items: object[] = [
      { ...base, meta: { when: new Date(0) } },
      { ...base, meta: { n: Number.NaN } },
      { ...base, content: new Array(2) },
      { ...base, content: [undefined] },
      { ...base, meta: { f: () => 1 } },
      { ...base, meta: { big: 1n } },
    ]
    for (const [index, item] of items.entries()) expect(copyItem(item), `case ${index}`).toBeUndefined()
  })
})

describe('checkStoredSize', () => {
  it('passes the JSON of an item within MAX_JSON_SIZE, and refuses one over it by its count', () => {
    const small = { ...base, content: [{ type: 'text', text: 'x'.repeat(1000) }] }
    expect(() => checkStoredSize(JSON.stringify(small), small, 0)).not.toThrow()
    // 1.4 million zeros: under 3 MB of JSON, yet over MAX_JSON_SIZE as assertSerializable counts
    // numbers (24 characters each, a number's longest form). The JSON's length is what sends it there.
    const zeros = { ...base, meta: { values: new Array(1_400_000).fill(0) } }
    const json = JSON.stringify(zeros)
    expect(json.length).toBeLessThan(MAX_JSON_SIZE / 8)
    let thrown: unknown
    try {
      checkStoredSize(json, zeros, 3)
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(StrataError)
    expect((thrown as StrataError).code).toBe('STRATA_INVALID_MESSAGE')
    expect((thrown as StrataError).message).toContain('items[3]')
  })
})
