import { createHash } from 'node:crypto'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { ContentRecord } from '@strata-memory/core'
import { appendCatalog, beginLine, doneLine } from './content-catalog'
import { writeFileAtomic } from './durable-fs'
import { corruptLog, storeFailed } from './file-errors'
import { readJsonObject } from './json-file'

/** Longest encoded id used as a file name as is; longer ids are named by their hash. */
const MAX_NAME_LENGTH = 160

const SAFE_BYTE = /^[a-z0-9_-]$/

/**
 * The file name of a content record: `<id>.json` with every byte outside `a-z 0-9 _ -` written as
 * `%XX` (so `mem_A.1` is `mem_%41%2E1.json`: safe on every file system, case-insensitive ones
 * included, and never `..`); ids whose encoding exceeds 160 characters are named `~<sha256>.json`.
 */
export function contentFileName(id: string): string {
  let name = ''
  for (const byte of Buffer.from(id, 'utf8')) {
    const character = String.fromCharCode(byte)
    name += SAFE_BYTE.test(character) ? character : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
  }
  if (name.length > MAX_NAME_LENGTH) name = `~${createHash('sha256').update(id).digest('hex')}`
  return `${name}.json`
}

/**
 * Writes one record to `content/<name>.json`, replacing any record with the same id atomically. The
 * record is serialised before the first await, so later changes to the caller's object are not stored.
 */
export async function writeContentRecord(
  contentDirectory: string,
  record: ContentRecord,
  durable: boolean,
): Promise<void> {
  const path = join(contentDirectory, contentFileName(record.id))
  const text = `${JSON.stringify(record, null, 2)}\n`
  const { token, line } = beginLine(record)
  try {
    await mkdir(contentDirectory, { recursive: true })
    // The catalog learns of the write before the file changes, and that it is done after (see
    // content-catalog.ts): a crash in between leaves the record to be read from its file.
    await appendCatalog(contentDirectory, line, durable)
    await writeFileAtomic(path, text, durable)
    await appendCatalog(contentDirectory, doneLine(token), false)
  } catch (error) {
    throw storeFailed('write the content record', path, error)
  }
}

/** The record stored under `id`, or undefined. */
export async function readContentRecord(
  contentDirectory: string,
  id: string,
): Promise<ContentRecord | undefined> {
  const record = await readRecordFile(join(contentDirectory, contentFileName(id)))
  return record?.id === id ? record : undefined
}

/** Content files read at once by a query. */
export const READS_AT_ONCE = 32

/** Content files are `<name>.json`; hidden names are temporary files of a write in progress. */
export const isContentFileName = (name: string): boolean => name.endsWith('.json') && !name.startsWith('.')

/**
 * Record files read (data included) since the process started: what a query costs, for the store's
 * own tests.
 */
export const recordFileReads = { count: 0 }

/** The record in a content file, undefined when there is none. */
export async function readRecordFile(path: string): Promise<ContentRecord | undefined> {
  recordFileReads.count++
  const value = await readJsonObject(path, 'a content record file')
  if (value !== undefined && typeof value.id !== 'string') {
    throw corruptLog(path, 1, 'is not a content record (an object with a string "id")')
  }
  return value as ContentRecord | undefined
}
