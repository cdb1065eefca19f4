import { execFileSync } from 'node:child_process'
import { appendFile, mkdir, mkdtemp, open, rm, stat, truncate, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Item, StrataError, type UnsequencedItem } from '@strata-memory/core'
import { afterAll, describe, expect, it } from 'vitest'
import { fileStore } from './file-store'
import { prepareLogLine, sequenceLogLine } from './line-format'

/*
 * Compaction (an archive) and rewind on threads whose archive holds hundreds of megabytes of JSON: the
 * first layout rewrote the archive as one string and threw a raw `RangeError` past ~512 MiB. The 60 MB
 * variant always runs; the 600 MB one (about 40 s here) runs with STRATA_BIG_TESTS=1. Both need free
 * disk, checked with `df` first; without it they are skipped, saying so.
 */

const BIG = process.env.STRATA_BIG_TESTS === '1'
const root = await mkdtemp(join(tmpdir(), 'strata-big-archive-'))
afterAll(() => rm(root, { recursive: true, force: true }))

/** Free bytes of the file system holding `path`, from `df` (POSIX output, 1 KiB blocks). */
function freeBytes(path: string): number {
  try {
    const lines = execFileSync('df', ['-Pk', path], { encoding: 'utf8' }).trim().split('\n')
    return Number(lines.at(-1)!.split(/\s+/)[3]) * 1024
  } catch {
    return 0
  }
}

const PADDING = 'lorem ipsum dolor sit amet '.repeat(36)
const message = (index: number): UnsequencedItem =>
  ({
    id: `itm_${index}`,
    ts: 1_700_000_000_000 + index,
    level: 'global',
    turnId: `turn_${Math.floor(index / 4)}`,
    type: 'message',
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: [{ type: 'text', text: `${index} ${PADDING}` }],
  }) as UnsequencedItem

const BATCH = 4_000

/** Fills thread `t` until its archive holds `megabytes` MB, a batch at a time, as compaction would. */
async function growArchive(dir: string, megabytes: number): Promise<{ lastSeq: number; archived: number }> {
  const store = fileStore({ dir, fsync: false, timeoutMs: Number.POSITIVE_INFINITY })
  let lastSeq = 0
  let archived = 0
  let bytes = 0
  const data = join(dir, 'agents/t/archive')
  while (bytes < megabytes * 1e6) {
    const items = Array.from({ length: BATCH }, (_, index) => message(lastSeq + index))
    const stored = await store.append('t', items, { expectedSeq: lastSeq })
    lastSeq = stored.at(-1)!.seq
    archived += await store.archive('t', { seqs: stored.map((item) => item.seq) })
    bytes = (await stat(join(data, '000001.jsonl'))).size
  }
  // Written without fsync: flushed here, so the compaction below is not charged for it.
  execFileSync('sync')
  return { lastSeq, archived }
}

/** One compaction and one rewind on thread `t`, with fsync, checked item for item. */
async function compactAndRewind(dir: string, lastSeq: number, archived: number): Promise<void> {
  const store = fileStore({ dir, timeoutMs: 60_000 })
  const started = performance.now()
  const fresh = await store.append(
    't',
    Array.from({ length: 200 }, (_, index) => message(lastSeq + index)),
    { expectedSeq: lastSeq },
  )
  // Compaction: everything but the newest 10 items is archived.
  const compacted = fresh.slice(0, 190)
  expect(
    await store.archive('t', { seqs: compacted.map((item) => item.seq), expectedSeq: lastSeq + 200 }),
  ).toBe(190)
  const compactionMs = performance.now() - started
  // Rewind after the newest 5: the store's part of thread.rewind() (a state mark, then an archive).
  const rewound = fresh.slice(195)
  await store.setState('t', { rewound: [{ fromSeq: rewound[0]!.seq, toSeq: rewound.at(-1)!.seq }] })
  expect(
    await store.archive('t', { seqs: rewound.map((item) => item.seq), expectedSeq: lastSeq + 200 }),
  ).toBe(5)
  const cold = fileStore({ dir })
  expect(await cold.head('t')).toEqual({
    lastSeq: lastSeq + 200,
    activeCount: 5,
    archivedCount: archived + 195,
  })
  expect(await cold.read('t')).toStrictEqual(fresh.slice(190, 195))
  const last = await cold.readArchive('t', { fromSeq: lastSeq - 1 })
  expect(last.map((item) => item.seq)).toEqual([
    lastSeq - 1,
    lastSeq,
    ...[...compacted, ...rewound].map((item) => item.seq),
  ])
  expect(last.slice(2)).toStrictEqual([...compacted, ...rewound])
  const first = await cold.readArchive('t', { limit: 3 })
  expect(first.map((item: Item) => item.id)).toEqual(['itm_0', 'itm_1', 'itm_2'])
  console.info(
    `archive of ${archived} items: one compaction (append 200, archive 190) took ${compactionMs.toFixed(0)} ms`,
  )
}

