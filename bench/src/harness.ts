import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** Units of BENCH.md: lower is better for all but `ops/s` and `share` (a fraction, 0–1). */
export type BenchUnit = 'ms' | 'ops/s' | 'tokens' | 'bytes' | 'calls' | 'share'

/** A value of a row's `params`. */
export type ParamValue = string | number | boolean | null

/** One row of a results file (BENCH.md). */
export interface BenchRow {
  case: string
  params: Record<string, ParamValue>
  unit: BenchUnit
  strata: number
  baseline: number | null
  baselineName: string | null
  ratio: number | null
}

/** A results file, `bench/results/<benchmark>.json` (BENCH.md). */
export interface BenchResults {
  benchmark: string
  node: string
  commit: string | null
  rows: BenchRow[]
}

/** What a benchmark module exports as its default: `pnpm bench NAME` runs the one named NAME. */
export interface Benchmark {
  /** The file name without `.bench.ts`, and the `benchmark` field of its results. */
  name: string
  description: string
  run(context: BenchContext): Promise<BenchOutcome>
}

/** What the runner gives a benchmark. */
export interface BenchContext {
  /** Progress lines, to stderr so that stdout holds only the tables. */
  progress(line: string): void
}

/** What a benchmark returns: its rows, and lines to print after its table. */
export interface BenchOutcome {
  rows: BenchRow[]
  notes?: string[]
}

/** The median of some numbers; the mean of the two middle ones for an even count. */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('median() of no values')
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/** `strata / baseline`, or null when there is no baseline to compare with (none, or zero). */
export function ratio(strata: number, baseline: number | null): number | null {
  if (baseline === null || baseline === 0 || !Number.isFinite(baseline)) return null
  return strata / baseline
}

/** Rounds to a few significant digits, as the results files show them (0.0062, 3.4, 1230). */
export function significant(value: number, digits = 3): number {
  if (value === 0 || !Number.isFinite(value)) return value
  return Number(value.toPrecision(digits))
}

/** Options of {@link measure}. */
export interface MeasureOptions {
  /** The Strata operation; may return a promise, which is awaited. */
  strata: () => unknown
  /** The baseline operation, measured alternately with `strata` in the same process. */
  baseline?: () => unknown
  /**
   * Samples taken of each operation.
   * @default 21
   */
  samples?: number
  /**
   * Samples taken of each even past `maxMs`.
   * @default 5
   */
  minSamples?: number
  /**
   * A sample batches calls until it lasts at least this long, so that sub-millisecond calls are timed
   * well above the clock's resolution; the sample's value is its time divided by the batch size.
   * @default 5
   */
  minSampleMs?: number
  /**
   * Time each operation runs before sampling starts, so the JIT and caches settle.
   * @default 150
   */
  warmupMs?: number
  /**
   * Stops sampling (once `minSamples` are in) after this long, so that slow cases stay affordable.
   * @default 2500
   */
  maxMs?: number
}

/** Median time of one call, in ms. */
export interface Measurement {
  strata: number
  baseline: number | null
  ratio: number | null
  samples: number
  /** Calls per sample. */
  batch: { strata: number; baseline: number | null }
}

/** Each call's result is stored here (never read), so that no call can be optimised away. */
let _sink: unknown

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof (value as { then?: unknown } | null)?.then === 'function'

/** Times one operation; sync operations are called in a plain loop, without an await per call. */
interface Timer {
  /** Runs `calls` calls and returns the elapsed time in ms. */
  time(calls: number): Promise<number>
}

async function timerFor(operation: () => unknown): Promise<Timer> {
  const first = operation()
  if (isThenable(first)) {
    _sink = await first
    return {
      async time(calls) {
        const start = performance.now()
        for (let call = 0; call < calls; call++) _sink = await operation()
        return performance.now() - start
      },
    }
  }
  _sink = first
  return {
    async time(calls) {
      const start = performance.now()
      for (let call = 0; call < calls; call++) _sink = operation()
      return performance.now() - start
    },
  }
}

/** Warms an operation up for `warmupMs`, then finds how many calls make a sample of `minSampleMs`. */
async function calibrate(timer: Timer, warmupMs: number, minSampleMs: number): Promise<number> {
  const warmupEnd = performance.now() + warmupMs
  let batch = 1
  for (;;) {
    const elapsed = await timer.time(batch)
    if (elapsed >= minSampleMs && performance.now() >= warmupEnd) return batch
    if (elapsed < minSampleMs) batch = Math.min(batch * 2, 1 << 24)
  }
}

/**
 * Measures the median time of one call of `strata` and of `baseline`: warm-up, batch calibration, then
 * samples taken alternately (strata first on even rounds, baseline first on odd ones) so that drift and
 * GC hit both the same way.
 *
 * @example
 * const { strata, baseline, ratio } = await measure({ strata: () => thread.view('task'), baseline: () => scan(items) })
 */
