import { readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { ContentQuery, ContentRecord } from '@strata-memory/core'
import { compareContentNewestFirst, matchesContentQuery } from '@strata-memory/core/store-kit'
import {
  appendCatalog,
  type Catalog,
  type CatalogEntry,
  emptyCatalog,
  fieldsOf,
  foundLine,
  type RecordFields,
  syncCatalog,
  vouchedFields,
} from './content-catalog'
import { contentFileName, isContentFileName, READS_AT_ONCE, readRecordFile } from './content-files'
import { isMissing, storeFailed } from './file-errors'
import { sameVersion, versionOf } from './file-version'

/** Content folders whose catalog stays cached; the least recently used beyond this are dropped. */
const CACHED_CATALOGS = 256

/** A record file of the folder and the fields it holds. */
interface Listed {
  name: string
  fields: RecordFields
}

/**
 * The content queries of one store: each filters on the folder's catalog (content-catalog.ts) and reads
 * only the files of the records that match, so its cost follows the matches, not the folder's data.
 */
export function contentQueries(): (directory: string, query: ContentQuery) => Promise<ContentRecord[]> {
  const catalogs = new Map<string, Catalog>()
  const turns = new Map<string, Promise<unknown>>()

  /** Runs `action` after every earlier one on the same folder: the cached catalog is updated in place. */
  const inTurn = <T>(directory: string, action: () => Promise<T>): Promise<T> => {
    const result = (turns.get(directory) ?? Promise.resolve()).then(action, action)
    const settled = result.catch(() => {})
    turns.set(directory, settled)
    void settled.then(() => {
      if (turns.get(directory) === settled) turns.delete(directory)
    })
    return result
  }

  const remember = (directory: string, catalog: Catalog) => {
    catalogs.delete(directory)
    if (catalogs.size >= CACHED_CATALOGS) catalogs.delete(catalogs.keys().next().value!)
    catalogs.set(directory, catalog)
  }

  /** Every record file of the folder with its fields, each file read only when the catalog cannot vouch for it. */
  const listRecords = async (directory: string): Promise<Listed[]> => {
    let names: string[]
    try {
      names = await readdir(directory)
    } catch (error) {
      catalogs.delete(directory)
      if (isMissing(error)) return []
      throw storeFailed('list the content folder', directory, error)
    }
    const catalog = await syncCatalog(catalogs.get(directory) ?? emptyCatalog(), directory, contentFileName)
    remember(directory, catalog)
    const listed: Listed[] = []
    const unvouched: string[] = []
    for (const name of names) {
      if (!isContentFileName(name)) continue
      const fields = vouchedFields(catalog, name)
      if (fields !== undefined) listed.push({ name, fields })
      else unvouched.push(name)
    }
    let found = ''
    await inParallel(unvouched, async (name) => {
      let entry = catalog.entries.get(name)
      if (entry === undefined) {
        entry = { open: new Set(), overlapped: false }
        catalog.entries.set(name, entry)
      }
      const fields = await readFields(join(directory, name), entry)
      if (fields === undefined) return
      listed.push({ name, fields })
      // A file no write names (made before the folder had a catalog) is read once by all processes.
      if (entry.written === undefined && entry.found === undefined) {
        entry.found = fields
        found += foundLine(fields)
      }
    })
    // Best effort: a folder that cannot be written (read-only) is read whole instead.
    if (found !== '') await appendCatalog(directory, found, false).catch(() => {})
    return listed
  }

  return async (directory, query) => {
    const listed = await inTurn(directory, () => listRecords(directory))
    // Without `text`, matching looks at the fields only (never at data).
    const filters: ContentQuery = { ...query, text: undefined }
    const candidates = listed.filter(({ fields }) => matchesContentQuery(fields as ContentRecord, filters))
    candidates.sort((left, right) =>
      compareContentNewestFirst(left.fields as ContentRecord, right.fields as ContentRecord),
    )
    const limit = query.limit ?? candidates.length
    const matches: ContentRecord[] = []
    let next = 0
    while (next < candidates.length && matches.length < limit) {
      // Newest first, no more than the limit still needs unless a text filter may drop some.
      const wanted = query.text === undefined ? limit - matches.length : READS_AT_ONCE
      const batch = candidates.slice(next, next + Math.min(wanted, READS_AT_ONCE))
      next += batch.length
      const records = await Promise.all(batch.map(({ name }) => readRecordFile(join(directory, name))))
      // A record replaced since the catalog was read is checked as it is now.
      for (const record of records)
        if (record !== undefined && matchesContentQuery(record, query)) matches.push(record)
    }
    matches.sort(compareContentNewestFirst)
    return matches.slice(0, limit)
  }
}

/** The fields in a record file the catalog cannot vouch for, read again only when the file changed. */
async function readFields(path: string, entry: CatalogEntry): Promise<RecordFields | undefined> {
  let version: ReturnType<typeof versionOf>
  try {
    version = versionOf(await stat(path))
  } catch (error) {
    if (isMissing(error)) return undefined
    throw storeFailed('read', path, error)
  }
  if (!sameVersion(entry.read?.version, version)) {
    const record = await readRecordFile(path)
    entry.read = { version, fields: record === undefined ? undefined : fieldsOf(record) }
  }
  return entry.read!.fields
}

/** Runs `action` on every value, a bounded number at once (a folder may hold more files than a process may open). */
async function inParallel<T>(values: readonly T[], action: (value: T) => Promise<void>): Promise<void> {
  let next = 0
  const worker = async () => {
    while (next < values.length) await action(values[next++]!)
  }
  await Promise.all(Array.from({ length: Math.min(READS_AT_ONCE, values.length) }, worker))
}
