import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { withoutBatchEnd } from './line-format'
import { LogRewrite, type RewrittenLog, TAIL_CHECK_BYTES } from './log-rewrite'

const directories: string[] = []
afterEach(async () => {
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true })
})

async function logPath(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'strata-log-rewrite-'))
  directories.push(directory)
  return join(directory, 'raw_traces.jsonl')
}

/** Each line's bytes with its newline, as views of one buffer (a window read from a log). */
function viewsOf(lines: readonly string[]): Buffer[] {
  const bytes = Buffer.from(lines.map((line) => `${line}\n`).join(''))
  const views: Buffer[] = []
  let start = 0
  for (const line of lines) {
    const length = Buffer.byteLength(line) + 1
    views.push(bytes.subarray(start, start + length))
    start += length
  }
  return views
}

const expected = (lines: readonly string[]) => lines.map((line) => `${withoutBatchEnd(line)}\n`).join('')

/** Writes `lines` through a rewrite of `path` (awaiting each write it asks for) and commits it. */
async function rewrite(path: string, lines: readonly string[], chunkBytes?: number): Promise<RewrittenLog> {
  const log = await LogRewrite.create(path, false, chunkBytes)
  for (const bytes of viewsOf(lines)) await log.add(bytes)
  return log.commit()
}

/** What the cache must be told of `text`, a log's bytes: each newline's offset, the size, the last bytes. */
function described(text: string) {
  const bytes = Buffer.from(text)
  const ends: number[] = []
  for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) ends.push(at)
  return { ends, bytes: bytes.length, tail: bytes.subarray(Math.max(0, bytes.length - TAIL_CHECK_BYTES)) }
}

describe('a streamed log rewrite', () => {
  it('writes the lines without their batch_end, in order, and tells where each ends and how the file ends', async () => {
    const lines = [
      '{"seq":1,"id":"a","batch_end":3}',
      '{"seq":2,"id":"b → é","batch_end":3}',
      '{"seq":3,"id":"c","batch_end":3}',
      '{"seq":4,"id":"d"}',
      '{"seq":5,"id":"e","meta":{"batch_end":1},"batch_end":6}',
      '{"seq":6,"id":"f \\"batch_end\\": no","batch_end":6}',
      '{"seq":7,"id":"g"}',
    ]
    const path = await logPath()
    await writeFile(path, 'the old log\n')
    const written = await rewrite(path, lines)
    const text = await readFile(path, 'utf8')
    expect(text).toBe(expected(lines))
    expect({ ends: written.ends, bytes: written.bytes, tail: written.tail }).toEqual(described(text))
    expect(written.stats.size).toBe(written.bytes)
    // Only the log is left in the folder: the temporary file was renamed.
    expect(await readdir(join(path, '..'))).toEqual(['raw_traces.jsonl'])
  })

  it('writes no lines as an empty log', async () => {
    const path = await logPath()
    const written = await rewrite(path, [])
    expect(await readFile(path, 'utf8')).toBe('')
    expect({ ends: written.ends, bytes: written.bytes, tail: written.tail }).toEqual(described(''))
  })

  it('crosses its 8 MiB writes, and takes a line longer than its buffer, with nothing lost or moved', async () => {
    const lines = Array.from({ length: 120_000 }, (_, index) =>
      index % 50 < 40
        ? `{"seq":${index + 1},"text":"${'y'.repeat(index % 90)}","batch_end":${index + 2}}`
        : `{"seq":${index + 1},"text":"${'z'.repeat(index === 60_045 ? 9 * 1024 * 1024 : 2_000)}"}`,
    )
    const path = await logPath()
    const written = await rewrite(path, lines)
    const text = await readFile(path, 'utf8')
    expect(text.length).toBeGreaterThan(3 * 8 * 1024 * 1024)
    expect(text).toBe(expected(lines))
    expect({ ends: written.ends, bytes: written.bytes, tail: written.tail }).toEqual(described(text))
  })

  it('writes any lines through any buffer size as they would be written at once (property)', async () => {
    const line = fc
      .record({
        text: fc.string({ unit: 'grapheme', maxLength: 120 }),
        batchEnd: fc.option(fc.nat({ max: 99_999 })),
      })
      .map(({ text, batchEnd }) =>
        JSON.stringify(batchEnd === null ? { text } : { text, batch_end: batchEnd }),
      )
    const path = await logPath()
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { maxLength: 40 }),
        fc.integer({ min: 1, max: 400 }),
        async (lines, chunk) => {
          const written = await rewrite(path, lines, chunk)
          const text = await readFile(path, 'utf8')
          expect(text).toBe(expected(lines))
          expect({ ends: written.ends, bytes: written.bytes, tail: written.tail }).toEqual(described(text))
        },
      ),
      { numRuns: 150 },
    )
  })

  it('leaves the log as it was, and no temporary file, when abandoned', async () => {
    const path = await logPath()
    await writeFile(path, '{"seq":1}\n')
    const log = await LogRewrite.create(path, true, 16)
    for (const bytes of viewsOf(['{"seq":2,"text":"a long line, longer than the buffer"}', '{"seq":3}'])) {
      await log.add(bytes)
    }
    await log.abort()
    expect(await readFile(path, 'utf8')).toBe('{"seq":1}\n')
    expect(await readdir(join(path, '..'))).toEqual(['raw_traces.jsonl'])
  })
})