export async function measure(options: MeasureOptions): Promise<Measurement> {
  const { samples = 21, minSamples = 5, minSampleMs = 5, warmupMs = 150, maxMs = 2500 } = options
  const subjects = [options.strata, ...(options.baseline ? [options.baseline] : [])]
  const timers: Timer[] = []
  const batches: number[] = []
  for (const operation of subjects) {
    const timer = await timerFor(operation)
    timers.push(timer)
    batches.push(await calibrate(timer, warmupMs, minSampleMs))
  }
  const times: number[][] = subjects.map(() => [])
  const deadline = performance.now() + maxMs
  for (let round = 0; round < samples; round++) {
    if (round >= minSamples && performance.now() > deadline) break
    const order = round % 2 === 0 ? timers.keys() : [...timers.keys()].reverse()
    for (const index of order)
      times[index]!.push((await timers[index]!.time(batches[index]!)) / batches[index]!)
  }
  const strata = median(times[0]!)
  const baseline = times[1] ? median(times[1]) : null
  return {
    strata,
    baseline,
    ratio: ratio(strata, baseline),
    samples: times[0]!.length,
    batch: { strata: batches[0]!, baseline: batches[1] ?? null },
  }
}

/** A results row from a measurement, rounded to three significant digits. */
export function rowOf(
  name: string,
  params: Record<string, ParamValue>,
  measurement: Pick<Measurement, 'strata' | 'baseline'>,
  { unit = 'ms', baselineName = null }: { unit?: BenchUnit; baselineName?: string | null } = {},
): BenchRow {
  const { strata, baseline } = measurement
  const rate = ratio(strata, baseline)
  return {
    case: name,
    params,
    unit,
    strata: significant(strata),
    baseline: baseline === null ? null : significant(baseline),
    baselineName: baseline === null ? null : baselineName,
    ratio: rate === null ? null : significant(rate),
  }
}

/** Whether a row is within the target an issue sets for it: `n/a` where the target speaks of other sizes. */
export type TargetVerdict = 'yes' | 'NO' | 'n/a' | 'failed'

/**
 * The row with the target an issue sets for it: `params.target` (its text, e.g. `≤ 1.5× pruneMessages`)
 * and `params.within`, which `pnpm bench` gathers into its closing summary.
 */
export function withTarget(row: BenchRow, target: string, within: boolean | TargetVerdict): BenchRow {
  const verdict = typeof within === 'string' ? within : within ? 'yes' : 'NO'
  return { ...row, params: { ...row.params, target, within: verdict } }
}

/** The lines of `pnpm bench`'s closing summary: each row that has a target, within it or not. */
export function targetSummary(results: readonly BenchResults[]): string[] {
  const lines: string[] = []
  const counts = { yes: 0, NO: 0, other: 0 }
  for (const { benchmark, rows } of results) {
    for (const row of rows) {
      const { target, within, ...params } = row.params
      if (typeof target !== 'string' || typeof within !== 'string') continue
      if (within === 'yes') counts.yes++
      else if (within === 'NO') counts.NO++
      else counts.other++
      const verdict = within === 'yes' ? 'within ' : within === 'NO' ? 'OUTSIDE' : within.padEnd(7)
      const figure = row.ratio === null ? `${row.strata} ${row.unit}` : `${row.ratio}×`
      lines.push(`${verdict}  ${benchmark} ${row.case} ${formatParams(params)}: ${figure} (target ${target})`)
    }
  }
  if (lines.length === 0) return []
  return [
    `Targets: ${counts.yes} within, ${counts.NO} outside${counts.other > 0 ? `, ${counts.other} not measured or not applicable` : ''}`,
    ...lines,
  ]
}

/** The commit being measured (`git rev-parse HEAD`), or null outside a repository or before a commit. */
export function gitCommit(cwd: string = process.cwd()): string | null {
  try {
    const sha = execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    return /^[0-9a-f]{40}$/.test(sha.trim()) ? sha.trim() : null
  } catch {
    return null
  }
}

/** A results file's content. */
export function resultsOf(
  benchmark: string,
  rows: BenchRow[],
  { commit = gitCommit(), node = process.version }: { commit?: string | null; node?: string } = {},
): BenchResults {
  return { benchmark, node, commit, rows }
}

/** Writes `<directory>/<benchmark>.json` and returns its path. */
export function writeResults(results: BenchResults, directory: string): string {
  mkdirSync(directory, { recursive: true })
  const path = join(directory, `${results.benchmark}.json`)
  writeFileSync(path, `${JSON.stringify(results, null, 2)}\n`)
  return path
}

const formatNumber = (value: number | null) => (value === null ? '—' : String(value))
const formatParams = (params: BenchRow['params']) =>
  Object.entries(params)
    .map(([key, value]) => `${key}=${typeof value === 'number' ? value.toLocaleString('en-US') : value}`)
    .join(' ')

/** The rows as a plain text table: case and params left-aligned, figures right-aligned. */
export function formatTable(rows: readonly BenchRow[]): string {
  const header = ['case', 'params', 'unit', 'strata', 'baseline', 'ratio']
  const cells = rows.map((row) => [
    row.case,
    formatParams(row.params),
    row.unit,
    formatNumber(row.strata),
    formatNumber(row.baseline),
    formatNumber(row.ratio),
  ])
  const widths = header.map((title, column) =>
    Math.max(title.length, ...cells.map((line) => line[column]!.length)),
  )
  const line = (values: readonly string[]) =>
    values
      .map((value, column) => (column < 3 ? value.padEnd(widths[column]!) : value.padStart(widths[column]!)))
      .join('  ')
  return [line(header), widths.map((width) => '─'.repeat(width)).join('  '), ...cells.map(line)].join('\n')
}
