import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import {
  type Benchmark,
  type BenchResults,
  formatTable,
  gitCommit,
  resultsOf,
  targetSummary,
  writeResults,
} from './harness.ts'

/**
 * `pnpm bench [NAME…]`: runs every `src/<name>.bench.ts` (or only the named ones) and writes
 * `bench/results/<name>.json`. Tables and notes go to stdout, progress to stderr.
 */
const SOURCE = fileURLToPath(new URL('.', import.meta.url))
const RESULTS = fileURLToPath(new URL('../results', import.meta.url))
const SUFFIX = '.bench.ts'

const available = readdirSync(SOURCE)
  .filter((file) => file.endsWith(SUFFIX))
  .map((file) => file.slice(0, -SUFFIX.length))
  .sort()

// pnpm may pass a literal '--' through; it names no benchmark, nor does an option such as `--1m`, which
// the benchmarks read from process.argv themselves.
const requested = process.argv.slice(2).filter((arg) => !arg.startsWith('--'))
const unknown = requested.filter((name) => !available.includes(name))
if (unknown.length > 0) {
  console.error(`Unknown benchmark: ${unknown.join(', ')}. Available: ${available.join(', ')}.`)
  process.exit(2)
}

const commit = gitCommit(SOURCE)
const started = performance.now()
const results: BenchResults[] = []
for (const name of requested.length > 0 ? requested : available) {
  const module = (await import(pathToFileURL(join(SOURCE, `${name}${SUFFIX}`)).href)) as {
    default: Benchmark
  }
  const benchmark = module.default
  if (benchmark?.name !== name)
    throw new Error(`${name}${SUFFIX} must export default a benchmark named '${name}'.`)
  const benchmarkStarted = performance.now()
  const { rows, notes = [] } = await benchmark.run({ progress: (line) => console.error(line) })
  const result = resultsOf(name, rows, { commit })
  results.push(result)
  const path = writeResults(result, RESULTS)
  const seconds = ((performance.now() - benchmarkStarted) / 1000).toFixed(1)
  console.log(`\n${name}: ${benchmark.description} (${seconds} s)\n`)
  console.log(formatTable(rows))
  if (notes.length > 0) console.log(`\n${notes.join('\n')}`)
  console.log(`\nWrote ${path}`)
}
const summary = targetSummary(results)
if (summary.length > 0) console.log(`\n${summary.join('\n')}`)
console.log(`\nDone in ${((performance.now() - started) / 1000).toFixed(1)} s.`)
