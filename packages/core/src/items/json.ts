/** A value that survives `JSON.stringify` → `JSON.parse` unchanged. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue }
export type JsonObject = { [key: string]: JsonValue }

/**
 * A deep copy of a JSON value (stored items, context messages): what `structuredClone` gives for
 * them, in a fraction of its time, since there are no cycles, dates or typed arrays to look for.
 */
export function copyJson<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) {
    const copy = new Array(value.length)
    for (let index = 0; index < value.length; index++) copy[index] = copyJson(value[index])
    return copy as T
  }
  const copy: Record<string, unknown> = {}
  for (const key of Object.keys(value)) {
    const entry = copyJson((value as Record<string, unknown>)[key])
    // An own `__proto__` key (JSON.parse makes one) stays a key: assigning it would set the prototype.
    if (key === '__proto__') {
      Object.defineProperty(copy, key, { value: entry, writable: true, enumerable: true, configurable: true })
    } else {
      copy[key] = entry
    }
  }
  return copy as T
}
