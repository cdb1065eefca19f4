/** A value that survives `JSON.stringify` → `JSON.parse` unchanged. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue }
export type JsonObject = { [key: string]: JsonValue }

/**
 * A deep copy of a value that passed `assertSerializable` (a stored item, a context message), equal to
 * `JSON.parse(JSON.stringify(value))` (keys in order, `undefined` properties dropped, `-0` written as
 * `0`, every object a plain object, an own `__proto__` key kept as a key) but several times faster:
 * strings are shared rather than re-parsed.
 */
export function jsonCopy<T>(value: T): T {
  return copyValue(value) as T
}

function copyValue(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value === 0 ? 0 : value
  if (Array.isArray(value)) {
    const copy = new Array<unknown>(value.length)
    for (let index = 0; index < value.length; index += 1) copy[index] = copyValue(value[index])
    return copy
  }
  const copy: Record<string, unknown> = {}
  for (const key of Object.keys(value)) {
    const element = (value as Record<string, unknown>)[key]
    if (element === undefined) continue
    // Assigning `__proto__` would set the prototype: define it as the data key JSON.parse makes.
    if (key === '__proto__') {
      Object.defineProperty(copy, key, {
        value: copyValue(element),
        enumerable: true,
        writable: true,
        configurable: true,
      })
    } else {
      copy[key] = copyValue(element)
    }
  }
  return copy
}

/**
 * A copy of any value as `JSON.parse(JSON.stringify(value))` makes it — `undefined` properties and
 * functions dropped, non-finite numbers `null`, dates and class instances as JSON writes them — without
 * the string round trip: for framework messages on their way into core (provider options may hold
 * such values, stored JSON may not). Adapters map each message of a prompt with it. For a value known
 * to be JSON already, {@link jsonCopy} is faster.
 *
 * @example
 * plainJson({ a: 1, b: undefined, at: new Date(0) }) // { a: 1, at: '1970-01-01T00:00:00.000Z' }
 */
export function plainJson<T>(value: T): T {
  if (typeof value === 'number' && !Number.isFinite(value)) return null as T
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) {
    return value.map((entry) =>
      entry === undefined || typeof entry === 'function' ? null : plainJson(entry),
    ) as T
  }
  // Dates, typed arrays and class instances: what JSON makes of them.
  if (!hasPlainPrototype(value)) return JSON.parse(JSON.stringify(value)) as T
  const copy: Record<string, unknown> = {}
  for (const [key, entry] of Object.entries(value)) {
    if (entry === undefined || typeof entry === 'function') continue
    // An own `__proto__` key (a model's JSON may hold one) stays a key: assigning it sets the prototype.
    if (key === '__proto__') {
      Object.defineProperty(copy, key, {
        value: plainJson(entry),
        writable: true,
        enumerable: true,
        configurable: true,
      })
    } else {
      copy[key] = plainJson(entry)
    }
  }
  return copy as T
}

/** Whether `object` has a plain object's prototype: `Object.prototype`, or none (`Object.create(null)`). */
export function hasPlainPrototype(object: object): boolean {
  const prototype = Object.getPrototypeOf(object)
  return prototype === Object.prototype || prototype === null
}
