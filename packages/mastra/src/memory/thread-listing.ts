import type { StorageListThreadsInput } from '@mastra/core/storage'
import type { MastraThreadRecord } from '../threads/thread-record'

const matches = (value: unknown, expected: unknown) => JSON.stringify(value) === JSON.stringify(expected)

/** Threads of `filter.resourceId` whose metadata holds every `filter.metadata` pair, in `orderBy` order. */
export function filterThreads(records: readonly MastraThreadRecord[], args: StorageListThreadsInput) {
  const { resourceId, metadata } = args.filter ?? {}
  const field = args.orderBy?.field ?? 'createdAt'
  const sign = (args.orderBy?.direction ?? 'DESC') === 'DESC' ? -1 : 1
  return records
    .filter((record) => resourceId === undefined || record.resourceId === resourceId)
    .filter((record) =>
      Object.entries(metadata ?? {}).every(([key, value]) => matches(record.metadata?.[key], value)),
    )
    .sort((a, b) => sign * (a[field] < b[field] ? -1 : a[field] > b[field] ? 1 : 0))
}

/** One page of a list: `perPage: false` is all of it. */
export function pageOf<T>(list: readonly T[], page = 0, perPage: number | false = 100) {
  if (perPage === false) return { items: [...list], total: list.length, page: 0, perPage, hasMore: false }
  const start = page * perPage
  const items = list.slice(start, start + perPage)
  return { items, total: list.length, page, perPage, hasMore: start + items.length < list.length }
}
