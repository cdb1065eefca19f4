import { StrataError } from '../errors'

/**
 * Throws `STRATA_NOT_SERIALIZABLE` unless `value` survives a JSON round trip unchanged: no cycles,
 * BigInts, functions, symbols, `undefined` in arrays, non-finite numbers, or class instances other
 * than plain objects and arrays. `undefined` object properties are allowed (JSON drops them).
 */
export function assertSerializable(value: unknown, label = 'value'): void {
  const path: string[] = [label]
  const ancestors = new Set<object>()
  const fail = (what: string): never => {
    throw new StrataError({
      code: 'STRATA_NOT_SERIALIZABLE',
      message: `${path.join('')} is ${what}, which cannot be stored as JSON. Convert it to plain JSON (strings, numbers, booleans, null, arrays, objects) before appending.`,
      details: { path: path.join('') },
    })
  }
  const visit = (current: unknown, inArray: boolean): void => {
    switch (typeof current) {
      case 'string':
      case 'boolean':
        return
      case 'number':
        if (!Number.isFinite(current)) fail(`the non-finite number ${current}`)
        return
      case 'bigint':
        fail('a BigInt')
        return
      case 'function':
        fail('a function')
        return
      case 'symbol':
        fail('a symbol')
        return
      case 'undefined':
        if (inArray) fail('undefined inside an array')
        return
    }
    if (current === null) return
    const object = current as object
    if (ancestors.has(object)) fail('a circular reference')
    const prototype = Object.getPrototypeOf(object)
    if (!Array.isArray(object) && prototype !== Object.prototype && prototype !== null) {
      fail(`an instance of ${object.constructor?.name ?? 'a class'}`)
    }
    ancestors.add(object)
    if (Array.isArray(object)) {
      object.forEach((element, index) => {
        path.push(`[${index}]`)
        visit(element, true)
        path.pop()
      })
    } else {
      for (const [key, element] of Object.entries(object)) {
        path.push(`.${key}`)
        visit(element, false)
        path.pop()
      }
    }
    ancestors.delete(object)
  }
  visit(value, false)
}
