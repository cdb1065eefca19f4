import { mkdtempSync, rmSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { UnsequencedItem } from '@strata-memory/core'
import { fileStore } from '@strata-memory/store-file'
import { type Benchmark, type BenchRow, measure, rowOf, significant } from './harness.ts'

const BATCHES = [1, 100]
const BASELINE_NAME = 'fs open/append/fsync/close of the same JSON lines'

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
 * Append throughput of `fileStore` (items of 1 KB, batches of 1 and 100) against raw `fs` appends of
 * the same JSON lines with the same durability: one open, one write, one fsync and one close per
 * batch. The store also takes its cross-process lock, checks the seq and keeps its cache per batch.
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

        const rawPath = join(dir, `raw-${batch}.jsonl`)
        let rawSeq = 0
        const baseline = async () => {
          const lines = nextBatch().map((item) => {
            rawSeq += 1
            return JSON.stringify({ ...item, seq: rawSeq })
          })
          const handle = await open(rawPath, 'a')
          try {
            await handle.write(`${lines.join('\n')}\n`)
            await handle.sync()
          } finally {
            await handle.close()
          }
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
        rows.push(
          rowOf(
            'append/file',
            { batch, store: 'file' },
            {
              strata: perSecond(time.strata),
              baseline: time.baseline === null ? null : perSecond(time.baseline),
            },
            { unit: 'ops/s', baselineName: BASELINE_NAME },
          ),
        )
        notes.push(
          `batch ${batch}: ${significant(time.strata)} ms per append for the store, ` +
            `${significant(time.baseline ?? Number.NaN)} ms for raw fs (${time.samples} samples).`,
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
