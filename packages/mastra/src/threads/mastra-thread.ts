import type { StorageThreadType } from '@mastra/core/memory'
import type { JsonObject } from '@strata-memory/core'
import { sameJson } from '../memory/thread-listing'
import type { MastraThreadRecord } from './thread-record'

/** The Mastra thread of a record. */
export const toThread = (record: MastraThreadRecord): StorageThreadType => ({
  id: record.threadId,
  resourceId: record.resourceId,
  createdAt: new Date(record.createdAt),
  updatedAt: new Date(record.updatedAt),
  ...(record.title === undefined ? {} : { title: record.title }),
  ...(record.metadata === undefined ? {} : { metadata: record.metadata }),
})

/** Two records of one thread that differ at most in their times. */
export const sameThread = (a: MastraThreadRecord, b: MastraThreadRecord) =>
  a.threadId === b.threadId &&
  a.resourceId === b.resourceId &&
  (a.title ?? '') === (b.title ?? '') &&
  sameJson(a.metadata ?? {}, b.metadata ?? {})

/** A date Mastra gave as ISO text, or `fallback` when it gave none (or an invalid one). */
export const isoDate = (date: unknown, fallback: string): string =>
  date instanceof Date && Number.isFinite(date.getTime()) ? date.toISOString() : fallback

/** Metadata as plain JSON (dates as their ISO text), as the record keeps it. */
export const plainMetadata = (metadata: Record<string, unknown> | undefined): JsonObject | undefined =>
  metadata === undefined ? undefined : (JSON.parse(JSON.stringify(metadata)) as JsonObject)
