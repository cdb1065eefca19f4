import { appendFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { UnsequencedItem } from '@strata-memory/core'
import { ThreadAuditor } from '@strata-memory/core/store-kit'
import { makeEveryItemType, makeItems } from '@strata-memory/core/testing'
import { afterEach, describe, expect, it } from 'vitest'
import { auditLog, auditLogFile } from './file-audit'
import { fileStore } from './file-store'
import { itemFromLogLine } from './line-format'

const directories: string[] = []
afterEach(async () => {
  await Promise.all(directories.splice(0).map((directory) => rm(directory, { recursive: true, force: true })))
})

/** A store on a fresh folder, and a thread of `count` items appended one at a time (no batches). */
async function threadOf(count: number, threadId = 't') {
  const dir = await mkdtemp(join(tmpdir(), 'strata-file-audit-'))
  directories.push(dir)
  const store = fileStore({ dir, onEvent: () => undefined })
  for (const [index, item] of makeItems(count).entries())
    await store.append(threadId, [item], { expectedSeq: index })
  const folder = join(dir, 'agents', threadId)
  return { store, folder, log: join(folder, 'raw_traces.jsonl') }
}

/** Every file of a folder with its bytes, to see that an audit changed nothing. */
async function snapshotOf(folder: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {}
  for (const entry of await readdir(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name === '.lock') continue
    const path = join(entry.parentPath, entry.name)
    files[path] = (await readFile(path)).toString('base64')
  }
  return files
}

describe('fileStore audit', () => {
  it('reads on past corrupt lines where a read stops: each problem once, the other items counted', async () => {
    const { store, folder, log } = await threadOf(8)
    const lines = (await readFile(log, 'utf8')).trimEnd().split('\n')
    lines[2] = '{"seq": oops' // seq 3: not JSON
    lines[5] = lines[3]! // seq 6 replaced by a second seq 4: out of order
    await writeFile(log, `${lines.join('\n')}\n`)
    const before = await snapshotOf(folder)
    const report = await store.audit('t')
    expect(report.entries.map(({ code, line, seq }) => [code, line, seq])).toEqual([
      ['corrupt-line', 3, undefined],
      ['seq-order', 6, undefined],
      ['seq-gap', undefined, 3],
      ['seq-gap', undefined, 6],
    ])
    expect(report.entries[0]!.message).toBe('raw_traces.jsonl line 3 is not valid JSON.')
    expect(report.entries[1]!.message).toMatch(/^raw_traces\.jsonl line 6 has seq 4, which does not follow/)
    expect(report.items).toBe(6)
    expect(report.entries.every((entry) => !entry.repairable)).toBe(true)
    // Nothing a repair can mend: --repair changes nothing either.
    expect((await store.audit('t', { repair: true })).repaired).toEqual([])
    expect(await snapshotOf(folder)).toEqual(before)
  })

  it('keeps the lines of a batch a corrupt line broke, and names a torn batch with its seqs', async () => {
    const { store, log } = await threadOf(2)
    await store.append('t', makeItems(3), { expectedSeq: 2 })
    const lines = (await readFile(log, 'utf8')).trimEnd().split('\n')
    // The batch 3–5 broken by its middle line; then a batch 6–7 cut short after its first line.
    lines[3] = 'not json'
    const torn = JSON.stringify({ seq: 6, id: 'torn', type: 'message', batch_end: 7 })
    await writeFile(log, `${lines.join('\n')}\n${torn}\n`)
    const report = await store.audit('t')
    expect(report.entries.map((entry) => [entry.code, entry.message])).toEqual([
      ['corrupt-line', 'raw_traces.jsonl line 4 is not valid JSON.'],
      ['torn-tail', 'raw_traces.jsonl ends with 1 line of a batch (seq 6–7) without its last line.'],
      ['seq-gap', 'seq 4 is in neither the active log nor the archive.'],
    ])
    expect(report.items).toBe(4)
  })

  it('finds an archive interrupted before its commit (data no index line names) and repairs it', async () => {
    const { store, folder } = await threadOf(6)
    await store.archive('t', { seqs: [1, 2] })
    await appendFile(join(folder, 'archive', '000001.jsonl'), '{"seq":3,"id":"half"}\n')
    await appendFile(join(folder, 'archive', 'index.jsonl'), '{"file":"archive/000001.jsonl","off')
    const before = await snapshotOf(folder)
    const found = await store.audit('t')
    expect(found.entries.map((entry) => [entry.code, entry.file, entry.repairable])).toEqual([
      ['torn-tail', 'archive/index.jsonl', true],
      ['torn-tail', 'archive/000001.jsonl', true],
    ])
    expect(await snapshotOf(folder)).toEqual(before)
    const repaired = await store.audit('t', { repair: true })
    expect(repaired.repaired.map((entry) => entry.code)).toEqual(['torn-tail', 'torn-tail'])
    expect(repaired.entries).toEqual([])
    expect(repaired.items).toBe(6)
    expect((await store.readArchive('t')).map((item) => item.seq)).toEqual([1, 2])
  })

  it('reads a log a window of lines at a time as it reads it whole: batches and corrupt lines across windows', async () => {
    const { store, folder, log } = await threadOf(3)
    for (const size of [4, 1, 5, 2, 3]) {
      const { lastSeq } = await store.head('t')
      await store.append('t', makeItems(size), { expectedSeq: lastSeq })
    }
    const lines = (await readFile(log, 'utf8')).trimEnd().split('\n')
    lines[5] = 'not json' // inside the batch of four
    lines[9] = '{"seq":1}' // out of order, alone
    lines[11] = '' // an empty line inside the batch of two
    const torn = JSON.stringify({ seq: 99, id: 'torn', type: 'message', batch_end: 100 })
    const bytes = Buffer.from(`${lines.join('\n')}\n${torn}\n{"seq":100,"id`)
    // The same bytes in a file of their own, read a window at a time into one reused buffer.
    const file = join(folder, 'damaged.jsonl')
    await writeFile(file, bytes)
    const read = (window: number, from: 'buffer' | 'file' = 'buffer') => {
      const auditor = new ThreadAuditor('t')
      const seen: [number, number | undefined][] = []
      const sink: Parameters<typeof auditLog>[3] = (_source, record, text, _file, line) => {
        const item = itemFromLogLine(text)
        expect(record).toEqual(JSON.parse(text))
        auditor.add('active', item)
        seen.push([item.seq, line])
      }
      if (from === 'buffer') auditLog(bytes, 'raw_traces.jsonl', auditor, sink, window)
      else expect(auditLogFile(file, 'raw_traces.jsonl', auditor, sink, window)).toBe(bytes.length)
      return { entries: auditor.finish(), seen }
    }
    const whole = read(1 << 30)
    expect(whole.entries.map((entry) => entry.code)).toEqual([
      'corrupt-line',
      'seq-order',
      'corrupt-line',
      'torn-tail',
      'seq-gap',
      'seq-gap',
      'seq-gap',
    ])
    for (const window of [1, 10, 50, 120, 400, 1000]) {
      expect(read(window), `window ${window}`).toEqual(whole)
      expect(read(window, 'file'), `window ${window} of the file`).toEqual(whole)
    }
    expect(read(1 << 30, 'file')).toEqual(whole)
  })

  it('reports progress in bytes up to the total, and each item once per file it is in', async () => {
    const { store } = await threadOf(5)
    await store.archive('t', { seqs: [1, 2, 3] })
    const progress: [number, number][] = []
    const seqs: number[] = []
    await store.audit('t', {
      onProgress: (done, total) => progress.push([done, total]),
      onItem: (item) => seqs.push(item.seq),
    })
    expect(seqs.sort()).toEqual([1, 2, 3, 4, 5])
    const [done, total] = progress.at(-1)!
    expect(done).toBe(total)
    expect(total).toBeGreaterThan(0)
  })

  it("hands over each item's JSON as serialising the item read gives it: every type, wrapped lines, batches", async () => {
    const { store } = await threadOf(2)
    // An item with a key the line format uses is written in the wrapped form.
    const wrapped = {
      ...makeItems(1)[0]!,
      batch_end: 'mine',
      item: { nested: true },
    } as unknown as UnsequencedItem
    await store.append('t', [...makeEveryItemType(), wrapped], { expectedSeq: 2 })
    const { lastSeq } = await store.head('t')
    await store.archive('t', { seqs: [1, 3, 4] })
    const json: [number, string][] = []
    await store.audit('t', { onItemJson: (seq, _source, text) => json.push([seq, text]) })
    const stored = [...(await store.readArchive('t')), ...(await store.read('t'))]
    expect(json.sort((left, right) => left[0] - right[0])).toEqual(
      stored.sort((left, right) => left.seq - right.seq).map((item) => [item.seq, JSON.stringify(item)]),
    )
    expect(json).toHaveLength(lastSeq)
  })

  it('reports an archived line that does not parse, and reads the rest of its part', async () => {
    const { store, folder } = await threadOf(4)
    await store.archive('t', { seqs: [1, 2, 3] })
    const data = join(folder, 'archive', '000001.jsonl')
    const lines = (await readFile(data, 'utf8')).split('\n')
    // Same length, so the index still names the part's bytes; the line still starts with its seq.
    lines[1] = `${lines[1]!.slice(0, 12)}${'x'.repeat(lines[1]!.length - 12)}`
    await writeFile(data, lines.join('\n'))
    const report = await store.audit('t')
    expect(report.entries.map((entry) => [entry.code, entry.file])).toEqual([
      ['corrupt-line', 'archive/000001.jsonl'],
      ['seq-gap', undefined],
    ])
    expect(report.entries[0]!.message).toMatch(/\(seq 2\) is not a log line\.$/)
    expect(report.items).toBe(3)
  })

  it('reads on after an archived part that fails its check, non-ASCII lines included', async () => {
    const { store, folder } = await threadOf(0)
    const items = makeItems(9).map((item, index) => ({
      ...item,
      content: [{ type: 'text', text: `Grüße — ${index} 🌳` }],
    })) as UnsequencedItem[]
    const stored = await store.append('t', items, { expectedSeq: 0 })
    // Three parts side by side in one data file.
    for (const seqs of [
      [1, 2, 3],
      [4, 5, 6],
      [7, 8, 9],
    ])
      await store.archive('t', { seqs })
    const data = join(folder, 'archive', '000001.jsonl')
    const bytes = await readFile(data)
    // The middle part loses a line break (same length): it no longer holds the lines its index names.
    const second = bytes.indexOf('{"seq":5,')
    bytes[second - 1] = 0x20
    await writeFile(data, bytes)
    const json = new Map<number, string>()
    const report = await store.audit('t', { onItemJson: (seq, _source, text) => json.set(seq, text) })
    expect(report.entries.map((entry) => [entry.code, entry.file ?? entry.seq])).toEqual([
      ['corrupt-line', 'archive/000001.jsonl'],
      ['seq-gap', 4],
    ])
    expect([...json.keys()].sort()).toEqual([1, 2, 3, 7, 8, 9])
    for (const item of stored) if (json.has(item.seq)) expect(json.get(item.seq)).toBe(JSON.stringify(item))
  })
})
