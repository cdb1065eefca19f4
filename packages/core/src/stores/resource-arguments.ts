import { invalidOptions, StrataError, shownValue } from '../errors'
import { assertSerializable, isValidThreadId, type JsonObject, type JsonValue } from '../items'
import type { ResourceDocument, ResourceThreadEntry, ResourceThreadPage, VectorRecord } from './store'
import { isPlainObject } from './store-arguments'

/*
 * The resource methods' argument checks, their typed refusals and the orders every store returns
 * (exported for store authors from `@strata-memory/core/store-kit`), so each store answers alike.
 */

/** The page size of `listResourceThreads` when the caller gives none. */
export const DEFAULT_RESOURCE_PAGE_LIMIT = 50
/** The largest page `listResourceThreads` returns. */
export const MAX_RESOURCE_PAGE_LIMIT = 1000

/** Throws `STRATA_INVALID_THREAD_ID` unless `resourceId` follows the thread-id rule. */
export function assertResourceId(resourceId: unknown): asserts resourceId is string {
  if (isValidThreadId(resourceId)) return
  const shown = typeof resourceId === 'string' ? JSON.stringify(resourceId.slice(0, 140)) : typeof resourceId
  throw new StrataError({
    code: 'STRATA_INVALID_THREAD_ID',
    message: `Invalid resource id ${shown}: resource ids follow the thread-id rule, 1-128 characters of A-Z a-z 0-9 _ . - not starting with '.', for example 'user-42'.`,
    details: { threadId: resourceId, resourceId },
  })
}

/** Validates `setThreadResource`'s options; returns `expected` (undefined: the thread was unbound). */
export function checkExpectedResource(options: { expected: string | undefined }): string | undefined {
  if (!isPlainObject(options as unknown) || !('expected' in options)) {
    invalidOptions(
      'setThreadResource(threadId, resourceId, { expected }) needs expected: the resource the thread is bound to now (getThreadResource), or undefined when it is unbound.',
      {},
    )
  }
  if (options.expected !== undefined) assertResourceId(options.expected)
  return options.expected
}

/** `STRATA_SEQ_CONFLICT`: the thread's binding is no longer the `expected` resource; nothing changed. */
export function bindingConflictError(
  threadId: string,
  expected: string | undefined,
  actual: string | undefined,
): StrataError<'STRATA_SEQ_CONFLICT'> {
  const name = (resourceId: string | undefined) =>
    resourceId === undefined ? 'no resource' : `resource '${resourceId}'`
  return new StrataError({
    code: 'STRATA_SEQ_CONFLICT',
    message: `Thread '${threadId}' is bound to ${name(actual)}, not the expected ${name(expected)}: another writer changed it; nothing was changed. Re-read it with getThreadResource and retry.`,
    details: { threadId, expectedResource: expected ?? null, actualResource: actual ?? null },
  })
}

/** Validates a thread's last append time: a whole number of epoch milliseconds, 0 or more. */
export function checkLastAppendAt(lastAppendAt: unknown): number {
  if (typeof lastAppendAt === 'number' && Number.isSafeInteger(lastAppendAt) && lastAppendAt >= 0) {
    return lastAppendAt
  }
  return invalidOptions(
    `touchResourceThread: lastAppendAt must be a time in whole epoch milliseconds; got ${shownValue(lastAppendAt)}.`,
    { lastAppendAt },
  )
}

/** Where a page of the thread index ends: the last entry it returned. */
export interface ResourceCursorPosition {
  lastAppendAt: number
  threadId: string
}

const CURSOR_PATTERN = /^r1\.(\d{1,16})\.(.+)$/

/** The cursor after `entry` (opaque to callers; the same in every store that uses this kit). */
export function encodeResourceCursor(entry: ResourceThreadEntry): string {
  return `r1.${entry.lastAppendAt}.${entry.threadId}`
}

function decodeResourceCursor(cursor: unknown): ResourceCursorPosition {
  const match = typeof cursor === 'string' ? CURSOR_PATTERN.exec(cursor) : null
  const lastAppendAt = Number(match?.[1])
  const threadId = match?.[2]
  if (match === null || !Number.isSafeInteger(lastAppendAt) || !isValidThreadId(threadId)) {
    return invalidOptions(
      `listResourceThreads: cursor ${JSON.stringify(cursor)} is not one this store returned. Pass the cursor of the previous page as it was, or leave it out to start from the newest thread.`,
      { cursor },
    )
  }
  return { lastAppendAt, threadId }
}

