import { describe, expect, it } from 'vitest'
import { withoutBatchEnd } from './line-format'
import { lastBytes, logChunks } from './log-chunks'

/** Each line's bytes with its newline, as views of one buffer (a block read from a log). */
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

describe('log chunks', () => {
  it('writes the lines without their batch_end, in order, whether they come from one buffer or many', () => {
    const lines = [
      '{"seq":1,"id":"a","batch_end":3}',
      '{"seq":2,"id":"b → é","batch_end":3}',
      '{"seq":3,"id":"c","batch_end":3}',
      '{"seq":4,"id":"d"}',
      '{"seq":5,"id":"e","meta":{"batch_end":1},"batch_end":6}',
      '{"seq":6,"id":"f \\"batch_end\\": no","batch_end":6}',
      '{"seq":7,"id":"g"}',
    ]
    const views = viewsOf(lines)
    expect(Buffer.concat(logChunks(views)).toString()).toBe(expected(lines))
    // Every other line, as after an archive of the others.
    const kept = lines.filter((_, index) => index % 2 === 0)
    expect(Buffer.concat(logChunks(views.filter((_, index) => index % 2 === 0))).toString()).toBe(
      expected(kept),
    )
    const separate = lines.map((line) => Buffer.from(`${line}\n`))
    expect(Buffer.concat(logChunks(separate)).toString()).toBe(expected(lines))
    expect(logChunks([])).toEqual([])
  })

  it('keeps a long run of untouched lines as one view of its buffer, and gathers scattered ones', () => {
    const lines = Array.from(
      { length: 4000 },
      (_, index) => `{"seq":${index + 1},"text":"${'x'.repeat(40)}"}`,
    )
    const views = viewsOf(lines)
    const chunks = logChunks(views)
    expect(chunks).toHaveLength(1)
    expect(chunks[0]!.buffer).toBe(views[0]!.buffer)
    const scattered = views.filter((_, index) => index % 2 === 1)
    const gathered = logChunks(scattered)
    expect(gathered).toHaveLength(1)
    expect(gathered[0]!.toString()).toBe(expected(lines.filter((_, index) => index % 2 === 1)))
  })

  it('gathers lines cut short of their batch_end into chunks of about 8 MiB, mixed with runs kept as they are', () => {
    const lines = Array.from({ length: 120_000 }, (_, index) =>
      index % 50 < 40
        ? `{"seq":${index + 1},"text":"${'y'.repeat(index % 90)}","batch_end":${index + 2}}`
        : `{"seq":${index + 1},"text":"${'z'.repeat(2_000)}"}`,
    )
    const chunks = logChunks(viewsOf(lines))
    expect(chunks.length).toBeGreaterThan(2)
    for (const chunk of chunks.slice(0, -1)) expect(chunk.length).toBeLessThanOrEqual(8 * 1024 * 1024)
    expect(Buffer.concat(chunks).toString()).toBe(expected(lines))
  })

  it('takes the last bytes across chunks', () => {
    const chunks = [Buffer.from('abc'), Buffer.from('de'), Buffer.from('f')]
    expect(lastBytes(chunks, 4).toString()).toBe('cdef')
    expect(lastBytes(chunks, 64).toString()).toBe('abcdef')
    expect(lastBytes([], 64)).toEqual(Buffer.alloc(0))
  })
})
