import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { fileStore } from '@strata-memory/store-file'
import { redisStore } from '@strata-memory/store-redis'
import { createClient, type RedisClientType } from 'redis'
import { writeBenchThread } from './cli-thread.ts'
import { type Benchmark, type BenchRow, median, rowOf } from './harness.ts'
import { runNode } from './node-process.ts'
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
const CPU_PROBE = fileURLToPath(new URL('./cli-cpu-probe.mjs', import.meta.url))

/**
 * Runs a node process to its end (see `runNode`). Resolves with the process's own CPU time in ms (user
 * + system, from the probe it is started with).
 */
async function run(args: readonly string[]): Promise<number> {
  const { stderr } = await runNode(['--import', CPU_PROBE, ...args], { ...process.env, NO_COLOR: '1' })
  return Number(/__cpu_us (\d+)\s*$/.exec(stderr)?.[1] ?? Number.NaN) / 1000
}

/** Few samples: each is a whole process reading 100 000 items. */
const SAMPLES = 9

interface Times {
  cpu: number[]
  wall: number[]
}

/**
 * Runs both processes `SAMPLES` times, alternately (strata first on even rounds), after one warm-up
 * round each (the page cache), and keeps each run's wall time and CPU time.
 */
async function sample(
  strata: () => Promise<number>,
  baseline: () => Promise<number>,
): Promise<{ strata: Times; baseline: Times }> {
  const times = { strata: { cpu: [], wall: [] } as Times, baseline: { cpu: [], wall: [] } as Times }
  await strata()
  await baseline()
  for (let round = 0; round < SAMPLES; round++) {
    const order = round % 2 === 0 ? (['strata', 'baseline'] as const) : (['baseline', 'strata'] as const)
    for (const side of order) {
      const started = performance.now()
      const cpu = await (side === 'strata' ? strata() : baseline())
      times[side].wall.push(performance.now() - started)
      times[side].cpu.push(cpu)
    }
  }
  return times
}

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
          const strata = await sample(
            () => run([STRATA_BIN, ...target.flags, ...command]),
            () => run([BASELINE_SCRIPT, ...target.baseline]),
          )
          for (const time of ['cpu', 'wall'] as const) {
            rows.push(
              rowOf(
                `${command[0]}/${target.store}`,
                { items: ITEMS, archived: ARCHIVED, time },
                { strata: median(strata.strata[time]), baseline: median(strata.baseline[time]) },
                { baselineName: BASELINE_NAME },
              ),
            )
          }
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
        'Each figure is the median of a whole process (node start-up included on both sides): time=cpu its own CPU time',
        '(user + system), time=wall its wall time, which on a busy machine measures the machine too. Redis work is',
        "the server's, in wall time only.",
        'export writes JSONL to /dev/null: read, parse, rebuild each item as the store reads it, serialise and write.',
      ],
    }
  },
}

export default benchmark
