import type { JsonValue } from '../items'

/*
 * `memory_retrieve`'s `filtered` transform on JSON: lists are filtered, everything around them is kept.
 * A document like `{ quarter, rows: [...] }` keeps `quarter` and the rows that match, at any depth
 * (`{ report: { regions: [{ name, rows: [...] }] } }` keeps the regions holding a matching row, each
 * with only its matching rows). An element matching by its own fields is kept whole; one matching only
 * through lists inside it is kept with those lists filtered. An object whose values are all objects (a
 * map of records keyed by id) is filtered like a list, by key or value.
 */

export type JsonRecord = { [key: string]: JsonValue }

/** What filtering a document did. */
export interface JsonFilterOutcome {
  value: JsonValue
  /** Elements (or map entries) looked at, at every depth. */
  looked: number
  /** Elements (or map entries) removed. */
  removed: number
}

export const isRecord = (value: JsonValue): value is JsonRecord =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const isScalar = (value: JsonValue) => value === null || typeof value !== 'object'

/** A map of records: two or more entries, every value an object. */
const isRecordMap = (value: JsonRecord) => {
  const values = Object.values(value)
  return values.length >= 2 && values.every(isRecord)
}

/**
 * Filters the lists of a JSON document, keeping the elements whose JSON text contains `pattern`
 * (case-insensitive), and the document's shape around them.
 */
export function filterJson(document: JsonValue, pattern: string): JsonFilterOutcome {
  const needle = pattern.toLowerCase()
  const matches = (text: string) => text.toLowerCase().includes(needle)
  const outcome = { looked: 0, removed: 0 }

  /** True when the value matches by itself: a scalar, or an object's keys and scalar fields. */
  const matchesDirectly = (value: JsonValue): boolean => {
    if (isScalar(value)) return matches(JSON.stringify(value))
    if (Array.isArray(value)) return value.some((element) => isScalar(element) && matchesDirectly(element))
    return Object.entries(value).some(
      ([key, field]) => matches(JSON.stringify(key)) || (isScalar(field) && matches(JSON.stringify(field))),
    )
  }

  /** An element of a list (or a map's value): undefined to drop it, else what is kept of it. */
  const keepElement = (element: JsonValue, key?: string): JsonValue | undefined => {
    outcome.looked++
    const keyMatches = key !== undefined && matches(JSON.stringify(key))
    if (keyMatches || matchesDirectly(element)) return element
    if (isScalar(element) || !matches(JSON.stringify(element))) {
      outcome.removed++
      return undefined
    }
    // A pattern that spans the element's structure (`","`) may not survive the cut: then it stays whole.
    const before = { ...outcome }
    const pruned = prune(element)
    if (matches(JSON.stringify(pruned))) return pruned
    Object.assign(outcome, before)
    return element
  }

  /** A container with its lists filtered; scalars and the shape kept. */
  const prune = (value: JsonValue): JsonValue => {
    if (Array.isArray(value)) return value.flatMap((element) => keepElement(element) ?? [])
    if (!isRecord(value)) return value
    const kept: JsonRecord = {}
    if (isRecordMap(value)) {
      for (const [key, element] of Object.entries(value)) {
        const result = keepElement(element, key)
        if (result !== undefined) kept[key] = result
      }
      return kept
    }
    for (const [key, field] of Object.entries(value)) kept[key] = isScalar(field) ? field : prune(field)
    return kept
  }

  return { value: prune(document), ...outcome }
}

/**
 * The JSON document in stored text, or undefined: text that parses to an object or an array, also
 * when it is a JSON string holding such a document (a result serialised twice).
 */
export function parseDocument(data: string): JsonValue | undefined {
  let value: JsonValue
  try {
    value = JSON.parse(data) as JsonValue
  } catch {
    return undefined
  }
  if (typeof value === 'string' && /^\s*[[{]/.test(value)) return parseDocument(value)
  return typeof value === 'object' && value !== null ? value : undefined
}
