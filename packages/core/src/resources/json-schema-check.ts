import { invalidOptions } from '../errors'
import type { JsonObject, JsonValue } from '../items'

/*
 * The JSON Schema subset working memory is checked against: `type` (one name or a list), `properties`,
 * `required`, `additionalProperties` (a boolean), `items`, `enum`, `const`, `minLength`/`maxLength`,
 * `minimum`/`maximum`, `minItems`/`maxItems`, and `description`/`title` (ignored). A schema using any
 * other keyword is refused when the memory is created, so no keyword is silently not checked.
 */

const KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
  'description',
  'title',
  '$schema',
])

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'])

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** Refuses (`STRATA_INVALID_OPTIONS`) a schema outside the subset, naming the keyword and where. */
export function assertSchemaSubset(schema: unknown, path = 'schema'): asserts schema is JsonObject {
  if (!isObject(schema)) invalidOptions(`${path} must be a JSON Schema object, e.g. { type: 'object' }.`)
  for (const [keyword, value] of Object.entries(schema)) {
    if (!KEYWORDS.has(keyword)) {
      invalidOptions(
        `${path}: the keyword '${keyword}' is not checked by working memory; use only ${[...KEYWORDS].join(', ')}.`,
        { keyword },
      )
    }
    if (keyword === 'type') {
      const names = Array.isArray(value) ? value : [value]
      if (names.length === 0 || names.some((name) => typeof name !== 'string' || !TYPES.has(name)))
        invalidOptions(`${path}.type must be one of ${[...TYPES].join(', ')} or a list of them.`)
    }
    if (keyword === 'properties') {
      if (!isObject(value)) invalidOptions(`${path}.properties must be an object of schemas.`)
      for (const [name, child] of Object.entries(value))
        assertSchemaSubset(child, `${path}.properties.${name}`)
    }
    if (keyword === 'items') assertSchemaSubset(value, `${path}.items`)
    if (keyword === 'required' && (!Array.isArray(value) || value.some((name) => typeof name !== 'string')))
      invalidOptions(`${path}.required must be a list of property names.`)
    if (keyword === 'additionalProperties' && typeof value !== 'boolean')
      invalidOptions(`${path}.additionalProperties must be true or false.`)
    if (keyword === 'enum' && !Array.isArray(value)) invalidOptions(`${path}.enum must be a list of values.`)
    if (/^(min|max)/.test(keyword) && typeof value !== 'number')
      invalidOptions(`${path}.${keyword} must be a number.`)
  }
}

const typeOf = (value: JsonValue): string =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value

/** Deep equality of JSON values (object keys in any order). */
export function jsonEqual(left: unknown, right: unknown): boolean {
  if (left === right) return true
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false
  if (Array.isArray(left) !== Array.isArray(right)) return false
  if (Array.isArray(left) && Array.isArray(right))
    return left.length === right.length && left.every((value, index) => jsonEqual(value, right[index]))
  const leftKeys = Object.keys(left)
  const rightObject = right as Record<string, unknown>
  return (
    leftKeys.length === Object.keys(right).length &&
    leftKeys.every(
      (key) => key in rightObject && jsonEqual((left as Record<string, unknown>)[key], rightObject[key]),
    )
  )
}

/**
 * The first way `value` breaks `schema` (a schema {@link assertSchemaSubset} accepted), as a sentence
 * naming the JSON path (`$.name`), or undefined when it conforms.
 */
export function schemaProblem(value: JsonValue, schema: JsonObject, path = '$'): string | undefined {
  const actual = typeOf(value)
  if (schema.type !== undefined) {
    const names = (Array.isArray(schema.type) ? schema.type : [schema.type]) as string[]
    const fits = names.some(
      (name) =>
        name === actual ||
        (name === 'integer' && typeof value === 'number' && Number.isInteger(value)) ||
        (name === 'number' && typeof value === 'number'),
    )
    if (!fits) return `${path} must be ${names.join(' or ')}, not ${actual}`
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => jsonEqual(option, value)))
    return `${path} must be one of ${JSON.stringify(schema.enum)}`
  if ('const' in schema && !jsonEqual(schema.const, value))
    return `${path} must be ${JSON.stringify(schema.const)}`
  if (typeof value === 'string') {
    const length = [...value].length
    if (typeof schema.minLength === 'number' && length < schema.minLength)
      return `${path} must have at least ${schema.minLength} characters`
    if (typeof schema.maxLength === 'number' && length > schema.maxLength)
      return `${path} must have at most ${schema.maxLength} characters`
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum)
      return `${path} must be ≥ ${schema.minimum}`
    if (typeof schema.maximum === 'number' && value > schema.maximum)
      return `${path} must be ≤ ${schema.maximum}`
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems)
      return `${path} must have at least ${schema.minItems} elements`
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems)
      return `${path} must have at most ${schema.maxItems} elements`
    if (isObject(schema.items)) {
      for (let index = 0; index < value.length; index++) {
        const problem = schemaProblem(value[index]!, schema.items, `${path}[${index}]`)
        if (problem !== undefined) return problem
      }
    }
  }
  if (isObject(value)) {
    const properties = isObject(schema.properties) ? schema.properties : {}
    for (const name of (schema.required ?? []) as string[])
      if (!(name in value)) return `${path}.${name} is required`
    for (const [name, child] of Object.entries(value)) {
      const childSchema = properties[name]
      if (isObject(childSchema)) {
        const problem = schemaProblem(child, childSchema, `${path}.${name}`)
        if (problem !== undefined) return problem
      } else if (schema.additionalProperties === false) {
        return `${path}.${name} is not allowed (additionalProperties is false)`
      }
    }
  }
  return undefined
}
