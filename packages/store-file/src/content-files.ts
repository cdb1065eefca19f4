import { createHash } from 'node:crypto'
import { mkdir, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { ContentRecord } from '@strata-memory/core'
import { writeFileAtomic } from './durable-fs'
import { corruptLog, isMissing, storeFailed } from './file-errors'
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
  try {
    await mkdir(contentDirectory, { recursive: true })
    await writeFileAtomic(path, text, durable)
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

/** Every record of the folder, in no particular order. */
export async function readAllContentRecords(contentDirectory: string): Promise<ContentRecord[]> {
  let names: string[]
  try {
    names = await readdir(contentDirectory)
  } catch (error) {
    if (isMissing(error)) return []
    throw storeFailed('list the content folder', contentDirectory, error)
  }
  const paths = names.filter(isContentFileName).map((name) => join(contentDirectory, name))
  // A bounded number of files open at once: a long thread's folder holds far more records than a
  // process may open files (EMFILE), and one read per record at once would hold every file's buffer.
  const records: ContentRecord[] = []
  let next = 0
  const reader = async () => {
    while (next < paths.length) {
      const record = await readRecordFile(paths[next++]!)
      if (record !== undefined) records.push(record)
    }
  }
  await Promise.all(Array.from({ length: Math.min(READS_AT_ONCE, paths.length) }, reader))
  return records
}

/** Content files read at once by {@link readAllContentRecords}. */
const READS_AT_ONCE = 32

/** Content files are `<name>.json`; hidden names are temporary files of a write in progress. */
export const isContentFileName = (name: string): boolean => name.endsWith('.json') && !name.startsWith('.')

async function readRecordFile(path: string): Promise<ContentRecord | undefined> {
  const value = await readJsonObject(path, 'a content record file')
  if (value !== undefined && typeof value.id !== 'string') {
    throw corruptLog(path, 1, 'is not a content record (an object with a string "id")')
  }
  return value as ContentRecord | undefined
}
