import { invalidOptions } from '../errors'
import type { MemoryQueryInput, MemoryStoreInput } from './memory-tool-types'
import { RETRIEVE_TRANSFORMS, type TransformParameters } from './retrieve-transform'

/*
 * Checks of the memory tools' inputs. They come from a model, so every message names the field, what
 * was wrong and what to send instead; the tools return them as `{ error: { code, message } }`.
 */

/** The transforms each parameter of `memory_retrieve` applies to. */
const TRANSFORM_PARAMETERS: Record<
  'n' | 'pattern' | 'maxChars',
  readonly TransformParameters['transform'][]
> = {
  n: ['first_n', 'last_n'],
  pattern: ['filtered', 'excerpt'],
  maxChars: ['excerpt', 'summary'],
}

/** Quotes, brackets and sentence punctuation at either end of a query word. */
const EDGE_PUNCTUATION = /^[.,;:!?"'“”‘’«»()[\]{}<>]+|[.,;:!?"'“”‘’«»()[\]{}<>]+$/g

const MAX_N = 100_000
const MAX_CHARS = 1_000_000
const MAX_LIMIT = 100

/** A plain object (not an array, not null): what a tool's input must be. */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** `STRATA_INVALID_OPTIONS` for a tool's input, its message starting with the tool's name. */
export function invalidToolInput(
  tool: string,
  message: string,
  details: Record<string, unknown> = {},
): never {
  return invalidOptions(`${tool}: ${message}`, details)
}

/** Refuses parameters a tool does not accept, naming the ones it does. */
export function checkKeys(tool: string, input: Record<string, unknown>, allowed: readonly string[]) {
  const unknown = Object.keys(input).filter((key) => !allowed.includes(key))
  if (unknown.length > 0) {
    invalidToolInput(
      tool,
      `unknown parameter ${unknown.map((key) => `'${key}'`).join(', ')}; accepted: ${allowed.join(', ')}.`,
      {
        unknown,
      },
    )
  }
}

function optionalString(tool: string, input: Record<string, unknown>, key: string): string | undefined {
  const value = input[key]
  if (value === undefined) return undefined
  if (typeof value !== 'string' || value.length === 0)
    invalidToolInput(tool, `${key} must be a non-empty string.`, { [key]: value })
  return value as string
}

function optionalInteger(
  tool: string,
  input: Record<string, unknown>,
  key: string,
  minimum: number,
  maximum: number,
): number | undefined {
  const value = input[key]
  if (value === undefined) return undefined
  if (typeof value !== 'number' || !Number.isInteger(value) || value < minimum || value > maximum) {
    invalidToolInput(
      tool,
      `${key} must be a whole number from ${minimum} to ${maximum} (got ${JSON.stringify(value)}).`,
      {
        [key]: value,
      },
    )
  }
  return value as number
}

function optionalTags(tool: string, input: Record<string, unknown>): string[] | undefined {
  const tags = input.tags
  if (tags === undefined) return undefined
  if (!Array.isArray(tags) || !tags.every((tag) => typeof tag === 'string' && tag.length > 0)) {
    invalidToolInput(tool, 'tags must be an array of non-empty strings, e.g. ["pricing"].', { tags })
  }
  return [...(tags as string[])]
}

/** Checks `memory_store`'s input. */
export function checkStoreInput(
  input: unknown,
): Required<Pick<MemoryStoreInput, 'content' | 'type' | 'tags'>> {
  const tool = 'memory_store'
  if (!isObject(input)) invalidToolInput(tool, 'the input must be an object like { "content": "…" }.')
  checkKeys(tool, input, ['content', 'type', 'tags'])
  if (typeof input.content !== 'string' || input.content.length === 0) {
    invalidToolInput(tool, 'content must be a non-empty string (serialise JSON first and pass type "json").')
  }
  const type = optionalString(tool, input, 'type') ?? 'text'
  if (type.length > 100)
    invalidToolInput(tool, 'type must be at most 100 characters, e.g. "text", "json", "note".')
  if (type === 'json') {
    try {
      JSON.parse(input.content as string)
    } catch {
      invalidToolInput(
        tool,
        'type is "json" but content does not parse as JSON; fix it or store it with type "text".',
      )
    }
  }
  return { content: input.content as string, type, tags: optionalTags(tool, input) ?? [] }
}

/** Checks `memory_retrieve`'s input; returns the id and the transform's parameters. */
export function checkRetrieveInput(input: unknown): { id: string } & TransformParameters {
  const tool = 'memory_retrieve'
  if (!isObject(input)) invalidToolInput(tool, 'the input must be an object like { "id": "mem_…" }.')
  checkKeys(tool, input, ['id', 'transform', 'n', 'pattern', 'maxChars'])
  const id = optionalString(tool, input, 'id')
  if (id === undefined)
    invalidToolInput(tool, 'id is required: a memory id from a citation or an id from memory_query.')
  const transform = input.transform ?? 'full'
  if (!RETRIEVE_TRANSFORMS.includes(transform as TransformParameters['transform'])) {
    invalidToolInput(
      tool,
      `transform must be one of ${RETRIEVE_TRANSFORMS.join(', ')} (got ${JSON.stringify(transform)}).`,
      {
        transform,
      },
    )
  }
  const n = optionalInteger(tool, input, 'n', 1, MAX_N)
  const maxChars = optionalInteger(tool, input, 'maxChars', 1, MAX_CHARS)
  const pattern = optionalString(tool, input, 'pattern')
  if (transform === 'filtered' && pattern === undefined) {
    invalidToolInput(
      tool,
      'transform "filtered" needs a pattern: the lines or JSON elements to keep must contain it.',
    )
  }
  // A parameter the transform does not read would be ignored silently: `maxChars` with `full` would
  // send the whole content the model meant to cap. Say so instead.
  for (const [key, value] of [
    ['n', n],
    ['pattern', pattern],
    ['maxChars', maxChars],
  ] as const) {
    const applies = TRANSFORM_PARAMETERS[key]
    if (value !== undefined && !applies.includes(transform as TransformParameters['transform'])) {
      invalidToolInput(
        tool,
        `${key} applies to transform ${applies.map((name) => `"${name}"`).join(' or ')}, not "${String(transform)}"; leave ${key} out or use one of those transforms.`,
        { [key]: value, transform },
      )
    }
  }
  const parameters: { id: string } & TransformParameters = {
    id: id as string,
    transform: transform as TransformParameters['transform'],
  }
  if (n !== undefined) parameters.n = n
  if (maxChars !== undefined) parameters.maxChars = maxChars
  if (pattern !== undefined) parameters.pattern = pattern
  return parameters
}

/** A checked `memory_query` input: words split, limit defaulted. */
export interface CheckedQuery extends Omit<MemoryQueryInput, 'text' | 'limit'> {
  /** The lower-cased words of `text`; entries holding any of them are ranked. */
  words: string[]
  limit: number
}

/** Checks `memory_query`'s input. */
export function checkQueryInput(input: unknown): CheckedQuery {
  const tool = 'memory_query'
  if (input === undefined) input = {}
  if (!isObject(input))
    invalidToolInput(tool, 'the input must be an object of filters like { "text": "invoice" }.')
  checkKeys(tool, input, ['type', 'source', 'tags', 'fromTs', 'toTs', 'text', 'level', 'limit', 'scope'])
  const query: CheckedQuery = { words: [], limit: optionalInteger(tool, input, 'limit', 1, MAX_LIMIT) ?? 10 }
  if (input.scope !== undefined) {
    if (input.scope !== 'thread' && input.scope !== 'resource')
      invalidToolInput(
        tool,
        `scope must be "thread" (this conversation) or "resource" (all conversations of its user); got ${JSON.stringify(input.scope)}.`,
      )
    query.scope = input.scope
  }
  for (const key of ['type', 'source', 'level'] as const) {
    const value = optionalString(tool, input, key)
    if (value !== undefined) query[key] = value
  }
  if (input.text !== undefined) {
    if (typeof input.text !== 'string') invalidToolInput(tool, 'text must be a string of words to look for.')
    query.words = (input.text as string)
      .toLowerCase()
      .split(/\s+/)
      // Sentence punctuation around a word is not part of it: `code?` looks for `code`.
      .map((word) => word.replace(EDGE_PUNCTUATION, ''))
      .filter(Boolean)
  }
  const tags = optionalTags(tool, input)
  if (tags !== undefined) query.tags = tags
  for (const key of ['fromTs', 'toTs'] as const) {
    const value = input[key]
    if (value === undefined) continue
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      invalidToolInput(tool, `${key} must be a time in epoch milliseconds (got ${JSON.stringify(value)}).`, {
        [key]: value,
      })
    }
    query[key] = value as number
  }
  if (query.fromTs !== undefined && query.toTs !== undefined && query.fromTs > query.toTs) {
    invalidToolInput(tool, `fromTs (${query.fromTs}) is after toTs (${query.toTs}); swap them.`)
  }
  return query
}
