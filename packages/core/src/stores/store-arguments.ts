import { invalidOptions, StrataError, shownValue } from '../errors'
import { assertSerializable, type JsonObject, type UnsequencedItem } from '../items'
import type { AppendOptions, ArchiveOptions, ContentQuery, ContentRecord, ReadOptions } from './store'

/*
 * Argument checks and content-query semantics every store shares, so a caller gets the same typed
 * error and the same answer from each. Exported for store authors from `@strata-memory/core/store-kit`; stores built on them pass the
 * conformance suite's argument cases alike.
 */

/** True for a non-null object that is not an array. */
export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** Validates `expectedSeq` (a whole number ≥ 0); optional when `required` is false. `STRATA_INVALID_OPTIONS` otherwise. */
export function checkExpectedSeq(value: unknown, method: string, required: true): number
export function checkExpectedSeq(value: unknown, method: string, required: false): number | undefined
export function checkExpectedSeq(value: unknown, method: string, required: boolean): number | undefined {
  if (value === undefined && !required) return undefined
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value
  return invalidOptions(
    `${method}: expectedSeq must be the thread's last seq as a whole number of 0 or more (read it with head(threadId)), got ${shownValue(value)}.`,
    { expectedSeq: value },
  )
}

/** Throws the typed `STRATA_SEQ_CONFLICT` unless the thread is still at `expectedSeq`. */
export function checkSeq(threadId: string, expectedSeq: number, actualSeq: number): void {
  if (expectedSeq === actualSeq) return
  throw new StrataError({
    code: 'STRATA_SEQ_CONFLICT',
    message: `Thread '${threadId}' is at seq ${actualSeq}, not the expected ${expectedSeq}: another writer changed it. Re-read the thread (head/read) and retry with expectedSeq ${actualSeq}.`,
    details: { threadId, expectedSeq, actualSeq },
  })
}

/** Validates a read range: numeric bounds and a whole-number limit, each optional. */
export function checkReadOptions(options: ReadOptions, method: string): void {
  if (!isPlainObject(options as unknown)) {
    invalidOptions(`${method}: options must be an object like { fromSeq, toSeq, limit }.`, {})
  }
  for (const bound of ['fromSeq', 'toSeq'] as const) {
    const value = options[bound]
    if (value !== undefined && (typeof value !== 'number' || Number.isNaN(value))) {
      invalidOptions(`${method}: ${bound} must be a number or left out; got ${shownValue(value)}.`, {
        [bound]: value,
      })
    }
  }
  checkLimit(options.limit, method)
}

/** Validates a limit: a whole number ≥ 0, or undefined. */
export function checkLimit(limit: unknown, method: string): void {
  if (limit === undefined || (typeof limit === 'number' && Number.isSafeInteger(limit) && limit >= 0)) return
  invalidOptions(
    `${method}: limit must be a whole number of 0 or more, or left out; got ${shownValue(limit)}.`,
    {
      limit,
    },
  )
}

/** Validates the shape of a content record before it is stored. */
export function checkContentRecord(record: unknown): asserts record is ContentRecord {
  if (!isPlainObject(record)) invalidOptions('putContent: the record must be an object.', {})
  if (typeof record.id !== 'string' || record.id === '') {
    invalidOptions('putContent: record.id must be a non-empty string (the memory id).', { id: record.id })
  }
  if (typeof record.type !== 'string') {
    invalidOptions(`putContent: record.type must be a string such as 'web-page' or 'text'.`, {
      id: record.id,
    })
  }
  if (typeof record.data !== 'string') {
    invalidOptions('putContent: record.data must be a string; serialise JSON content first.', {
      id: record.id,
    })
  }
  if (typeof record.ts !== 'number' || !Number.isFinite(record.ts)) {
    invalidOptions('putContent: record.ts must be a time in epoch milliseconds.', { id: record.id })
  }
  if (!Array.isArray(record.tags) || !record.tags.every((tag) => typeof tag === 'string')) {
    invalidOptions('putContent: record.tags must be an array of strings (use [] for none).', {
      id: record.id,
    })
  }
}

/** True when `record` passes every filter of `query` (text: case-insensitive substring of the data). */
export function matchesContentQuery(record: ContentRecord, query: ContentQuery): boolean {
  const text = query.text?.toLowerCase()
  return (
    (query.type === undefined || record.type === query.type) &&
    (query.source === undefined || record.source === query.source) &&
    (query.level === undefined || record.level === query.level) &&
    (query.fromTs === undefined || record.ts >= query.fromTs) &&
    (query.toTs === undefined || record.ts <= query.toTs) &&
    (query.tags === undefined || query.tags.every((tag) => record.tags.includes(tag))) &&
    (text === undefined || record.data.toLowerCase().includes(text))
  )
}

/** Sort order of content query results: newest `ts` first, then id descending. */
export function compareContentNewestFirst(left: ContentRecord, right: ContentRecord): number {
  if (left.ts !== right.ts) return right.ts - left.ts
  return left.id < right.id ? 1 : left.id > right.id ? -1 : 0
}

/** Validates `append`'s items (an array of JSON-safe objects) and options; returns `expectedSeq`. */
export function checkAppendArguments(items: readonly UnsequencedItem[], options: AppendOptions): number {
  const expectedSeq = checkExpectedSeq(options?.expectedSeq, 'append', true)
  checkAppendItems(items)
  // Each item on its own: the depth and size bounds are per item, as `append` checks each message.
  for (const [index, item] of items.entries()) assertSerializable(item, `items[${index}]`)
  return expectedSeq
}

/**
 * Validates that `append`'s items are an array of item objects, for a store that checks each item's
 * JSON as it copies it (`copyItem`, `checkStoredSize`) rather than through {@link checkAppendArguments}.
 * A loop, not forEach, which skips holes: a hole in the array is no item either.
 */
export function checkAppendItems(items: readonly UnsequencedItem[]): void {
  if (!Array.isArray(items)) {
    invalidOptions('append(threadId, items, options) needs items as an array (use [] for none).', {})
  }
  for (let index = 0; index < items.length; index++) {
    if (!isPlainObject(items[index]))
      invalidOptions(`append: items[${index}] must be an item object.`, { index })
  }
}

/** Validates `archive`'s options; returns the seqs and the optional `expectedSeq`. */
export function checkArchiveOptions(options: ArchiveOptions): {
  seqs: readonly number[]
  expectedSeq?: number
} {
  if (!Array.isArray(options?.seqs)) {
    invalidOptions('archive(threadId, { seqs }) needs seqs as an array of item seqs.', {})
  }
  const expectedSeq = checkExpectedSeq(options.expectedSeq, 'archive', false)
  return expectedSeq === undefined ? { seqs: options.seqs } : { seqs: options.seqs, expectedSeq }
}

/** Validates a content query: an object of filters with an optional whole-number limit. */
export function checkContentQuery(query: ContentQuery): void {
  if (!isPlainObject(query as unknown))
    invalidOptions('queryContent: the query must be an object of filters.', {})
  checkLimit(query.limit, 'queryContent')
}

/** Validates a thread state: a plain, JSON-safe object. */
export function checkState(state: JsonObject): void {
  if (!isPlainObject(state as unknown))
    invalidOptions('setState(threadId, state) needs state as a plain object.', {})
  assertSerializable(state, 'state')
}
