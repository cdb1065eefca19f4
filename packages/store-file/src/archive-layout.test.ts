import { appendFile, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Item, inMemoryStore, StrataError, type StrataStore } from '@strata-memory/core'
import { makeItems } from '@strata-memory/core/testing'
import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { groupParts, PART_BYTES, PART_LINES } from './archive-parts'
import { fileStore } from './file-store'
import type { FileStoreEvent } from './file-store-options'
import { prepareLogLine, sequenceLogLine } from './line-format'

const directories: string[] = []
async function temporaryDirectory(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'strata-archive-'))
  directories.push(directory)
  return directory
}
afterEach(async () => {
  await Promise.all(directories.splice(0).map((directory) => rm(directory, { recursive: true, force: true })))
})

const seqsOf = (items: readonly Item[]) => items.map((item) => item.seq)
const lineOf = (item: Item) => sequenceLogLine(prepareLogLine(item), item.seq)

async function appendAll(store: StrataStore, threadId: string, count: number, from = 0): Promise<Item[]> {
  return store.append(threadId, makeItems(count), { expectedSeq: from })
}

describe('the archive layout: appended parts and an index', () => {
  it('splits a large archive into parts and reads any page from only the parts it needs', async () => {
    const dir = await temporaryDirectory()
    const store = fileStore({ dir, fsync: false })
    const items = await appendAll(store, 't', PART_LINES * 3 + 10)
    // Every third item stays active (as summaries and facts do), the rest are archived in two calls.
    const archived = items.filter((item) => item.seq % 3 !== 0)
    const half = Math.floor(archived.length / 2)
    expect(await store.archive('t', { seqs: seqsOf(archived.slice(half)) })).toBe(archived.length - half)
    expect(await store.archive('t', { seqs: seqsOf(archived.slice(0, half)) })).toBe(half)
    const index = (await readFile(join(dir, 'agents/t/archive/index.jsonl'), 'utf8')).trim().split('\n')
    expect(index.length).toBeGreaterThanOrEqual(3)
    expect(await store.readArchive('t')).toStrictEqual(archived)
    expect(await store.head('t')).toEqual({
      lastSeq: items.length,
      activeCount: items.length - archived.length,
      archivedCount: archived.length,
    })
    const cold = fileStore({ dir })
    for (const [fromSeq, toSeq, limit] of [
      [1, 40, undefined],
      [500, undefined, 25],
      [PART_LINES * 2, PART_LINES * 2 + 3, undefined],
      [undefined, undefined, 7],
      [items.length - 5, undefined, undefined],
    ] as const) {
      const expected = archived
        .filter((item) => item.seq >= (fromSeq ?? 1) && item.seq <= (toSeq ?? Number.MAX_SAFE_INTEGER))
        .slice(0, limit ?? Number.POSITIVE_INFINITY)
      expect(await cold.readArchive('t', { fromSeq, toSeq, limit })).toStrictEqual(expected)
    }
  })

  it('cuts parts as the lines come: as many as fit in 1 MiB and 512 lines, a longer line alone', async () => {
    const dir = await temporaryDirectory()
    const store = fileStore({ dir, fsync: false })
    // Lines of a few bytes to 600 KiB, and one of 1.5 MiB: parts closed by their bytes and by their lines.
    const sizes = Array.from({ length: 1_400 }, (_, index) =>
      index === 700 ? 1_536 * 1024 : index % 97 === 0 ? 600 * 1024 : (index * 131) % 3_000,
    )
    const items = await store.append(
      't',
      makeItems(sizes.length).map((item, index) => ({
        ...item,
        content: [{ type: 'text' as const, text: 'x'.repeat(sizes[index]!) }],
      })),
      { expectedSeq: 0 },
    )
    const moved = items.filter((item) => item.seq % 4 !== 0)
    expect(await store.archive('t', { seqs: seqsOf(moved) })).toBe(moved.length)
    const parts = (await readFile(join(dir, 'agents/t/archive/index.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { offset: number; bytes: number; count: number })
    // Each moved line's bytes as the archive holds it (without its batch_end).
    const data = await readFile(join(dir, 'agents/t/archive/000001.jsonl'))
    const lineBytes: number[] = []
    for (let start = 0, end = data.indexOf(10); end !== -1; start = end + 1, end = data.indexOf(10, start)) {
      lineBytes.push(end + 1 - start)
    }
    expect(lineBytes).toHaveLength(moved.length)
    expect(parts.map((part) => part.count)).toEqual(
      groupParts(seqsOf(moved), lineBytes).map(([start, end]) => end - start),
    )
    let offset = 0
    for (const part of parts) {
      expect(part.offset).toBe(offset)
      expect(part.count <= PART_LINES && (part.bytes <= PART_BYTES || part.count === 1)).toBe(true)
      offset += part.bytes
    }
    expect(await store.readArchive('t')).toStrictEqual(moved)
    expect(await store.read('t')).toStrictEqual(items.filter((item) => item.seq % 4 === 0))
  })

  it('reads a page without touching the other parts; read() and head() touch no archived line', async () => {
    const dir = await temporaryDirectory()
    const store = fileStore({ dir, fsync: false })
    const items = await appendAll(store, 't', PART_LINES * 2 + 20)
    await store.archive('t', { seqs: seqsOf(items.slice(0, PART_LINES * 2)) })
    const data = join(dir, 'agents/t/archive/000001.jsonl')
    // Damage the last part's bytes: a page of the first part still reads, a read of all does not.
    const bytes = await readFile(data)
    bytes.fill(0x20, bytes.length - 200, bytes.length - 1)
    await writeFile(data, bytes)
    const cold = fileStore({ dir })
    expect(seqsOf(await cold.readArchive('t', { limit: 3 }))).toEqual([1, 2, 3])
    await expect(cold.readArchive('t')).rejects.toSatisfy((error) =>
      StrataError.isInstance(error, 'STRATA_CORRUPT_LOG'),
    )
    // With the data files gone altogether, opening the thread still works: it reads only the index.
    await rename(data, `${data}.away`)
    const colder = fileStore({ dir })
    expect(await colder.read('t')).toStrictEqual(items.slice(PART_LINES * 2))
    expect(await colder.head('t')).toEqual({
      lastSeq: items.length,
      activeCount: 20,
      archivedCount: PART_LINES * 2,
    })
  })

  it('ignores bytes an archive cut short before its commit left, and cuts them off (holding the lock)', async () => {
    const dir = await temporaryDirectory()
    const events: FileStoreEvent[] = []
    const store = fileStore({ dir, onEvent: (event) => events.push(event) })
    const items = await appendAll(store, 't', 6)
    await store.archive('t', { seqs: [1, 2] })
    const data = join(dir, 'agents/t/archive/000001.jsonl')
    const index = join(dir, 'agents/t/archive/index.jsonl')
    const committed = (await stat(data)).size
    // A crash after the data of seqs 3-4 was written but before its index line: still active.
    await appendFile(data, `${lineOf(items[2]!)}\n${lineOf(items[3]!)}\n`)
    const cold = fileStore({ dir, onEvent: (event) => events.push(event) })
    expect(seqsOf(await cold.read('t'))).toEqual([3, 4, 5, 6])
    expect(seqsOf(await cold.readArchive('t'))).toEqual([1, 2])
    expect((await stat(data)).size).toBe(committed)
    expect(events).toEqual([])
    // A crash inside the index write: the data, half an index line; the repair moves the line aside.
    await appendFile(data, `${lineOf(items[2]!)}\n${lineOf(items[3]!)}\n`)
    const indexBefore = await readFile(index, 'utf8')
    await appendFile(index, '{"file":"archive/000001.jsonl","offs')
    const colder = fileStore({ dir, onEvent: (event) => events.push(event) })
    expect(seqsOf(await colder.read('t'))).toEqual([3, 4, 5, 6])
    expect(await readFile(index, 'utf8')).toBe(indexBefore)
    expect(events.map((event) => event.type)).toEqual(['torn-tail-moved'])
    expect((await stat(data)).size).toBe(committed)
    expect(await colder.archive('t', { seqs: [5] })).toBe(1)
    expect(seqsOf(await fileStore({ dir }).readArchive('t'))).toEqual([1, 2, 5])
    expect((await readFile(data, 'utf8')).trim().split('\n')).toHaveLength(3)
  })

  it('sees a thread another process deleted and made again, archive and all', async () => {
    const dir = await temporaryDirectory()
    const first = fileStore({ dir })
    await appendAll(first, 't', 4)
    await first.archive('t', { seqs: [1, 2, 3] })
    expect(await first.head('t')).toEqual({ lastSeq: 4, activeCount: 1, archivedCount: 3 })
    const second = fileStore({ dir })
    await second.deleteThread('t')
    const again = await appendAll(second, 't', 6)
    await second.archive('t', { seqs: [1, 2, 3, 4] })
    await second.archive('t', { seqs: [5] })
    expect(await first.head('t')).toEqual({ lastSeq: 6, activeCount: 1, archivedCount: 5 })
    expect(await first.readArchive('t')).toStrictEqual(again.slice(0, 5))
  })

  it('finishes an archive committed before the active log was rewritten', async () => {
    const dir = await temporaryDirectory()
    const events: FileStoreEvent[] = []
    const store = fileStore({ dir })
    const items = await appendAll(store, 't', 5)
    const active = join(dir, 'agents/t/raw_traces.jsonl')
    const before = await readFile(active)
    await store.archive('t', { seqs: [2, 3] })
    // Put the old active log back: as if the process died right after the archive's commit.
    await writeFile(active, before)
    const cold = fileStore({ dir, onEvent: (event) => events.push(event) })
    expect(await cold.read('t')).toStrictEqual([items[0], items[3], items[4]])
    expect(await cold.readArchive('t')).toStrictEqual([items[1], items[2]])
    expect(events).toMatchObject([{ type: 'archive-repaired', seqs: [2, 3] }])
    expect((await readFile(active, 'utf8')).trim().split('\n')).toHaveLength(3)
  })
})

/** A thread in the first layout: the archive one file in seq order, as the old store rewrote it. */
async function writeOldLayout(dir: string, threadId: string, items: Item[], archivedSeqs: Set<number>) {
  const folder = join(dir, 'agents', threadId)
  await mkdir(folder, { recursive: true })
  const text = (list: Item[]) => list.map((item) => `${lineOf(item)}\n`).join('')
  await writeFile(join(folder, 'raw_traces.jsonl'), text(items.filter((item) => !archivedSeqs.has(item.seq))))
  await writeFile(
    join(folder, 'raw_traces_archive.jsonl'),
    text(items.filter((item) => archivedSeqs.has(item.seq))),
  )
}

describe('threads of the first layout (raw_traces_archive.jsonl)', () => {
  it('are read as they are, recorded in the index at the first access, and archived onto', async () => {
    const dir = await temporaryDirectory()
    const items = await appendAll(inMemoryStore(), 'old', PART_LINES + 40)
    const archivedSeqs = new Set(seqsOf(items).filter((seq) => seq <= PART_LINES + 20 && seq % 5 !== 0))
    await writeOldLayout(dir, 'old', items, archivedSeqs)
    const legacy = join(dir, 'agents/old/raw_traces_archive.jsonl')
    const legacyText = await readFile(legacy, 'utf8')
    const archived = items.filter((item) => archivedSeqs.has(item.seq))
    const active = items.filter((item) => !archivedSeqs.has(item.seq))

    const reader = fileStore({ dir })
    expect(await reader.read('old')).toStrictEqual(active)
    expect(await reader.head('old')).toEqual({
      lastSeq: items.length,
      activeCount: active.length,
      archivedCount: archived.length,
    })
    expect(await reader.readArchive('old')).toStrictEqual(archived)
    expect(await reader.readArchive('old', { fromSeq: 100, limit: 5 })).toStrictEqual(
      archived.filter((item) => item.seq >= 100).slice(0, 5),
    )
    // The first access recorded the old file's parts in the index; the old file is not rewritten.
    const writer = fileStore({ dir })
    const [added] = await writer.append('old', makeItems(1), { expectedSeq: items.length })
    const indexLines = (await readFile(join(dir, 'agents/old/archive/index.jsonl'), 'utf8'))
      .trim()
      .split('\n')
    expect(indexLines.map((line) => JSON.parse(line).file)).toEqual(
      indexLines.map(() => 'raw_traces_archive.jsonl'),
    )
    expect(await readFile(legacy, 'utf8')).toBe(legacyText)

    const toArchive = active.slice(0, 10)
    expect(await writer.archive('old', { seqs: seqsOf(toArchive) })).toBe(10)
    expect(await readFile(legacy, 'utf8')).toBe(legacyText)
    const all = [...archived, ...toArchive].sort((left, right) => left.seq - right.seq)
    const cold = fileStore({ dir })
    expect(await cold.readArchive('old')).toStrictEqual(all)
    expect(await cold.read('old')).toStrictEqual([...active.slice(10), added!])
    expect(await cold.head('old')).toEqual({
      lastSeq: items.length + 1,
      activeCount: active.length - 10 + 1,
      archivedCount: all.length,
    })
    expect(await readdir(join(dir, 'agents/old/archive'))).toEqual(['000001.jsonl', 'index.jsonl'])
  })

  it('moves a torn tail of the old archive file aside before recording it', async () => {
    const dir = await temporaryDirectory()
    const items = await appendAll(inMemoryStore(), 'torn', 6)
    await writeOldLayout(dir, 'torn', items, new Set([1, 2, 3]))
    await appendFile(join(dir, 'agents/torn/raw_traces_archive.jsonl'), '{"seq":4,"id":')
    const events: FileStoreEvent[] = []
    const store = fileStore({ dir, onEvent: (event) => events.push(event) })
    expect(await store.readArchive('torn')).toStrictEqual(items.slice(0, 3))
    expect(await store.read('torn')).toStrictEqual(items.slice(3))
    expect(events).toMatchObject([
      { type: 'torn-tail-moved', file: join(dir, 'agents/torn/raw_traces_archive.jsonl') },
    ])
    expect(await store.head('torn')).toEqual({ lastSeq: 6, activeCount: 3, archivedCount: 3 })
  })
})

describe('the archive against the in-memory store (property)', () => {
  it('gives the same reads, pages and counts after any archives', async () => {
    const dir = await temporaryDirectory()
    let run = 0
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 60 }),
        fc.array(fc.array(fc.integer({ min: 1, max: 60 }), { maxLength: 20 }), { maxLength: 5 }),
        fc.array(
          fc.record({
            fromSeq: fc.option(fc.integer({ min: 0, max: 62 }), { nil: undefined }),
            toSeq: fc.option(fc.integer({ min: 0, max: 62 }), { nil: undefined }),
            limit: fc.option(fc.integer({ min: 0, max: 10 }), { nil: undefined }),
          }),
          { maxLength: 4 },
        ),
        async (count, archives, pages) => {
          const threadId = `p${run++}`
          const file = fileStore({ dir, fsync: false })
          const memory = inMemoryStore()
          const input = makeItems(count)
          await file.append(threadId, input, { expectedSeq: 0 })
          await memory.append(threadId, input, { expectedSeq: 0 })
          for (const seqs of archives) {
            expect(await file.archive(threadId, { seqs })).toBe(await memory.archive(threadId, { seqs }))
          }
          const cold = fileStore({ dir })
          expect(await cold.head(threadId)).toEqual(await memory.head(threadId))
          expect(await cold.read(threadId)).toStrictEqual(await memory.read(threadId))
          for (const page of [{}, ...pages]) {
            expect(await cold.readArchive(threadId, page)).toStrictEqual(
              await memory.readArchive(threadId, page),
            )
          }
        },
      ),
      { numRuns: 60 },
    )
  }, 60_000)
})
