import { readdirSync, readlinkSync } from 'node:fs'
import { mkdtemp, open, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Item, UnsequencedItem } from '@strata-memory/core'
import { afterEach, describe, expect, it } from 'vitest'
import { AppendHandles } from './append-handles'
import { fileStore } from './file-store'
import type { FileVersion } from './file-version'
import type { LogFile } from './log-file'

const directories: string[] = []
afterEach(async () => {
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true })
})

async function temporaryDirectory(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'strata-append-handles-'))
  directories.push(directory)
  return directory
}

/** This process's open files under `dir` (Linux: its /proc/self/fd links). */
function openFilesUnder(dir: string): string[] {
  return readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`)
      return target.startsWith(dir) ? [target] : []
    } catch {
      return []
    }
  })
}

let counter = 0
function messages(count: number, text = 'hello'): UnsequencedItem[] {
  return Array.from({ length: count }, () => {
    counter += 1
    return {
      id: `m${counter}`,
      ts: counter,
      level: 'global',
      turnId: 'turn_0001',
      type: 'message',
      role: 'user',
      content: [{ type: 'text', text: `${text} ${counter} → ü` }],
    }
  })
}

const ids = (items: readonly Item[]) => items.map((item) => item.id)

/** Lines an append wrote are read back from the log (through the handle kept open) when a read needs them. */
describe('appended lines read back from the log', () => {
  it('reads what this store appended, in order, between and after runs of appends', async () => {
    const store = fileStore({ dir: await temporaryDirectory() })
    const written: Item[] = []
    for (const size of [1, 3, 1, 100, 2]) {
      written.push(...(await store.append('t', messages(size), { expectedSeq: written.length })))
      if (size === 100) expect(await store.read('t')).toStrictEqual(written)
    }
    expect(await store.read('t')).toStrictEqual(written)
    expect(await store.read('t', { fromSeq: 5, limit: 3 })).toStrictEqual(written.slice(4, 7))
  })

  it('reads them right after another store replaced the log by archiving', async () => {
    const dir = await temporaryDirectory()
    const writer = fileStore({ dir })
    const other = fileStore({ dir })
    const first = await writer.append('t', messages(4), { expectedSeq: 0 })
    expect(await other.archive('t', { seqs: [1, 2] })).toBe(2)
    const second = await writer.append('t', messages(2), { expectedSeq: 4 })
    expect(ids(await writer.read('t'))).toEqual(ids([...first.slice(2), ...second]))
    expect(ids(await writer.readArchive('t'))).toEqual(ids(first.slice(0, 2)))
  })

  it('keeps each thread right when more threads are written than logs are kept open', async () => {
    const store = fileStore({ dir: await temporaryDirectory() })
    const threads = Array.from({ length: 20 }, (_, index) => `t${index}`)
    const expected = new Map<string, Item[]>()
    for (let round = 0; round < 3; round++) {
      for (const thread of threads) {
        const items = expected.get(thread) ?? []
        items.push(...(await store.append(thread, messages(2), { expectedSeq: items.length })))
        expected.set(thread, items)
      }
    }
    for (const thread of threads) expect(await store.read(thread)).toStrictEqual(expected.get(thread))
  })

  it('reads them in a new store after close, and after a delete starts the thread afresh', async () => {
    const dir = await temporaryDirectory()
    const store = fileStore({ dir })
    const items = await store.append('t', messages(3), { expectedSeq: 0 })
    await store.close?.()
    expect(await fileStore({ dir }).read('t')).toStrictEqual(items)
    const again = fileStore({ dir })
    await again.append('t', messages(1), { expectedSeq: 3 })
    await again.deleteThread('t')
    const fresh = await again.append('t', messages(2), { expectedSeq: 0 })
    expect(await again.read('t')).toStrictEqual(fresh)
  })

  it('has closed every log it kept open once close() resolves', async () => {
    const dir = await temporaryDirectory()
    const store = fileStore({ dir })
    for (const thread of ['a', 'b', 'c']) await store.append(thread, messages(2), { expectedSeq: 0 })
    expect(openFilesUnder(dir)).toHaveLength(3)
    await store.close?.()
    expect(openFilesUnder(dir)).toEqual([])
  })

  it('waits for every kept handle to close, however long each close takes', async () => {
    const dir = await temporaryDirectory()
    const handles = new AppendHandles()
    const closed: string[] = []
    for (const name of ['a', 'b', 'c']) {
      const path = join(dir, name)
      const handle = await open(path, 'w')
      const close = handle.close.bind(handle)
      // A slow close (a busy thread pool, a slow disk).
      handle.close = async () => {
        await new Promise((resolve) => setTimeout(resolve, 30))
        await close()
        closed.push(name)
      }
      const stats = await handle.stat()
      await handles.keep({ path } as LogFile, handle, { dev: stats.dev, ino: stats.ino } as FileVersion)
    }
    await handles.dropAll()
    expect(closed.sort()).toEqual(['a', 'b', 'c'])
    expect(openFilesUnder(dir)).toEqual([])
  })

  it('closes a kept log after a while without appends, so a store dropped without close() leaves none open', async () => {
    const dir = await temporaryDirectory()
    const handles = new AppendHandles(50)
    const path = join(dir, 'raw_traces.jsonl')
    const handle = await open(path, 'a')
    const stats = await handle.stat()
    const file = { path, identity: { dev: stats.dev, ino: stats.ino } } as unknown as LogFile
    await handles.keep(file, handle, { dev: stats.dev, ino: stats.ino } as FileVersion)
    // Taken and kept again by the next append: the wait starts over.
    expect(handles.take(file)).toBe(handle)
    await handles.keep(file, handle, { dev: stats.dev, ino: stats.ino } as FileVersion)
    expect(openFilesUnder(dir)).toEqual([path])
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(openFilesUnder(dir)).toEqual([])
    expect(handles.take(file)).toBeUndefined()
  })
})
