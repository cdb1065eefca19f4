import { spawn } from 'node:child_process'
import { mkdtempSync, openSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { fileStore } from '@strata-memory/store-file'
import { redisStore } from '@strata-memory/store-redis'
import { createClient, type RedisClientType } from 'redis'
import { writeBenchThread } from './cli-thread.ts'
import { type Benchmark, type BenchRow, measure, rowOf } from './harness.ts'
import { startRedis } from './stores-redis-append.ts'

const ITEMS = 100_000
const ARCHIVED = 20_000
const THREAD = 'bench-cli'
const PREFIX = 'bench-cli'
const BASELINE_NAME = 'node reading the same log and parsing every line (a process of its own, like strata)'
const STRATA_BIN = join(
  dirname(createRequire(import.meta.url).resolve('@strata-memory/cli/package.json')),
  'dist/bin.js',
)
const BASELINE_SCRIPT = fileURLToPath(new URL('./cli-read-baseline.mjs', import.meta.url))
const devNull = openSync('/dev/null', 'w')

/** Runs a node process to its end, its stdout to /dev/null; fails on a non-zero exit. */
function run(args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      stdio: ['ignore', devNull, 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    })
    let stderr = ''
    child.stderr?.on('data', (chunk) => {
      stderr += chunk
    })
    child.on('error', reject)
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`node ${args.join(' ')} exited ${code}: ${stderr}`)),
    )
  })
}

/** Few samples: each is a whole process reading 100 000 items. */
const SAMPLING = { samples: 7, minSamples: 5, minSampleMs: 1, warmupMs: 1, maxMs: 1 }

/**
 * `strata verify` and `strata export --archive` of a 100 000-item thread (20 000 of them archived), each
 * a process of its own, against a process that reads the same log and parses every line: on the file
 * store (its two JSONL files) and on Redis (LRANGE of the log in chunks). Target: at most 2× the bare
 * read.
 */
const benchmark: Benchmark = {
  name: 'cli',
  description: `strata verify and export of a ${ITEMS.toLocaleString('en-US')}-item thread against reading and parsing the same log (file and Redis)`,
  async run({ progress }) {
    const rows: BenchRow[] = []
    const dir = mkdtempSync(join(tmpdir(), 'strata-bench-cli-'))
    const server = await startRedis()
    const client: RedisClientType = createClient({ url: server.url, socket: { reconnectStrategy: false } })
    await client.connect()
    try {
      progress(`cli: writing a ${ITEMS}-item thread to a file store and to Redis`)
      await writeBenchThread(fileStore({ dir, fsync: false }), THREAD, { items: ITEMS, archived: ARCHIVED })
      await writeBenchThread(redisStore({ client, prefix: PREFIX }), THREAD, {
        items: ITEMS,
        archived: ARCHIVED,
      })
      const targets = [
        { store: 'file', flags: ['--store', dir], baseline: ['file', join(dir, 'agents', THREAD)] },
        {
          store: 'redis',
          flags: ['--store', server.url, '--prefix', PREFIX],
          baseline: ['redis', server.url, PREFIX, THREAD],
        },
      ]
      for (const target of targets) {
        for (const command of [
          ['verify', THREAD],
          ['export', THREAD, '--archive'],
        ]) {
          progress(`cli: strata ${command.join(' ')} on ${target.store}`)
          const measurement = await measure({
            strata: () => run([STRATA_BIN, ...target.flags, ...command]),
            baseline: () => run([BASELINE_SCRIPT, ...target.baseline]),
            ...SAMPLING,
          })
          rows.push(
            rowOf(`${command[0]}/${target.store}`, { items: ITEMS, archived: ARCHIVED }, measurement, {
              baselineName: BASELINE_NAME,
            }),
          )
        }
      }
    } finally {
      await client.close()
      await server.stop()
      rmSync(dir, { recursive: true, force: true })
    }
    return {
      rows,
      notes: [
        'Each figure is the median wall time of a whole process (node start-up included on both sides).',
        'export writes JSONL to /dev/null: read, parse, rebuild each item as the store reads it, serialise and write.',
      ],
    }
  },
}

export default benchmark
