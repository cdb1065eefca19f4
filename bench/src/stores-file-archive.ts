import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { StrataStore, UnsequencedItem } from '@strata-memory/core'
import { fileStore } from '@strata-memory/store-file'
import { type Benchmark, type BenchRow, measure, rowOf, significant } from './harness.ts'

/**
 * The file store's archive (issue 32): a compaction's store cost (append 100 items, archive 90 of
 * them, fsync on) on threads whose archive holds 10k, 100k and 300k items (1M with
 * STRATA_BENCH_ARCHIVE_1M=1), each against the same step on the 10k thread, sampled alternately in
 * the same run: the target is ≤ 1.25× at every size. Then a page of `readArchive` and a cold `head`
 * the same way, and (issue 30) a cold `read` of a 1k/10k/100k-item active log against a bare
 * `fs.readFile` + `JSON.parse` of each line of the same file: the target is ≤ 1.3×.
 */

const PADDING = 'The quick brown fox jumps over the lazy dog. '.repeat(18)
const message = (index: number): UnsequencedItem => ({
  id: `itm_${index}`,
  ts: 1_700_000_000_000 + index,
  level: 'global',
  turnId: `turn_${Math.floor(index / 4)}`,
  type: 'message',
  role: index % 2 === 0 ? 'user' : 'assistant',
  content: [{ type: 'text', text: `${index} ${PADDING}` }],
})

/** Items per archive call while a history is built: what one compaction of a long thread moves. */
const ARCHIVE_CALL = 500

/** Builds thread `threadId` with `archived` items archived (fsync off, then one `sync`). */
async function buildArchive(dir: string, threadId: string, archived: number): Promise<number> {
  const store = fileStore({ dir, fsync: false, mirrors: false, timeoutMs: Number.POSITIVE_INFINITY })
  let lastSeq = 0
  while (lastSeq < archived) {
    const count = Math.min(ARCHIVE_CALL * 4, archived - lastSeq)
    const stored = await store.append(
      threadId,
      Array.from({ length: count }, (_, index) => message(lastSeq + index)),
      { expectedSeq: lastSeq },
    )
    lastSeq = stored.at(-1)!.seq
    for (let start = 0; start < stored.length; start += ARCHIVE_CALL) {
      await store.archive(threadId, {
        seqs: stored.slice(start, start + ARCHIVE_CALL).map((item) => item.seq),
      })
    }
  }
  execFileSync('sync')
  return lastSeq
}

/** One compaction's store work: append 100 items, archive 90 of them (the rest stay active). */
function compactionStep(store: StrataStore, threadId: string, start: number) {
  let lastSeq = start
  return async () => {
    const stored = await store.append(
      threadId,
      Array.from({ length: 100 }, (_, index) => message(lastSeq + index)),
      { expectedSeq: lastSeq },
    )
    lastSeq = stored.at(-1)!.seq
    const active = await store.read(threadId)
    await store.archive(threadId, {
      seqs: active.slice(0, active.length - 10).map((item) => item.seq),
      expectedSeq: lastSeq,
    })
  }
}

