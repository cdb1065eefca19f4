import { mkdtemp, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Item, UnsequencedItem } from '@strata-memory/core'
import { afterEach, describe, expect, it } from 'vitest'
import { fileStore } from './file-store'
import { LogFile } from './log-file'
import { StaleLines } from './log-lines'

const directories: string[] = []
afterEach(async () => {
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true })
})

async function temporaryDirectory(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'strata-log-lines-'))
  directories.push(directory)
  return directory
}

function message(text: string): UnsequencedItem {
  return {
    id: `m-${text}`,
    ts: 1,
    level: 'global',
    turnId: 'turn_0001',
    type: 'message',
    role: 'user',
    content: [{ type: 'text', text }],
  }
}

const texts = (items: readonly Item[]) =>
  items.map((item) => (item.type === 'message' ? item.content[0] : undefined))

/** A whole second of mtime: one a rewrite can be given back exactly, so a stat cannot tell it apart. */
const SECOND = new Date(1_700_000_000_000)

/** The lines of a loaded log are read back from the file, and only from the file they were loaded from. */
describe('lines read back from the log', () => {
  it('reads items a first read took again from the file, ranges and all', async () => {
    const dir = await temporaryDirectory()
    const written = await fileStore({ dir }).append('t', ['a', 'bé', 'c → d', 'e'].map(message), {
      expectedSeq: 0,
    })
    const reader = fileStore({ dir })
    expect(await reader.read('t')).toStrictEqual(written)
    expect(await reader.read('t')).toStrictEqual(written)
    expect(await reader.read('t', { fromSeq: 2, limit: 2 })).toStrictEqual(written.slice(1, 3))
  })

  it('hands a whole cold read the items it loaded and keeps none of them; a range read first leaves the rest to it', async () => {
    const dir = await temporaryDirectory()
    const written = await fileStore({ dir }).append('t', ['a', 'bé', 'c → d', 'e'].map(message), {
      expectedSeq: 0,
    })
    const whole = fileStore({ dir })
    const first = await whole.read('t')
    expect(first).toStrictEqual(written)
    // The caller's list and items are its own: changing them changes no later read.
    first.length = 1
    ;(first[0] as { id: string }).id = 'changed'
    expect(await whole.read('t')).toStrictEqual(written)
    const ranged = fileStore({ dir })
    expect(await ranged.read('t', { fromSeq: 2, limit: 2 })).toStrictEqual(written.slice(1, 3))
    expect(await ranged.read('t')).toStrictEqual(written)
  })

  it('reads a log rewritten in place, its size and mtime kept, afresh: never through the old offsets', async () => {
    const dir = await temporaryDirectory()
    const log = join(dir, 'agents', 't', 'raw_traces.jsonl')
    await fileStore({ dir }).append('t', ['aaaa', 'b', 'cc'].map(message), { expectedSeq: 0 })
    await utimes(log, SECOND, SECOND)
    const reader = fileStore({ dir })
    expect(texts(await reader.read('t'))).toEqual(['aaaa', 'b', 'cc'].map((text) => ({ type: 'text', text })))
    // Another writer moves the line boundaries and keeps the file's size and mtime.
    const before = await readFile(log, 'utf8')
    const after = before.replace('"aaaa"', '"a"').replace('"b"', '"bbbb"')
    expect(after.length).toBe(before.length)
    await writeFile(log, after)
    await utimes(log, SECOND, SECOND)
    expect((await stat(log)).mtimeMs).toBe(SECOND.getTime())
    expect(texts(await reader.read('t'))).toEqual(['a', 'bbbb', 'cc'].map((text) => ({ type: 'text', text })))
  })

  it('refuses the lines of a log replaced since it was loaded, and loads the new one at the next refresh', async () => {
    const dir = await temporaryDirectory()
    const path = join(dir, 'log.jsonl')
    await writeFile(path, '{"seq":1,"id":"a"}\n{"seq":2,"id":"b"}\n')
    const file = new LogFile(path)
    await file.refresh()
    const loaded = file.lines
    expect(loaded.read([0, 1])).toEqual(['{"seq":1,"id":"a"}', '{"seq":2,"id":"b"}'])
    await writeFile(`${path}.new`, '{"seq":1,"id":"x"}\n{"seq":2,"id":"y"}\n')
    await rename(`${path}.new`, path)
    expect(() => loaded.read([1])).toThrow(StaleLines)
    expect(file.missing).toBe(true)
    await file.refresh()
    expect(file.lines.read([1])).toEqual(['{"seq":2,"id":"y"}'])
  })

  it('refuses the lines of a log cut short since it was loaded', async () => {
    const dir = await temporaryDirectory()
    const path = join(dir, 'log.jsonl')
    await writeFile(path, '{"seq":1,"id":"a"}\n{"seq":2,"id":"b"}\n')
    const file = new LogFile(path)
    await file.refresh()
    await writeFile(path, '{"seq":1,"id":"a"}\n')
    expect(() => file.lines.read([0])).toThrow(StaleLines)
    await file.refresh()
    expect(file.seqs).toEqual([1])
  })

  it('reads any range of lines through a window of any size as one read would', async () => {
    const dir = await temporaryDirectory()
    const path = join(dir, 'log.jsonl')
    const lines = Array.from(
      { length: 60 },
      (_, index) => `{"seq":${index + 1},"text":"${'é'.repeat((index * 37) % 50)}"}`,
    )
    await writeFile(path, lines.map((line) => `${line}\n`).join(''))
    const file = new LogFile(path)
    await file.refresh()
    const loaded = file.lines
    for (const [first, last] of [
      [0, 59],
      [5, 5],
      [17, 42],
      [3, 2],
    ] as const) {
      for (const size of [1, 30, 64, 200, 1 << 20]) {
        const windows: { first: number; last: number; lines: string[] }[] = []
        for (const block of loaded.blocks(first, last, Buffer.alloc(size))) {
          const texts: string[] = []
          for (let index = block.first; index <= block.last; index += 1)
            texts.push(block.bytesOf(index).toString())
          windows.push({ first: block.first, last: block.last, lines: texts })
          // A window holds as many lines as fit in the buffer, or one line alone.
          const bytes = texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0)
          expect(bytes <= size || block.first === block.last).toBe(true)
        }
        expect(windows.flatMap((window) => window.lines)).toEqual(
          lines.slice(first, last + 1).map((line) => `${line}\n`),
        )
        // Windows follow each other, line after line.
        windows.forEach((window, index) => {
          expect(window.first).toBe(index === 0 ? first : windows[index - 1]!.last + 1)
        })
      }
    }
    // One file version: a replaced log is refused before the first window.
    await writeFile(`${path}.new`, '{"seq":1}\n')
    await rename(`${path}.new`, path)
    expect(() => [...loaded.blocks(0, 59, Buffer.alloc(64))]).toThrow(StaleLines)
  })
})
