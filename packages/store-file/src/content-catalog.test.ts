import { appendFile, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ContentRecord, StrataStore } from '@strata-memory/core'
import { afterEach, describe, expect, it } from 'vitest'
import { appendCatalog, beginLine, CATALOG_FILE, doneLine } from './content-catalog'
import { contentFileName, recordFileReads } from './content-files'
import { fileStore } from './file-store'

let dir: string | undefined
const stores: StrataStore[] = []
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close?.()))
  if (dir !== undefined) await rm(dir, { recursive: true, force: true })
  dir = undefined
})

/** A file store on a fresh folder, and more stores on the same folder (as other processes open it). */
async function storesOnOneFolder(): Promise<() => StrataStore> {
  dir = await mkdtemp(join(tmpdir(), 'strata-content-catalog-'))
  const folder = dir
  return () => {
    const store = fileStore({ dir: folder, fsync: false })
    stores.push(store)
    return store
  }
}

const record = (id: string, ts: number, overrides: Partial<ContentRecord> = {}): ContentRecord => ({
  id,
  type: 'text',
  tags: [],
  ts,
  size: 5,
  data: `d-${id}`,
  ...overrides,
})

const contentFolder = () => join(dir!, 'agents', 't', 'content')

/** Writes a record file as a store does, without telling the catalog (a crash, or an older store). */
const writeRecordFile = (value: ContentRecord) =>
  writeFile(join(contentFolder(), contentFileName(value.id)), `${JSON.stringify(value, null, 2)}\n`)

/** Record files a query reads (data included). */
async function readsOf<T>(action: () => Promise<T>): Promise<{ result: T; reads: number }> {
  const before = recordFileReads.count
  const result = await action()
  return { result, reads: recordFileReads.count - before }
}

const RECORDS = 2_000

describe('queryContent reads the data of the records that match, not of every record', () => {
  it('a fromTs query matching 1 of 2,000 records reads 1 record file, in this store and in a fresh one', async () => {
    const open = await storesOnOneFolder()
    const store = open()
    for (let start = 0; start < RECORDS; start += 100) {
      await Promise.all(
        Array.from({ length: 100 }, (_, index) =>
          store.putContent('t', record(`m_${start + index}`, start + index)),
        ),
      )
    }
    const newest = { fromTs: RECORDS - 1 }
    expect(await readsOf(() => store.queryContent('t', newest))).toEqual({
      result: [record(`m_${RECORDS - 1}`, RECORDS - 1)],
      reads: 1,
    })
    // Another process opening the folder reads the catalog, not the records.
    expect((await readsOf(() => open().queryContent('t', newest))).reads).toBe(1)
    expect((await readsOf(() => store.queryContent('t', { fromTs: RECORDS }))).reads).toBe(0)
    // With a limit, only the records returned are read.
    const { result, reads } = await readsOf(() => store.queryContent('t', { limit: 3 }))
    expect(result.map(({ id }) => id)).toEqual([`m_${RECORDS - 1}`, `m_${RECORDS - 2}`, `m_${RECORDS - 3}`])
    expect(reads).toBe(3)
  })

  it('a folder written before the catalog is read whole once, then through the catalog', async () => {
    const open = await storesOnOneFolder()
    await open().putContent('t', record('m_0', 0))
    for (let index = 1; index < 50; index++) await writeRecordFile(record(`m_${index}`, index))
    await unlink(join(contentFolder(), CATALOG_FILE))
    const first = await readsOf(() => open().queryContent('t', { fromTs: 49 }))
    // Each file once for its fields, then the match for its data.
    expect(first).toEqual({ result: [record('m_49', 49)], reads: 51 })
    expect(await readsOf(() => open().queryContent('t', { fromTs: 49 }))).toEqual({
      result: [record('m_49', 49)],
      reads: 1,
    })
  })
})

