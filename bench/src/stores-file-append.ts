import { randomUUID } from 'node:crypto'
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, unlinkSync, writeSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import type { UnsequencedItem } from '@strata-memory/core'
import { fileStore } from '@strata-memory/store-file'
import { type Benchmark, type BenchRow, measure, significant } from './harness.ts'
import { targetRow } from './scale-targets.ts'

const BATCHES = [1, 100]
const BASELINE_NAME =
  'fs: O_EXCL lock file with its holder, open/append/fsync/close of the same JSON lines, lock unlinked'
/** Issue 30: the store's items per second at least this share of the raw baseline's. */
const TARGET = 0.85

/** A user message whose stored line is about 1 KB. */
function makeItem(id: string): UnsequencedItem {
  return {
    id,
    ts: Date.now(),
    level: 'global',
    turnId: 'turn_0001',
    type: 'message',
    role: 'user',
    content: [{ type: 'text', text: 'The quick brown fox jumps over the lazy dog. '.repeat(20) }],
  }
}

/**
 * The least a writer of a folder that other processes share must do per append, as the store does it:
 * take the cross-process lock (a `.lock` file created with `O_EXCL`, holding the holder's pid, host,
 * time and a token, so that a dead holder's lock can be told and broken), append the lines in one
 * write, fsync, and remove the lock. The same file-system work as the store's lock, without its
 * checks (the lease, the cache, the seq, a lock broken meanwhile).
 */
function lockedRawAppend(directory: string, path: string): (data: string) => Promise<void> {
  const lockPath = join(directory, '.lock')
  const host = hostname()
  return async (data) => {
    const descriptor = openSync(lockPath, 'wx')
    try {
      writeSync(
        descriptor,
        `${JSON.stringify({ pid: process.pid, hostname: host, ts: Date.now(), token: randomUUID() })}\n`,
      )
    } finally {
      closeSync(descriptor)
    }
    try {
      const handle = await open(path, 'a')
      try {
        await handle.write(data)
        await handle.sync()
      } finally {
        await handle.close()
      }
    } finally {
      unlinkSync(lockPath)
    }
  }
}

/**
 * Append throughput of `fileStore` (items of 1 KB, batches of 1 and 100) against raw `fs` appends of
 * the same JSON lines with the same durability and the same cross-process lock (see
 * `lockedRawAppend`). The store also checks the lease and the seq and keeps its cache per batch.
 * Figures are items per second.
 */
const benchmark: Benchmark = {
  name: 'stores-file-append',
  description: 'fileStore append throughput (1 KB items, batches of 1 and 100) against raw fs appends',
  async run({ progress }) {
    const rows: BenchRow[] = []
    const notes: string[] = []
    const dir = mkdtempSync(join(tmpdir(), 'strata-bench-file-'))
    try {
      for (const batch of BATCHES) {
        const store = fileStore({ dir })
        const threadId = `bench-append-${batch}`
        let lastSeq = 0
        let counter = 0
        const nextBatch = () =>
          Array.from({ length: batch }, () => {
            counter += 1
            return makeItem(`item-${counter}`)
          })
        const strata = async () => {
          const stored = await store.append(threadId, nextBatch(), { expectedSeq: lastSeq })
          lastSeq = stored.at(-1)!.seq
        }

        // A folder of its own, as a thread's: the lock file is made and removed beside the log.
        const rawDirectory = join(dir, `raw-${batch}`)
        mkdirSync(rawDirectory)
        const rawAppend = lockedRawAppend(rawDirectory, join(rawDirectory, 'raw_traces.jsonl'))
        let rawSeq = 0
        const baseline = async () => {
          const lines = nextBatch().map((item) => {
            rawSeq += 1
            return JSON.stringify({ ...item, seq: rawSeq })
          })
          await rawAppend(`${lines.join('\n')}\n`)
        }

        const time = await measure({
          strata,
          baseline,
          // fsync times drift with the disk's other work: many alternating samples after a warm-up.
          samples: 31,
          minSamples: 11,
          minSampleMs: 20,
          warmupMs: 300,
          maxMs: 5_000,
        })
        const perSecond = (ms: number) => (batch * 1000) / ms
        const baselineTime = time.baseline!
        rows.push(
          targetRow(
            'append/file',
            { batch, store: 'file' },
            { strata: perSecond(time.strata), baseline: perSecond(baselineTime) },
            {
              unit: 'ops/s',
              baselineName: BASELINE_NAME,
              target: `≥ ${TARGET}× the locked raw appends`,
              within: baselineTime / time.strata >= TARGET,
            },
          ),
        )
        notes.push(
          `batch ${batch}: ${significant(time.strata)} ms per append for the store, ` +
            `${significant(baselineTime)} ms for raw fs with the lock (${time.samples} samples).`,
        )
        progress(`stores-file: batch ${batch} measured`)
        await store.close?.()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
    return { rows, notes }
  },
}

export default benchmark
