import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { type FileHandle, link, open, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { ContentRecord } from '@strata-memory/core'
import { readRange, syncDirectory, temporaryPathFor, writeFully } from './durable-fs'
import { errorCode, isMissing, storeFailed } from './file-errors'
import type { FileVersion } from './file-version'

/**
 * The catalog of a thread's content folder: `content/.catalog.jsonl`, a journal of the records' filter
 * fields (everything a query filters or sorts on but the data), so that a query reads only the record
 * files that match. Hidden, so it is never taken for a record.
 *
 * Lines, each appended whole by one write:
 * - `{"catalog":"<16 hex>"}`: the first line, naming this journal (a thread deleted and made again has
 *   another, so a cache of the old one is dropped);
 * - `{"p":"<token>","r":{fields}}`: a write of the record with these fields begins, appended (and synced
 *   with `fsync`) before the record file is renamed into place;
 * - `{"d":"<token>"}`: that write's file is in place;
 * - `{"b":{fields}}`: fields a reader found in a record file that no `p` line names (written before the
 *   catalog existed), so that later readers need not open it.
 *
 * A record's fields are known without opening its file when its last `p` line has its `d`, and no other
 * write of that record was in flight while it ran (its rename is then the last one), or when no `p`
 * line names it and a `b` line does. Otherwise (a write in flight, one that crashed between its `p` and
 * its `d`, overlapping writes, a line that does not parse) the file itself is read, again only when its
 * stat changes.
 */
export const CATALOG_FILE = '.catalog.jsonl'

/** What the catalog keeps of a record: the fields `queryContent` filters and sorts on. */
export type RecordFields = Pick<ContentRecord, 'id' | 'type' | 'source' | 'level' | 'tags' | 'ts'>

/** The filter fields of a record. */
export const fieldsOf = ({ id, type, source, level, tags, ts }: ContentRecord): RecordFields => ({
  id,
  type,
  source,
  level,
  tags,
  ts,
})

/** What the catalog says of one record file. */
export interface CatalogEntry {
  /** Tokens of writes begun (`p`) and not finished (`d`). */
  open: Set<string>
  /** Whether the last write began while another was in flight. */
  overlapped: boolean
  /** The fields of the last write begun, undefined before any. */
  written?: RecordFields
  /** The fields a reader found in a file no write names. */
  found?: RecordFields
  /** The file as last read by this process, for a record the catalog cannot vouch for. */
  read?: { version: FileVersion; fields: RecordFields | undefined }
}

/** A process's copy of a folder's catalog, brought up to date by {@link syncCatalog}. */
export interface Catalog {
  /** The journal's first line, undefined while there is none. */
  header?: string
  /** Bytes of the journal read so far (whole lines). */
  offset: number
  /** A line did not parse: no record is vouched for by the catalog. */
  damaged: boolean
  /** By record file name. */
  entries: Map<string, CatalogEntry>
  /** The entry of each write begun and not finished, by token. */
  pending: Map<string, CatalogEntry>
}

export const emptyCatalog = (): Catalog => ({
  offset: 0,
  damaged: false,
  entries: new Map(),
  pending: new Map(),
})

/** The fields of a record that the catalog vouches for, or undefined when its file must be read. */
export function vouchedFields(catalog: Catalog, name: string): RecordFields | undefined {
  const entry = catalog.entries.get(name)
  if (catalog.damaged || entry === undefined) return undefined
  if (entry.written === undefined) return entry.found
  return entry.open.size === 0 && !entry.overlapped ? entry.written : undefined
}

/** Reads what was appended to the journal since the last call (all of it when it is another journal). */
export async function syncCatalog(
  catalog: Catalog,
  directory: string,
  nameOf: (id: string) => string,
): Promise<Catalog> {
  const path = join(directory, CATALOG_FILE)
  let handle: FileHandle
  try {
    handle = await open(path, 'r')
  } catch (error) {
    if (isMissing(error)) return emptyCatalog()
    throw storeFailed('open the content catalog', path, error)
  }
  try {
    const { size } = await handle.stat()
    if (catalog.header !== undefined) {
      const start = await readRange(handle, 0, catalog.header.length)
      if (start.toString('utf8') !== catalog.header || size < catalog.offset) catalog = emptyCatalog()
    }
    if (size <= catalog.offset) return catalog
    const added = await readRange(handle, catalog.offset, size - catalog.offset)
    // A line being appended may be read in part: only whole lines are taken.
    const end = added.lastIndexOf(0x0a)
    if (end < 0) return catalog
    catalog.offset += end + 1
    for (const text of added.subarray(0, end).toString('utf8').split('\n')) {
      readLine(catalog, text, nameOf)
    }
    return catalog
  } catch (error) {
    throw storeFailed('read the content catalog', path, error)
  } finally {
    await handle.close()
  }
}

function readLine(catalog: Catalog, text: string, nameOf: (id: string) => string): void {
  let line: { catalog?: unknown; p?: unknown; d?: unknown; b?: unknown; r?: unknown }
  try {
    line = JSON.parse(text)
  } catch {
    catalog.damaged = true
    return
  }
  if (catalog.header === undefined) {
    if (typeof line.catalog === 'string') catalog.header = `${text}\n`
    else catalog.damaged = true
    return
  }
  if (typeof line.d === 'string') {
    // Finishes the write whose `p` line names the same token (a token is unique to one write).
    const entry = catalog.pending.get(line.d)
    if (entry === undefined) catalog.damaged = true
    entry?.open.delete(line.d)
    catalog.pending.delete(line.d)
    return
  }
  const fields = (line.p !== undefined ? line.r : line.b) as RecordFields | undefined
  if (typeof fields?.id !== 'string' || typeof fields.ts !== 'number' || !Array.isArray(fields.tags)) {
    catalog.damaged = true
    return
  }
  const name = nameOf(fields.id)
  let entry = catalog.entries.get(name)
  if (entry === undefined) {
    entry = { open: new Set(), overlapped: false }
    catalog.entries.set(name, entry)
  }
  if (typeof line.p === 'string') {
    entry.overlapped = entry.open.size > 0
    entry.open.add(line.p)
    catalog.pending.set(line.p, entry)
    entry.written = fields
  } else {
    entry.found = fields
  }
}

/** Appends `lines` (each ending with a newline) to the folder's journal, making it first if needed. */
export async function appendCatalog(directory: string, lines: string, durable: boolean): Promise<void> {
  const path = join(directory, CATALOG_FILE)
  let handle: FileHandle
  try {
    // Opened without O_CREAT: a journal without its first line would name no catalog.
    handle = await open(path, constants.O_WRONLY | constants.O_APPEND)
  } catch (error) {
    if (!isMissing(error)) throw error
    await createCatalog(path, directory, durable)
    handle = await open(path, constants.O_WRONLY | constants.O_APPEND)
  }
  try {
    // One write per line block, so lines of writers appending at once never interleave.
    await writeFully(handle, Buffer.from(lines))
    if (durable) await handle.sync()
  } finally {
    await handle.close()
  }
}

/** Makes the journal with its first line in one step: a file linked into place, never an empty one. */
async function createCatalog(path: string, directory: string, durable: boolean): Promise<void> {
  const temporary = temporaryPathFor(path)
  try {
    const handle = await open(temporary, 'wx')
    try {
      await writeFully(
        handle,
        Buffer.from(`${JSON.stringify({ catalog: randomBytes(8).toString('hex') })}\n`),
      )
      if (durable) await handle.sync()
    } finally {
      await handle.close()
    }
    await link(temporary, path).catch((error: unknown) => {
      if (errorCode(error) !== 'EEXIST') throw error
    })
  } finally {
    await rm(temporary, { force: true })
  }
  if (durable) await syncDirectory(directory)
}

/** The `p` line of a write about to begin, and its token for the `d` line. */
export function beginLine(record: ContentRecord): { token: string; line: string } {
  const token = randomBytes(8).toString('hex')
  return { token, line: `${JSON.stringify({ p: token, r: fieldsOf(record) })}\n` }
}

export const doneLine = (token: string): string => `${JSON.stringify({ d: token })}\n`

export const foundLine = (fields: RecordFields): string => `${JSON.stringify({ b: fields })}\n`