for (const megabytes of [60, 600]) {
  const enabled = megabytes < 100 || BIG
  const room = freeBytes(root) > (megabytes < 100 ? 0.4e9 : 2e9)
  if (!enabled) console.info(`archive-big: the ${megabytes} MB variant runs with STRATA_BIG_TESTS=1`)
  else if (!room)
    console.info(`archive-big: skipped the ${megabytes} MB variant: less free disk than it needs`)
  describe.skipIf(!enabled || !room)(`a thread whose archive is ${megabytes} MB of JSON`, () => {
    it('compacts and rewinds: the archive is appended to, never rewritten', async () => {
      const dir = join(root, `new-${megabytes}`)
      const { lastSeq, archived } = await growArchive(dir, megabytes)
      await compactAndRewind(dir, lastSeq, archived)
      await rm(dir, { recursive: true, force: true })
    }, 600_000)
  })
}

/** A first-layout thread: its archive one file, written a chunk at a time. */
async function writeOldLayout(
  dir: string,
  megabytes: number,
): Promise<{ lastSeq: number; archived: number }> {
  const folder = join(dir, 'agents/t')
  await mkdir(folder, { recursive: true })
  const archive = join(folder, 'raw_traces_archive.jsonl')
  let seq = 0
  let bytes = 0
  while (bytes < megabytes * 1e6) {
    const lines: string[] = []
    for (let index = 0; index < BATCH; index++) {
      seq++
      lines.push(sequenceLogLine(prepareLogLine(message(seq - 1)), seq))
    }
    const chunk = `${lines.join('\n')}\n`
    await appendFile(archive, chunk)
    bytes += Buffer.byteLength(chunk)
  }
  await writeFile(join(folder, 'raw_traces.jsonl'), '')
  return { lastSeq: seq, archived: seq }
}

describe.skipIf(freeBytes(root) < 0.4e9)('a first-layout thread whose archive file is 60 MB', () => {
  it('compacts and rewinds: the old file is indexed once and never rewritten', async () => {
    const dir = join(root, 'old-60')
    const { lastSeq, archived } = await writeOldLayout(dir, 60)
    execFileSync('sync')
    const before = await stat(join(dir, 'agents/t/raw_traces_archive.jsonl'))
    await compactAndRewind(dir, lastSeq, archived)
    const after = await stat(join(dir, 'agents/t/raw_traces_archive.jsonl'))
    expect([after.ino, after.size, after.mtimeMs]).toEqual([before.ino, before.size, before.mtimeMs])
    await rm(dir, { recursive: true, force: true })
  }, 300_000)
})

describe('a size limit that remains', () => {
  it('is a typed STRATA_STORE_FAILED (reason too-large), never a raw RangeError', async () => {
    const dir = join(root, 'too-large')
    const store = fileStore({ dir })
    await store.append('t', [message(0)], { expectedSeq: 0 })
    // A line longer than the longest string this process can make (sparse: no disk used).
    const log = join(dir, 'agents/t/raw_traces.jsonl')
    const { size } = await stat(log)
    await truncate(log, size + 600 * 1024 * 1024)
    const handle = await open(log, 'a')
    await handle.write('\n')
    await handle.close()
    const error = await fileStore({ dir, timeoutMs: Number.POSITIVE_INFINITY })
      .read('t')
      .then(
        () => undefined,
        (caught: unknown) => caught,
      )
    expect(StrataError.isInstance(error, 'STRATA_STORE_FAILED'), String(error)).toBe(true)
    expect((error as StrataError).details).toMatchObject({ reason: 'too-large' })
    expect((await stat(log)).size).toBe(size + 600 * 1024 * 1024 + 1)
    await rm(dir, { recursive: true, force: true })
  }, 60_000)
})