/** Validates `listResourceThreads`'s options: the page size (default 50, 1–1000) and where to start. */
export function checkResourcePageOptions(options: { cursor?: string; limit?: number } | undefined): {
  limit: number
  after?: ResourceCursorPosition
} {
  if (options !== undefined && !isPlainObject(options as unknown)) {
    invalidOptions('listResourceThreads: options must be an object like { cursor, limit }.', {})
  }
  const limit = options?.limit ?? DEFAULT_RESOURCE_PAGE_LIMIT
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_RESOURCE_PAGE_LIMIT) {
    invalidOptions(
      `listResourceThreads: limit must be a whole number from 1 to ${MAX_RESOURCE_PAGE_LIMIT}, or left out (${DEFAULT_RESOURCE_PAGE_LIMIT}); got ${shownValue(limit)}.`,
      { limit },
    )
  }
  const cursor = options?.cursor
  return cursor === undefined ? { limit } : { limit, after: decodeResourceCursor(cursor) }
}

/** The thread index's order: newest `lastAppendAt` first, ties by thread id ascending. */
export function compareResourceThreads(left: ResourceCursorPosition, right: ResourceCursorPosition): number {
  if (left.lastAppendAt !== right.lastAppendAt) return right.lastAppendAt - left.lastAppendAt
  return left.threadId < right.threadId ? -1 : left.threadId > right.threadId ? 1 : 0
}

/**
 * One page of a thread index held in full (in process, or read whole from a file): the entries after
 * the cursor in index order. A cursor is a position, not a snapshot: an entry touched while a caller
 * pages moves to the front, so it is never returned twice, and the entries not touched are each
 * returned once.
 */
export function pageResourceThreads(
  entries: Iterable<ResourceThreadEntry>,
  options: { limit: number; after?: ResourceCursorPosition },
): ResourceThreadPage {
  const { limit, after } = options
  const sorted = [...entries]
    .filter((entry) => after === undefined || compareResourceThreads(entry, after) > 0)
    .sort(compareResourceThreads)
  const threads = sorted.slice(0, limit).map(({ threadId, lastAppendAt }) => ({ threadId, lastAppendAt }))
  const last = threads.at(-1)
  return sorted.length > limit && last !== undefined
    ? { threads, cursor: encodeResourceCursor(last) }
    : { threads }
}

/** Validates `setWorkingMemory`'s value (JSON-safe) and options; returns `expectedVersion`. */
export function checkWorkingMemoryArguments(value: JsonValue, options: { expectedVersion: number }): number {
  if (value === undefined) {
    invalidOptions('setWorkingMemory: value must be a JSON value (text, a number, an object, …).', {})
  }
  assertSerializable(value, 'value')
  const expectedVersion = (options as Partial<typeof options> | undefined)?.expectedVersion
  if (typeof expectedVersion === 'number' && Number.isSafeInteger(expectedVersion) && expectedVersion >= 0) {
    return expectedVersion
  }
  return invalidOptions(
    `setWorkingMemory: expectedVersion must be the version read (a whole number, 0 when never written); got ${shownValue(expectedVersion)}.`,
    { expectedVersion },
  )
}

/** `STRATA_SEQ_CONFLICT`: the working memory is at `actualVersion`, not `expectedVersion`; nothing changed. */
export function workingMemoryConflictError(
  resourceId: string,
  expectedVersion: number,
  actualVersion: number,
): StrataError<'STRATA_SEQ_CONFLICT'> {
  return new StrataError({
    code: 'STRATA_SEQ_CONFLICT',
    message: `The working memory of resource '${resourceId}' is at version ${actualVersion}, not the expected ${expectedVersion}: another writer changed it; nothing was written. Read it again (getWorkingMemory), merge, and retry with expectedVersion ${actualVersion}.`,
    details: { resourceId, expectedVersion, actualVersion },
  })
}

/** Validates a document namespace: a non-empty array of non-empty strings (any characters). Returns a copy. */
export function checkNamespace(namespace: readonly string[], method: string): string[] {
  if (!Array.isArray(namespace) || namespace.length === 0) {
    invalidOptions(
      `${method}: namespace must be a non-empty array of labels, e.g. ['memories', 'preferences'].`,
      { namespace },
    )
  }
  return checkLabels(namespace, method, 'namespace')
}

