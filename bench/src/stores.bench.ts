import type { Benchmark, BenchRow } from './harness.ts'
import fileAppend from './stores-file-append.ts'
import fileArchive from './stores-file-archive.ts'
import redisAppend from './stores-redis-append.ts'

/** Append throughput of both stores in one run: rows `append/file` and `append/redis`. */
const benchmark: Benchmark = {
  name: 'stores',
  description:
    'store append throughput (1 KB items, batches of 1 and 100) against raw fs appends taking the same lock and the raw redis client (one seq-checked script for a batch)',
  async run(context) {
    const rows: BenchRow[] = []
    const notes: string[] = []
    for (const part of [fileAppend, redisAppend, fileArchive]) {
      const outcome = await part.run(context)
      rows.push(...outcome.rows)
      notes.push(...(outcome.notes ?? []))
    }
    return { rows, notes }
  },
}

export default benchmark