describe('the content catalog after a crash or a write of another process', () => {
  /** A catalog line saying a write of `value` began (its file not yet renamed into place). */
  const begin = async (value: ContentRecord): Promise<string> => {
    const { token, line } = beginLine(value)
    await appendCatalog(contentFolder(), line, false)
    return token
  }
  const done = (token: string) => appendCatalog(contentFolder(), doneLine(token), false)

  it('a write begun whose file never came (a new record) is not in the results', async () => {
    const open = await storesOnOneFolder()
    const store = open()
    await store.putContent('t', record('kept', 1))
    await begin(record('ghost', 5))
    expect(await store.queryContent('t')).toEqual([record('kept', 1)])
    expect(await open().queryContent('t', { fromTs: 5 })).toEqual([])
  })

  it('a replacement begun whose file never came gives the record as it is in its file', async () => {
    const open = await storesOnOneFolder()
    const store = open()
    await store.putContent('t', record('m', 1, { type: 'old' }))
    await store.queryContent('t')
    await begin(record('m', 9, { type: 'new' }))
    for (const reader of [store, open()]) {
      expect(await reader.queryContent('t', { type: 'new' })).toEqual([])
      expect(await reader.queryContent('t', { fromTs: 9 })).toEqual([])
      expect(await reader.queryContent('t', { type: 'old' })).toEqual([record('m', 1, { type: 'old' })])
    }
  })

  it('a replacement whose file came but whose write was not marked done is read from its file', async () => {
    const open = await storesOnOneFolder()
    const store = open()
    await store.putContent('t', record('m', 1, { type: 'old' }))
    await store.queryContent('t')
    await begin(record('m', 9, { type: 'new' }))
    await writeRecordFile(record('m', 9, { type: 'new' }))
    for (const reader of [store, open()]) {
      expect(await reader.queryContent('t', { type: 'old' })).toEqual([])
      expect(await reader.queryContent('t', { fromTs: 9 })).toEqual([record('m', 9, { type: 'new' })])
    }
  })

  it('two writes of one record that overlapped: the file says which was last', async () => {
    const open = await storesOnOneFolder()
    const store = open()
    await store.putContent('t', record('m', 1))
    // First begins, second begins, second's file is renamed, then first's: the last line begun is the
    // second, the file holds the first.
    const first = await begin(record('m', 2, { type: 'first' }))
    const second = await begin(record('m', 3, { type: 'second' }))
    await writeRecordFile(record('m', 2, { type: 'first' }))
    await done(second)
    await done(first)
    for (const reader of [store, open()]) {
      expect(await reader.queryContent('t', { type: 'second' })).toEqual([])
      expect(await reader.queryContent('t', { type: 'first' })).toEqual([record('m', 2, { type: 'first' })])
    }
  })

  it('a line that does not parse (torn by a crash) leaves every record read from its file', async () => {
    const open = await storesOnOneFolder()
    const store = open()
    await store.putContent('t', record('a', 1))
    await appendFile(join(contentFolder(), CATALOG_FILE), '{"p":"torn","r":{"id":"b","ty\n')
    await writeRecordFile(record('a', 7, { type: 'replaced' }))
    for (const reader of [store, open()]) {
      expect(await reader.queryContent('t', { fromTs: 7 })).toEqual([record('a', 7, { type: 'replaced' })])
    }
  })

  it('a record another store writes, replaces, or a thread it deletes shows in the next query', async () => {
    const open = await storesOnOneFolder()
    const [reader, writer] = [open(), open()]
    expect(await reader.queryContent('t')).toEqual([])
    await writer.putContent('t', record('m', 1))
    expect(await reader.queryContent('t')).toEqual([record('m', 1)])
    await writer.putContent('t', record('m', 2, { tags: ['new'] }))
    expect(await reader.queryContent('t', { tags: ['new'] })).toEqual([record('m', 2, { tags: ['new'] })])
    await writer.deleteThread('t')
    expect(await reader.queryContent('t')).toEqual([])
    // A thread made again under the same id has a new catalog: nothing of the old one is kept.
    await writer.putContent('t', record('n', 3))
    expect(await reader.queryContent('t')).toEqual([record('n', 3)])
    expect(await readFile(join(contentFolder(), CATALOG_FILE), 'utf8')).not.toContain('"m"')
  })
})