/** Validates a namespace prefix (an array of labels, possibly empty; undefined: all). Returns a copy. */
export function checkNamespacePrefix(prefix: readonly string[] | undefined, method: string): string[] {
  if (prefix === undefined) return []
  if (!Array.isArray(prefix)) {
    invalidOptions(`${method}: namespacePrefix must be an array of labels (or left out for all).`, {
      namespacePrefix: prefix,
    })
  }
  return checkLabels(prefix, method, 'namespacePrefix')
}

function checkLabels(labels: readonly unknown[], method: string, name: string): string[] {
  labels.forEach((label, index) => {
    if (typeof label !== 'string' || label === '') {
      invalidOptions(
        `${method}: ${name}[${index}] must be a non-empty string; got ${JSON.stringify(label)}.`,
        {
          [name]: labels,
          index,
        },
      )
    }
  })
  return [...(labels as string[])]
}

/** Validates a document key: a string (any characters). */
export function checkDocumentKey(key: unknown, method: string): string {
  if (typeof key === 'string') return key
  return invalidOptions(`${method}: key must be a string; got ${typeof key}.`, { key })
}

/** Validates a document value: a plain, JSON-safe object. */
export function checkDocumentValue(value: JsonObject): void {
  if (!isPlainObject(value as unknown)) {
    invalidOptions('putDocument: value must be a plain JSON object (wrap other values, e.g. { text }).', {})
  }
  assertSerializable(value, 'value')
}

/** True when `namespace` starts with every label of `prefix`. */
export function namespaceStartsWith(namespace: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= namespace.length && prefix.every((label, index) => namespace[index] === label)
}

/** The order of `listDocuments`: by namespace (label by label, a shorter prefix first), then key. */
export function compareDocuments(left: ResourceDocument, right: ResourceDocument): number {
  const length = Math.min(left.namespace.length, right.namespace.length)
  for (let index = 0; index < length; index++) {
    const order = compareStrings(left.namespace[index]!, right.namespace[index]!)
    if (order !== 0) return order
  }
  if (left.namespace.length !== right.namespace.length) return left.namespace.length - right.namespace.length
  return compareStrings(left.key, right.key)
}

/** A document's identity within its resource as one string (a map key, a hash field, a file record). */
export function documentAddress(namespace: readonly string[], key: string): string {
  return JSON.stringify([namespace, key])
}

/** Validates `putVectors`'s records: ids and models as non-empty strings, non-empty finite Float32Arrays. */
export function checkVectorRecords(records: readonly VectorRecord[]): void {
  if (!Array.isArray(records)) {
    invalidOptions('putVectors(threadId, records) needs records as an array (use [] for none).', {})
  }
  records.forEach((record, index) => {
    const problem = vectorRecordProblem(record)
    if (problem !== undefined) invalidOptions(`putVectors: records[${index}] ${problem}.`, { index })
  })
}

function vectorRecordProblem(record: unknown): string | undefined {
  if (!isPlainObject(record)) return 'must be an object { id, model, vector }'
  if (typeof record.id !== 'string' || record.id === '') return 'needs id as a non-empty string'
  if (typeof record.model !== 'string' || record.model === '') return 'needs model as a non-empty string'
  if (!(record.vector instanceof Float32Array) || record.vector.length === 0) {
    return 'needs vector as a non-empty Float32Array'
  }
  if (!record.vector.every(Number.isFinite)) return 'has a vector holding NaN or Infinity'
  return undefined
}

/** Validates `readVectors`'s options; returns the model filter. */
export function checkVectorQuery(options: { model?: string } | undefined): string | undefined {
  if (options !== undefined && !isPlainObject(options as unknown)) {
    invalidOptions('readVectors: options must be an object like { model }.', {})
  }
  const model = options?.model
  if (model !== undefined && (typeof model !== 'string' || model === '')) {
    invalidOptions(`readVectors: model must be a non-empty string or left out; got ${shownValue(model)}.`, {
      model,
    })
  }
  return model
}

/** The order of `readVectors`: by id, then model. */
export function compareVectors(left: VectorRecord, right: VectorRecord): number {
  return compareStrings(left.id, right.id) || compareStrings(left.model, right.model)
}

/** A vector record's identity within its thread (id and model) as one string. */
export function vectorAddress(record: { id: string; model: string }): string {
  return JSON.stringify([record.id, record.model])
}

/** Code-unit order, the same in every runtime (and in Redis's byte order for ASCII). */
function compareStrings(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0
}
