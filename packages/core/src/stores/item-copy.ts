import { hasPlainPrototype } from '../items/json'
import { assertSerializable, MAX_JSON_SIZE } from '../items/serializable'

/**
 * The copy of an item that `append` returns, made in the same pass that checks it can be stored as
 * JSON: equal to `JSON.parse(JSON.stringify(item))` without its `seq` (keys in order, `undefined`
 * properties dropped, `-0` as `0`, every object a plain object), but several times faster than
 * checking with `assertSerializable` and parsing the stored JSON back, since strings are shared rather
 * than re-parsed.
 *
 * It only takes the common shape: plain objects, arrays with Array.prototype, finite numbers,
 * strings, booleans, null, `undefined` as an object property, nesting up to {@link MAX_DEPTH}.
 * Anything else (what `assertSerializable` rejects, and rarer things it accepts, such as sparse
 * arrays, array subclasses or very deep nesting) gives `undefined`: the caller then runs
 * `assertSerializable`, which reports the problem with its path, and copies through JSON. So this is
 * never more lenient than `assertSerializable` about what JSON can hold, only faster where the answer
 * is plainly yes. It does not count the item's size: once the item's JSON is made, the store passes it
 * to {@link checkStoredSize}.
 */
export function copyItem(item: object): Record<string, unknown> | undefined {
  const copy = spreadObject(item as Record<string, unknown>, 0, true)
  return copy === UNUSUAL ? undefined : (copy as Record<string, unknown>)
}

/**
 * Bounds an item's size by the JSON a store made of it (`json`): above {@link MAX_JSON_SIZE} / 32
 * characters it runs `assertSerializable` on the item (`items[index]` of an append), which throws
 * `STRATA_INVALID_MESSAGE` where the item is over {@link MAX_JSON_SIZE}. Below, the item cannot be:
 * the size that check counts is at most 25 characters for each character of the JSON (a number
 * counts as 24), besides properties holding `undefined`, which JSON leaves out and no store keeps.
 */
export function checkStoredSize(json: string, item: object, index: number): void {
  if (json.length > SIZE_CHECKED_ABOVE) assertSerializable(item, `items[${index}]`)
}

const SIZE_CHECKED_ABOVE = MAX_JSON_SIZE / 32

/** Deeper than this may be a cycle: left to `assertSerializable`, which finds cycles. */
const MAX_DEPTH = 64

const UNUSUAL: unique symbol = Symbol('unusual')

/**
 * The usual object, copied with a spread (one native copy of its properties, about a third faster
 * than setting them one by one: this runs for every object of every appended item) and its values
 * checked in place. An object with symbol keys (a spread copies them, JSON does not), an `undefined`
 * value or at the top a `seq` (both dropped from the copy) is copied property by property instead.
 */
function spreadObject(
  object: Record<string, unknown>,
  depth: number,
  top: boolean,
): Record<string, unknown> | typeof UNUSUAL {
  if (!hasPlainPrototype(object)) return UNUSUAL
  if (Object.getOwnPropertySymbols(object).length > 0) return copyObject(object, depth, top)
  const copy: Record<string, unknown> = { ...object }
  // for…in reads the keys from the copy's map without making an array as Object.keys does. It also
  // sees enumerable keys someone added to Object.prototype: where the copy would change, Object.hasOwn
  // tells those apart (they are left to copyObject, which sees own keys only).
  for (const key in copy) {
    if (top && key === 'seq') return copyObject(object, depth, top)
    const value = copy[key]
    switch (typeof value) {
      case 'string':
      case 'boolean':
        continue
      case 'number':
        if (!Number.isFinite(value))
          return Object.hasOwn(copy, key) ? UNUSUAL : copyObject(object, depth, top)
        // JSON writes -0 as 0.
        if (value === 0 && Object.hasOwn(copy, key)) copy[key] = 0
        continue
      case 'object': {
        if (value === null) continue
        if (!Object.hasOwn(copy, key)) return copyObject(object, depth, top)
        if (depth >= MAX_DEPTH) return UNUSUAL
        const element = Array.isArray(value)
          ? copyArray(value, depth + 1)
          : spreadObject(value as Record<string, unknown>, depth + 1, false)
        if (element === UNUSUAL) return UNUSUAL
        copy[key] = element
        continue
      }
      case 'undefined':
        return copyObject(object, depth, top)
      default:
        return UNUSUAL
    }
  }
  return copy
}

function copyValue(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value
    case 'number':
      // JSON writes -0 as 0, and has no NaN or Infinity.
      return Number.isFinite(value) ? (value === 0 ? 0 : value) : UNUSUAL
    case 'object':
      if (value === null) return null
      if (depth >= MAX_DEPTH) return UNUSUAL
      return Array.isArray(value)
        ? copyArray(value, depth + 1)
        : spreadObject(value as Record<string, unknown>, depth + 1, false)
    default:
      // undefined (only reached inside arrays, where it is not allowed), bigint, function, symbol.
      return UNUSUAL
  }
}

function copyArray(array: unknown[], depth: number): unknown[] | typeof UNUSUAL {
  if (Object.getPrototypeOf(array) !== Array.prototype) return UNUSUAL
  const copy = new Array<unknown>(array.length)
  for (let index = 0; index < array.length; index++) {
    // A hole reads as undefined (JSON writes null there): UNUSUAL, left to the careful path.
    const element = copyValue(array[index], depth)
    if (element === UNUSUAL) return UNUSUAL
    copy[index] = element
  }
  return copy
}

function copyObject(
  object: Record<string, unknown>,
  depth: number,
  top: boolean,
): Record<string, unknown> | typeof UNUSUAL {
  if (!hasPlainPrototype(object)) return UNUSUAL
  const copy: Record<string, unknown> = {}
  for (const key of Object.keys(object)) {
    // The store assigns an item's seq; the caller sets it on the copy.
    if (top && key === 'seq') continue
    const value = object[key]
    if (value === undefined) continue
    const element = copyValue(value, depth)
    if (element === UNUSUAL) return UNUSUAL
    if (key === '__proto__') {
      // An own key named __proto__ (JSON.parse makes one); assigning would set the prototype instead.
      Object.defineProperty(copy, key, {
        value: element,
        enumerable: true,
        writable: true,
        configurable: true,
      })
    } else {
      copy[key] = element
    }
  }
  return copy
}
