import type { StorageListThreadsInput } from '@mastra/core/storage'
import { invalidOptions, shownValue } from '@strata-memory/core'
import type { MastraThreadRecord } from '../threads/thread-record'

/** Structural equality of JSON values: object key order never matters, array order does. */
export function sameJson(value: unknown, expected: unknown): boolean {
  if (value === expected) return true
  if (typeof value !== 'object' || typeof expected !== 'object' || value === null || expected === null)
    return false
  if (Array.isArray(value) !== Array.isArray(expected)) return false
  if (Array.isArray(value)) {
    const list = expected as unknown[]
    return value.length === list.length && value.every((entry, index) => sameJson(entry, list[index]))
  }
  const defined = (object: object) =>
    Object.entries(object).filter(([, entry]) => entry !== undefined) as [string, unknown][]
  const entries = defined(value)
  const other = new Map(defined(expected))
  return (
    entries.length === other.size &&
    entries.every(([key, entry]) => other.has(key) && sameJson(entry, other.get(key)))
  )
}

/** Threads of `filter.resourceId` whose metadata holds every `filter.metadata` pair, in `orderBy` order. */
export function filterThreads(records: readonly MastraThreadRecord[], args: StorageListThreadsInput) {
  const { resourceId, metadata } = args.filter ?? {}
  const field = args.orderBy?.field ?? 'createdAt'
  const sign = (args.orderBy?.direction ?? 'DESC') === 'DESC' ? -1 : 1
  return records
    .filter((record) => resourceId === undefined || record.resourceId === resourceId)
    .filter((record) =>
      Object.entries(metadata ?? {}).every(([key, value]) => sameJson(record.metadata?.[key], value)),
    )
    .sort((a, b) => sign * (a[field] < b[field] ? -1 : a[field] > b[field] ? 1 : 0))
}

/** One page of a list: `perPage: false` is all of it. */
export function pageOf<T>(list: readonly T[], page = 0, perPage: number | false = 100) {
  // As Mastra's own storages: a page below 0 or a negative size is refused, not answered as empty.
  if (!Number.isSafeInteger(page) || page < 0) {
    invalidOptions(`page must be a whole number of at least 0 (got ${shownValue(page)}).`, { page })
  }
  if (perPage !== false && (!Number.isSafeInteger(perPage) || perPage < 0)) {
    invalidOptions(
      `perPage must be a whole number of at least 0, or false for all (got ${shownValue(perPage)}).`,
      {
        perPage,
      },
    )
  }
  if (perPage === false) return { items: [...list], total: list.length, page: 0, perPage, hasMore: false }
  const start = page * perPage
  const items = list.slice(start, start + perPage)
  return { items, total: list.length, page, perPage, hasMore: start + items.length < list.length }
}
