import { patternSummarizer } from '@strata-memory/core'
import { type Benchmark, type BenchRow, rowOf } from './harness.ts'
import { summarizerItems } from './summarizer-items.ts'

/** Sizes timed; the exponent is fitted over them. `SUMMARIZER_SCALE_SIZES=10000,100000` to change. */
const SIZES = (process.env.SUMMARIZER_SCALE_SIZES ?? '10000,100000,300000').split(',').map(Number)
const RUNS = 3

/** This process's CPU time of `run`, in ms: steadier than the wall clock on a shared machine. */
async function cpuMs(run: () => unknown): Promise<number> {
  const before = process.cpuUsage()
  await run()
  const used = process.cpuUsage(before)
  return (used.user + used.system) / 1_000
}

/** Least-squares slope of log(time) over log(size): the growth exponent (1: linear). */
function fittedExponent(points: readonly { size: number; ms: number }[]): number {
  const xs = points.map((point) => Math.log(point.size))
  const ys = points.map((point) => Math.log(point.ms))
  const meanX = xs.reduce((sum, x) => sum + x, 0) / xs.length
  const meanY = ys.reduce((sum, y) => sum + y, 0) / ys.length
  let numerator = 0
  let denominator = 0
  for (let index = 0; index < xs.length; index++) {
    numerator += (xs[index]! - meanX) * (ys[index]! - meanY)
    denominator += (xs[index]! - meanX) ** 2
  }
  return numerator / denominator
}

/**
 * The default summarizer on one long input of 10k, 100k and 300k items (a realistic mix: requests,
 * 1–8 KB tool results every third turn, answers), against a linear baseline measured in the same run:
 * one `JSON.stringify` of every item. Least CPU time of three runs each; prints the fitted exponent.
 */
const benchmark: Benchmark = {
  name: 'summarizer-scale',
  description: 'pattern summarizer time against input size (fitted exponent; target ≤ 1.2)',
  async run({ progress }) {
    const summarizer = patternSummarizer()
    const rows: BenchRow[] = []
    const points: { size: number; ms: number }[] = []
    const baselines: { size: number; ms: number }[] = []
    for (const size of SIZES) {
      const items = summarizerItems(size)
      let strata = Number.POSITIVE_INFINITY
      let baseline = Number.POSITIVE_INFINITY
      for (let run = 0; run < RUNS; run++) {
        strata = Math.min(strata, await cpuMs(() => summarizer.summarize(items, { tier: 'episodic' })))
        baseline = Math.min(
          baseline,
          await cpuMs(() => {
            let length = 0
            for (const item of items) length += JSON.stringify(item).length
            return length
          }),
        )
      }
      progress(
        `summarizer-scale: ${size} items, ${strata.toFixed(0)} ms (baseline ${baseline.toFixed(0)} ms)`,
      )
      points.push({ size, ms: strata })
      baselines.push({ size, ms: baseline })
      rows.push(
        rowOf(
          'summarize',
          { items: size },
          { strata, baseline },
          { baselineName: 'JSON.stringify of every item' },
        ),
      )
    }
    const exponent = fittedExponent(points)
    const baselineExponent = fittedExponent(baselines)
    return {
      rows,
      notes: [
        `Fitted exponent of the summarizer's CPU time over ${SIZES.join(', ')} items: ${exponent.toFixed(3)} ` +
          `(target ≤ 1.2; the linear baseline's: ${baselineExponent.toFixed(3)}).`,
        `Per item: ${points.map((point) => `${((point.ms / point.size) * 1_000).toFixed(1)} µs at ${point.size}`).join(', ')}.`,
      ],
    }
  },
}

export default benchmark
