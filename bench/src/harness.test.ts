import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  formatTable,
  gitCommit,
  measure,
  median,
  ratio,
  resultsOf,
  rowOf,
  significant,
  targetSummary,
  withTarget,
  writeResults,
} from './harness.ts'

/** Busy work proportional to `size`, with a result the engine cannot drop. */
const work = (size: number) => {
  let total = 0
  for (let index = 0; index < size; index++) total += Math.sqrt(index + total)
  return total
}

describe('median', () => {
  it('takes the middle value, or the mean of the two middle ones, without sorting its input in place', () => {
    const values = [5, 1, 4, 2, 3]
    expect(median(values)).toBe(3)
    expect(values).toEqual([5, 1, 4, 2, 3])
    expect(median([4, 1, 3, 2])).toBe(2.5)
    expect(median([0.2])).toBe(0.2)
    expect(median([10, 2, 33])).toBe(10) // numeric order, not string order
  })

  it('refuses no values', () => {
    expect(() => median([])).toThrow(RangeError)
  })
})

describe('ratio and significant', () => {
  it('divides strata by baseline, and is null without a usable baseline', () => {
    expect(ratio(0.5, 2)).toBe(0.25)
    expect(ratio(3, null)).toBeNull()
    expect(ratio(3, 0)).toBeNull()
  })

  it('rounds to three significant digits by default', () => {
    expect(significant(0.0062345)).toBe(0.00623)
    expect(significant(3.41789)).toBe(3.42)
    expect(significant(123_456)).toBe(123_000)
    expect(significant(0)).toBe(0)
    expect(significant(1.23456, 2)).toBe(1.2)
  })
})

describe('measure', () => {
  const quick = { samples: 7, minSamples: 3, minSampleMs: 1, warmupMs: 5, maxMs: 500 }

  it('times both operations alternately and reports the ratio of their medians', async () => {
    const result = await measure({ ...quick, strata: () => work(400_000), baseline: () => work(4_000) })
    expect(result.samples).toBe(7)
    expect(result.strata).toBeGreaterThan(0)
    expect(result.baseline).toBeGreaterThan(0)
    expect(result.ratio).toBe(result.strata / result.baseline!)
    // A hundred times the work: above 2 even on a machine so loaded that a sample may take several
    // times its time (ten times the work once read 1.7 at a load average of 20).
    expect(result.ratio).toBeGreaterThan(2)
  })

  it('batches fast calls so that each sample is long enough to time', async () => {
    const result = await measure({ ...quick, strata: () => work(10) })
    expect(result.batch.strata).toBeGreaterThan(16)
    expect(result.baseline).toBeNull()
    expect(result.ratio).toBeNull()
    expect(result.batch.baseline).toBeNull()
  })

  it('awaits operations that return promises', async () => {
    let settled = 0
    const result = await measure({
      ...quick,
      strata: async () => {
        await new Promise((resolve) => setImmediate(resolve))
        settled++
      },
    })
    expect(result.strata).toBeGreaterThan(0)
    expect(settled).toBeGreaterThanOrEqual(result.batch.strata * result.samples)
  })
})

describe('results files', () => {
  let directory: string | undefined
  afterEach(() => {
    if (directory !== undefined) rmSync(directory, { recursive: true, force: true })
    directory = undefined
  })

  it('have the BENCH.md shape, with rounded figures and null baselines where there is none', () => {
    const rows = [
      rowOf(
        'view/task',
        { items: 100_000, level: 'task' },
        { strata: 0.0212345, baseline: 3.41 },
        { baselineName: 'scan' },
      ),
      rowOf('build', { items: 1000 }, { strata: 12.3456, baseline: null }, { baselineName: 'ignored' }),
    ]
    const results = resultsOf('core-view', rows, { commit: null, node: 'v24.0.0' })
    expect(Object.keys(results)).toEqual(['benchmark', 'node', 'commit', 'rows'])
    expect(Object.keys(results.rows[0]!)).toEqual([
      'case',
      'params',
      'unit',
      'strata',
      'baseline',
      'baselineName',
      'ratio',
    ])
    expect(results.rows).toEqual([
      {
        case: 'view/task',
        params: { items: 100_000, level: 'task' },
        unit: 'ms',
        strata: 0.0212,
        baseline: 3.41,
        baselineName: 'scan',
        ratio: 0.00623,
      },
      {
        case: 'build',
        params: { items: 1000 },
        unit: 'ms',
        strata: 12.3,
        baseline: null,
        baselineName: null,
        ratio: null,
      },
    ])
  })

  it('are written as <benchmark>.json and read back unchanged', () => {
    directory = mkdtempSync(join(tmpdir(), 'strata-bench-'))
    const results = resultsOf('sample', [
      rowOf('a', { n: 1 }, { strata: 1, baseline: 2 }, { baselineName: 'b' }),
    ])
    const path = writeResults(results, join(directory, 'results'))
    expect(path).toBe(join(directory, 'results', 'sample.json'))
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual(results)
    expect(results.node).toBe(process.version)
  })

  it('name the commit as a full sha, or null when there is none', () => {
    const commit = gitCommit()
    expect(commit === null || /^[0-9a-f]{40}$/.test(commit)).toBe(true)
    expect(gitCommit(tmpdir())).toBeNull()
  })

  it('print as a table with one line per row', () => {
    const table = formatTable([
      rowOf('view/global', { items: 1000, level: 'global' }, { strata: 0.5, baseline: 1 }),
    ])
    const lines = table.split('\n')
    expect(lines).toHaveLength(3)
    expect(lines[0]).toMatch(/^case +params +unit +strata +baseline +ratio$/)
    expect(lines[2]).toMatch(/^view\/global +items=1,000 level=global +ms +0\.5 +1 +0\.5$/)
  })
})

describe('targets', () => {
  it('gathers every row with a target into the summary, within or not, and leaves other rows out', () => {
    const row = (name: string, strata: number, baseline: number | null) =>
      rowOf(name, { items: 1000 }, { strata, baseline }, { baselineName: 'raw' })
    const results = [
      {
        benchmark: 'ai-sdk',
        node: 'v24',
        commit: null,
        rows: [
          withTarget(row('middleware/call', 1.2, 1), '≤ 1.5× pruneMessages', true),
          withTarget(row('middleware/call-full', 4, 1), '≤ 1.5× pruneMessages', false),
          row('untargeted', 1, 1),
        ],
      },
      {
        benchmark: 'scale',
        node: 'v24',
        commit: null,
        rows: [withTarget(row('open', 5, null), '≤ 250 ms', 'n/a')],
      },
    ]
    expect(targetSummary(results)).toEqual([
      'Targets: 1 within, 1 outside, 1 not measured or not applicable',
      'within   ai-sdk middleware/call items=1,000: 1.2× (target ≤ 1.5× pruneMessages)',
      'OUTSIDE  ai-sdk middleware/call-full items=1,000: 4× (target ≤ 1.5× pruneMessages)',
      'n/a      scale open items=1,000: 5 ms (target ≤ 250 ms)',
    ])
    expect(targetSummary([{ ...results[0]!, rows: [row('untargeted', 1, 1)] }])).toEqual([])
  })
})
