import type { MemoryRanking } from '../content/memory-ranking'
import type { MemoryEntry } from '../content/memory-search'
import { searchQuery } from '../content/search-terms'
import { invalidOptions } from '../errors'
import type { JsonObject, JsonValue } from '../items'
import type { ResourceDocument } from '../stores'
import { jsonEqual } from './json-schema-check'
import type { ListNamespacesOptions, ResourceDocumentHit, SearchDocumentsOptions } from './resource-types'

/*
 * The document store's semantics follow LangGraph's `BaseStore` (and its `InMemoryStore`): a namespace
 * prefix matches whole labels; a filter compares top-level fields, by equality or with the operators
 * `$eq $ne $gt $gte $lt $lte $in $nin`; a query orders the documents (it never hides one the prefix
 * and filter let through); `listNamespaces` matches a prefix and a suffix (`*` matches any label),
 * truncates to `maxDepth`, dedupes, sorts, then pages.
 */

/** Refuses a namespace that is not a list of non-empty strings (empty only where `allowEmpty`). */
export function assertNamespace(
  namespace: unknown,
  what: string,
  allowEmpty = false,
): asserts namespace is string[] {
  if (
    !Array.isArray(namespace) ||
    (!allowEmpty && namespace.length === 0) ||
    namespace.some((label) => typeof label !== 'string' || label.length === 0)
  ) {
    invalidOptions(
      `${what}: a namespace is a ${allowEmpty ? '' : 'non-empty '}list of non-empty strings, e.g. ['memories', 'preferences'].`,
      { namespace },
    )
  }
}

const OPERATORS = new Set(['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin'])

const isOperatorObject = (value: JsonValue): value is JsonObject =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  Object.keys(value).length > 0 &&
  Object.keys(value).every((key) => OPERATORS.has(key))

function matchesCondition(field: JsonValue | undefined, condition: JsonValue): boolean {
  if (!isOperatorObject(condition)) return jsonEqual(field, condition)
  return Object.entries(condition).every(([operator, operand]) => {
    switch (operator) {
      case '$eq':
        return jsonEqual(field, operand)
      case '$ne':
        return !jsonEqual(field, operand)
      case '$gt':
        return Number(field) > Number(operand)
      case '$gte':
        return Number(field) >= Number(operand)
      case '$lt':
        return Number(field) < Number(operand)
      case '$lte':
        return Number(field) <= Number(operand)
      case '$in':
        return Array.isArray(operand) && operand.some((option) => jsonEqual(field, option))
      default:
        return !Array.isArray(operand) || !operand.some((option) => jsonEqual(field, option))
    }
  })
}

const startsWith = (namespace: readonly string[], prefix: readonly string[]) =>
  prefix.length <= namespace.length &&
  prefix.every((label, index) => label === '*' || namespace[index] === label)

const endsWith = (namespace: readonly string[], suffix: readonly string[]) =>
  suffix.length <= namespace.length &&
  suffix.every(
    (label, index) => label === '*' || namespace[namespace.length - suffix.length + index] === label,
  )

/** Namespaces compared label by label (a shorter one first when it is a prefix). */
export function compareNamespaces(left: readonly string[], right: readonly string[]): number {
  for (let index = 0; index < Math.min(left.length, right.length); index++) {
    if (left[index] !== right[index]) return left[index]! < right[index]! ? -1 : 1
  }
  return left.length - right.length
}

const pageOptions = (options: { limit?: unknown; offset?: unknown }, what: string, limit: number) => {
  const { limit: given = limit, offset = 0 } = options
  if (typeof given !== 'number' || !Number.isInteger(given) || given < 1)
    invalidOptions(`${what}: limit must be a positive integer.`, { limit: given })
  if (typeof offset !== 'number' || !Number.isInteger(offset) || offset < 0)
    invalidOptions(`${what}: offset must be an integer ≥ 0.`, { offset })
  return { limit: given, offset }
}

/**
 * The documents of `searchDocuments`: those the store listed under the prefix, filtered; with a
 * query, the ones holding its words first, best first (word ranking over their JSON text), then the
 * others in the store's order; paged with `offset` and `limit`. A ranked hit carries its `score`.
 */
export function searchDocuments(
  documents: readonly ResourceDocument[],
  options: SearchDocumentsOptions,
  ranking: MemoryRanking,
  what: string,
): ResourceDocumentHit[] {
  if (typeof options !== 'object' || options === null)
    invalidOptions(`${what}: options must be an object like { query, filter, limit, offset }.`)
  const { limit, offset } = pageOptions(options, what, 10)
  const { filter, query } = options
  if (filter !== undefined && (typeof filter !== 'object' || filter === null || Array.isArray(filter)))
    invalidOptions(`${what}: filter must be an object of top-level fields and values, e.g. { kind: 'note' }.`)
  if (query !== undefined && typeof query !== 'string') invalidOptions(`${what}: query must be a string.`)
  const kept = documents.filter(
    (document) =>
      filter === undefined ||
      Object.entries(filter).every(([field, condition]) =>
        matchesCondition(document.value[field], condition),
      ),
  )
  const words = searchQuery(query ?? '')
  let ordered: ResourceDocumentHit[] = kept
  if (words.terms.length > 0) {
    ranking.begin()
    const byEntry = new Map<MemoryEntry, ResourceDocument>()
    const entries = kept.map((document, order) => {
      const key = `d:${JSON.stringify(document.namespace)}:${document.key}:${document.updatedAt}`
      const entry = ranking.entry(key, 'content', () => ({
        id: document.key,
        where: 'content',
        type: 'document',
        ts: document.updatedAt,
        tags: [],
        text: JSON.stringify(document.value),
        json: true,
        order,
      }))!
      byEntry.set(entry, document)
      return { key, entry }
    })
    // Equal scores keep the store's order.
    const ranked = ranking.rank(entries, words, (left, right) => left.order - right.order).ranked
    const hits = new Set<ResourceDocument>()
    ordered = ranked.map(({ entry, score }) => {
      const document = byEntry.get(entry)!
      hits.add(document)
      return { ...document, score }
    })
    for (const document of kept) if (!hits.has(document)) ordered.push(document)
  }
  return ordered.slice(offset, offset + limit)
}

/** The distinct namespaces of `documents` as `listNamespaces` answers them (see the file's comment). */
export function listNamespaces(
  documents: readonly ResourceDocument[],
  options: ListNamespacesOptions,
  what: string,
): string[][] {
  if (typeof options !== 'object' || options === null)
    invalidOptions(`${what}: options must be an object like { prefix, suffix, maxDepth, limit, offset }.`)
  const { limit, offset } = pageOptions(options, what, 100)
  const { prefix, suffix, maxDepth } = options
  if (prefix !== undefined) assertNamespace(prefix, `${what} prefix`, true)
  if (suffix !== undefined) assertNamespace(suffix, `${what} suffix`, true)
  if (maxDepth !== undefined && (typeof maxDepth !== 'number' || !Number.isInteger(maxDepth) || maxDepth < 1))
    invalidOptions(`${what}: maxDepth must be a positive integer.`, { maxDepth })
  const distinct = new Map<string, string[]>()
  for (const { namespace } of documents) {
    if (prefix !== undefined && !startsWith(namespace, prefix)) continue
    if (suffix !== undefined && !endsWith(namespace, suffix)) continue
    const shown = maxDepth === undefined ? namespace : namespace.slice(0, maxDepth)
    distinct.set(JSON.stringify(shown), [...shown])
  }
  return [...distinct.values()].sort(compareNamespaces).slice(offset, offset + limit)
}
