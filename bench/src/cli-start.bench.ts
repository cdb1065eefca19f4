import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { type Benchmark, type BenchRow, median, rowOf, withTarget } from './harness.ts'
import { runNode } from './node-process.ts'

const STRATA_BIN = join(
  dirname(createRequire(import.meta.url).resolve('@strata-memory/cli/package.json')),
  'dist/bin.js',
)
const SAMPLES = 21
/** Issue 30: `strata --version` wall time against `node -e 0`. */
const TARGET = 1.5

const wall = async (args: readonly string[]) => (await runNode(args)).wallMs

/**
 * How long the CLI takes to start: `strata --version` and `strata --help` (each loads only what it
 * runs), a whole process each, against `node -e 0`, alternately, after one warm-up round.
 */
const benchmark: Benchmark = {
  name: 'cli-start',
  description: 'strata --version and --help, a whole process each, against node -e 0 (wall time)',
  async run({ progress }) {
    const rows: BenchRow[] = []
    for (const flag of ['--version', '--help']) {
      const strata = () => wall([STRATA_BIN, flag])
      const bare = () => wall(['-e', '0'])
      await strata()
      await bare()
      const times = { strata: [] as number[], bare: [] as number[] }
      for (let round = 0; round < SAMPLES; round++) {
        if (round % 2 === 0) {
          times.strata.push(await strata())
          times.bare.push(await bare())
        } else {
          times.bare.push(await bare())
          times.strata.push(await strata())
        }
      }
      const row = rowOf(
        `start/${flag.slice(2)}`,
        { samples: SAMPLES },
        { strata: median(times.strata), baseline: median(times.bare) },
        { baselineName: 'node -e 0' },
      )
      rows.push(
        flag === '--version'
          ? withTarget(row, `≤ ${TARGET}× node -e 0`, (row.ratio ?? Number.POSITIVE_INFINITY) <= TARGET)
          : row,
      )
      progress(`cli-start: strata ${flag} measured`)
    }
    return {
      rows,
      notes: [
        'Medians of whole processes, alternating with node -e 0 in the same run (node start-up on both sides).',
      ],
    }
  },
}

export default benchmark