async function archiveRows(dir: string, progress: (line: string) => void, rows: BenchRow[], notes: string[]) {
  const sizes = [
    10_000,
    100_000,
    300_000,
    ...(process.env.STRATA_BENCH_ARCHIVE_1M === '1' ? [1_000_000] : []),
  ]
  const lastSeqs = new Map<number, number>()
  for (const size of sizes) {
    const started = performance.now()
    lastSeqs.set(size, await buildArchive(dir, `archived-${size}`, size))
    progress(
      `stores-file-archive: built an archive of ${size} items in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    )
  }
  const store = fileStore({ dir, mirrors: false })
  const steps = new Map(
    sizes.map((size) => [size, compactionStep(store, `archived-${size}`, lastSeqs.get(size)!)]),
  )
  for (const size of sizes) {
    const time = await measure({
      strata: steps.get(size)!,
      baseline: steps.get(sizes[0]!)!,
      samples: 31,
      minSamples: 15,
      minSampleMs: 20,
      warmupMs: 300,
      maxMs: 12_000,
    })
    rows.push(
      rowOf('compaction/file', { archived: size, target: '≤ 1.25×' }, time, {
        baselineName: `the same step on a thread with ${sizes[0]} archived items`,
      }),
    )
    notes.push(
      `compaction step (append 100, archive 90, fsync) with ${size} archived items: ${significant(time.strata)} ms, ${significant(time.baseline!)} ms at ${sizes[0]} (${time.samples} samples).`,
    )
    progress(`stores-file-archive: compaction at ${size} measured`)
  }
  for (const size of sizes) {
    let page = 0
    const pageAt = (threadSize: number) => () => {
      page = (page * 7919 + 1) % Math.max(1, threadSize - 100)
      return store.readArchive(`archived-${threadSize}`, { fromSeq: page + 1, limit: 50 })
    }
    const time = await measure({ strata: pageAt(size), baseline: pageAt(sizes[0]!), maxMs: 3_000 })
    rows.push(
      rowOf('read-archive-page/file', { archived: size, limit: 50 }, time, {
        baselineName: `a page of the thread with ${sizes[0]} archived items`,
      }),
    )
    const coldHead = (threadSize: number) => () => fileStore({ dir }).head(`archived-${threadSize}`)
    const open = await measure({ strata: coldHead(size), baseline: coldHead(sizes[0]!), maxMs: 3_000 })
    rows.push(
      rowOf('cold-head/file', { archived: size }, open, {
        baselineName: `a cold head() of the thread with ${sizes[0]} archived items`,
      }),
    )
    progress(`stores-file-archive: page and head at ${size} measured`)
  }
}

/** Splits a file's text into lines and parses each: the least a reader of JSONL can do. */
async function bareRead(path: string): Promise<unknown[]> {
  const text = await readFile(path, 'utf8')
  const values: unknown[] = []
  let start = 0
  for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
    values.push(JSON.parse(text.slice(start, end)))
    start = end + 1
  }
  return values
}

/** Median CPU time (user + system, ms) of each of two operations, called alternately. */
async function cpuTimes(strata: () => Promise<unknown>, baseline: () => Promise<unknown>, rounds: number) {
  const times: [number[], number[]] = [[], []]
  const cpu = async (operation: () => Promise<unknown>) => {
    const start = process.cpuUsage()
    await operation()
    const { user, system } = process.cpuUsage(start)
    return (user + system) / 1000
  }
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0]
    for (const index of order) times[index]!.push(await cpu(index === 0 ? strata : baseline))
  }
  const median = (values: number[]) => values.sort((left, right) => left - right)[values.length >> 1]!
  return { strata: median(times[0]), baseline: median(times[1]) }
}

async function coldReadRows(
  dir: string,
  progress: (line: string) => void,
  rows: BenchRow[],
  notes: string[],
) {
  for (const count of [1_000, 10_000, 100_000]) {
    const threadId = `active-${count}`
    const writer = fileStore({ dir, fsync: false, mirrors: false, timeoutMs: Number.POSITIVE_INFINITY })
    for (let seq = 0; seq < count; seq += 5_000) {
      const items = Array.from({ length: Math.min(5_000, count - seq) }, (_, index) => message(seq + index))
      await writer.append(threadId, items, { expectedSeq: seq })
    }
    const path = join(dir, 'agents', threadId, 'raw_traces.jsonl')
    const time = await measure({
      strata: () => fileStore({ dir }).read(threadId),
      baseline: () => bareRead(path),
      samples: 15,
      minSamples: 5,
      warmupMs: 300,
      maxMs: 10_000,
    })
    rows.push(
      rowOf('cold-read/file', { items: count, target: '≤ 1.3×' }, time, {
        baselineName: 'fs.readFile + JSON.parse of each line of the same file',
      }),
    )
    // The machine's other work inflates wall time unevenly: CPU time of the same calls, alternated.
    const cpu = await cpuTimes(
      () => fileStore({ dir }).read(threadId),
      () => bareRead(path),
      count >= 100_000 ? 7 : 21,
    )
    rows.push(
      rowOf('cold-read-cpu/file', { items: count, target: '≤ 1.3×' }, cpu, {
        baselineName: 'CPU time of fs.readFile + JSON.parse of each line of the same file',
      }),
    )
    notes.push(
      `cold read() of ${count} active items: ${significant(time.strata)} ms (CPU ${significant(cpu.strata)} ms), bare read + parse ${significant(time.baseline!)} ms (CPU ${significant(cpu.baseline)} ms).`,
    )
    progress(`stores-file-archive: cold read of ${count} measured`)
  }
}

const benchmark: Benchmark = {
  name: 'stores-file-archive',
  description:
    "fileStore archive: a compaction's store cost, a readArchive page and a cold head() at 10k–300k archived items against the 10k thread; a cold read() against bare read + parse",
  async run({ progress }) {
    const rows: BenchRow[] = []
    const notes: string[] = []
    const dir = mkdtempSync(join(tmpdir(), 'strata-bench-archive-'))
    try {
      await coldReadRows(dir, progress, rows, notes)
      await archiveRows(dir, progress, rows, notes)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
    return { rows, notes }
  },
}

export default benchmark
