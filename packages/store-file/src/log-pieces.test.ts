import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { LogFile } from './log-file'

const directories: string[] = []
afterEach(async () => {
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true })
})

async function logPath(text: string): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'strata-log-pieces-'))
  directories.push(directory)
  const path = join(directory, 'raw_traces.jsonl')
  await writeFile(path, text)
  return path
}

/** A message line of seq `seq`, its text `size` characters long (some outside ASCII), maybe in a batch. */
function line(seq: number, size: number, batchEnd?: number): string {
  const text = `${seq} → ${'é'.repeat(seq % 3)}${'x'.repeat(size)}`
  const record = {
    seq,
    id: `m${seq}`,
    ts: 1,
    level: 'global',
    turn_id: 'turn_0001',
    type: 'message',
    role: 'user',
    content: [{ type: 'text', text }],
    ...(batchEnd === undefined ? {} : { batch_end: batchEnd }),
  }
  return `${JSON.stringify(record)}\n`
}

/** Lines of varied lengths, single ones and batches of 2 to 40 lines (some longer than a small piece). */
function logText(): string {
  let text = ''
  let seq = 1
  for (let group = 0; seq <= 600; group++) {
    const size = group % 2 === 0 ? 1 : group % 5 === 0 ? 40 : 2 + (group % 7)
    const end = Math.min(seq + size - 1, 600)
    const batch = end > seq
    for (; seq <= end; seq++) text += line(seq, (seq * 37) % 300, batch ? end : undefined)
  }
  return text
}

/** What a load leaves in the cache, for comparing loads read in pieces of different sizes. */
async function loaded(path: string, pieceBytes: number) {
  const file = new LogFile(path, pieceBytes)
  await file.refresh()
  const { seqs, ends, items, committedBytes, tailCheck } = file.lines
  return { seqs, ends, items, committedBytes, tailCheck: tailCheck.toString('hex'), pending: file.pending }
}

const PIECES = [64, 1000, 4096, 65_536]

/** A streamed load (items given to a sink a page at a time): what it leaves, and the items it gave. */
async function streamed(path: string, pieceBytes: number, pageBytes: number) {
  const file = new LogFile(path, pieceBytes, pageBytes)
  const given: unknown[] = []
  await file.refresh((items) => {
    given.push(...items)
  })
  const { seqs, ends, committedBytes, tailCheck } = file.lines
  return {
    state: { seqs, ends, committedBytes, tailCheck: tailCheck.toString('hex'), pending: file.pending },
    given,
  }
}

/** Pieces and pages of a streamed load: pages smaller than, as large as and larger than a piece. */
const STREAMED: [piece: number, page: number][] = [
  [65_536, 64],
  [65_536, 1000],
  [65_536, 4096],
  [4096, 1000],
  [1000, 4096],
  [64, 64],
]

describe('a whole log read in pieces', () => {
  it('commits the same lines, batches and items whatever the piece size', async () => {
    const path = await logPath(logText())
    const whole = await loaded(path, 1 << 30)
    expect(whole.seqs).toHaveLength(600)
    for (const pieceBytes of PIECES) expect(await loaded(path, pieceBytes)).toStrictEqual(whole)
  })

  it('leaves the same pending tail: a torn line, or a batch cut short', async () => {
    const text = logText()
    for (const tail of ['{"seq":601,"id":"m', line(601, 5, 603) + line(602, 900, 603)]) {
      const path = await logPath(text + tail)
      const whole = await loaded(path, 1 << 30)
      expect(whole.seqs).toHaveLength(600)
      expect(whole.pending?.length).toBe(Buffer.byteLength(tail))
      for (const pieceBytes of PIECES) expect(await loaded(path, pieceBytes)).toStrictEqual(whole)
    }
  })

  it('refuses a bad line inside the log with the same line number, however the pieces cut it', async () => {
    const lines = logText().split('\n')
    lines[300] = '{"seq": not json'
    const path = await logPath(lines.join('\n'))
    const refusal = (pieceBytes: number) => new LogFile(path, pieceBytes).refresh().catch((error) => error)
    const expected = await refusal(1 << 30)
    expect(expected).toMatchObject({ code: 'STRATA_CORRUPT_LOG' })
    expect(String(expected.message)).toContain('line 301')
    for (const pieceBytes of PIECES) {
      const error = await refusal(pieceBytes)
      expect(error).toMatchObject({ code: 'STRATA_CORRUPT_LOG', message: expected.message })
    }
  })

  it('commits the same lines and gives the same items, pending tail or refusal when streamed a page at a time', async () => {
    const text = logText()
    const bad = text.split('\n')
    bad[300] = '{"seq": not json'
    for (const body of [text, `${text}{"seq":601,"id":"m`, text + line(601, 5, 603) + line(602, 900, 603)]) {
      const path = await logPath(body)
      const whole = await loaded(path, 1 << 30)
      for (const [piece, page] of STREAMED) {
        const { state, given } = await streamed(path, piece, page)
        const { items, ...rest } = whole
        expect(state).toStrictEqual(rest)
        expect(given).toStrictEqual(items)
      }
    }
    const path = await logPath(bad.join('\n'))
    const expected = await new LogFile(path, 1 << 30).refresh().catch((error) => error)
    for (const [piece, page] of STREAMED) {
      const error = await streamed(path, piece, page).catch((failure) => failure)
      expect(error).toMatchObject({ code: 'STRATA_CORRUPT_LOG', message: expected.message })
    }
  })

  it('parses the next page only once the page before it was taken, and says how far it is', async () => {
    const text = logText()
    const path = await logPath(text)
    const file = new LogFile(path, 65_536, 4096)
    const calls: { items: number; bytes: number; size: number }[] = []
    let release: (() => void) | undefined
    const loading = file.refresh((items, progress) => {
      calls.push({ items: items.length, ...progress })
      return new Promise<void>((resolve) => {
        release = resolve
      })
    })
    // However long it is left, the load waits on the page it gave.
    for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve))
    expect(calls).toHaveLength(1)
    for (let page = 1; ; page++) {
      const before = calls.length
      release!()
      for (let turn = 0; turn < 5 && calls.length === before; turn++)
        await new Promise((resolve) => setImmediate(resolve))
      if (calls.length === before) break
      expect(calls).toHaveLength(page + 1)
    }
    await loading
    const size = Buffer.byteLength(text)
    // Pages of about 4 KiB, and the rest of a piece after a batch longer than a page.
    expect(calls.length).toBeGreaterThan(3)
    expect(calls.at(-1)).toMatchObject({ bytes: size, size })
    expect(calls.reduce((sum, call) => sum + call.items, 0)).toBe(600)
    for (let index = 1; index < calls.length; index++)
      expect(calls[index]!.bytes).toBeGreaterThan(calls[index - 1]!.bytes)
  })
  it('parses a batch longer than a page about once, not once for each doubling of the page', async () => {
    // One batch of 2,000 lines (about 500 KB) in one piece, pages of 4 KiB.
    const text = Array.from({ length: 2_000 }, (_, index) => line(index + 1, 200, 2_000)).join('')
    const path = await logPath(text)
    const parse = vi.spyOn(JSON, 'parse')
    try {
      const { given } = await streamed(path, 1 << 20, 4096)
      expect(given).toHaveLength(2_000)
      expect(parse.mock.calls.length).toBeLessThan(2_000 * 1.1)
    } finally {
      parse.mockRestore()
    }
  })
})
