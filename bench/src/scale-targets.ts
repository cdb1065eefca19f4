import {
  type BenchRow,
  type BenchUnit,
  type ParamValue,
  ratio,
  significant,
  type TargetVerdict,
  withTarget,
} from './harness.ts'

/** Issue 32's targets, each a check of one row. */
export const TARGETS = {
  openArchivedMs: { bound: 250, text: '≤ 250 ms (stated at 1M, all but the tail archived)' },
  openArchivedRss: { bound: 256 * 2 ** 20, text: '≤ 256 MiB (stated at 1M, all but the tail archived)' },
  openRawRatio: { bound: 1.3, text: '≤ 1.3× the bare read (stated at 100k, never compacted)' },
  openSmallRatio: { bound: 1.3, text: '≤ 1.3× the bare read (issue 30: at 1k, a fresh process)' },
  openRawRss: { bound: 2, text: '≤ 2× the log on disk (stated at 100k, never compacted)' },
  archiveRatio: { bound: 1.25, text: '≤ 1.25× the 10k row (10k → 1M)' },
  firstCompactionMs: { bound: 60_000, text: '≤ 60 s (stated at 1M)' },
} as const

/**
 * A row with its target and whether it is within it: `yes`, `NO`, `failed` (not measured; a note says
 * why) or `n/a` (a target stated for larger threads, where a small one says nothing).
 */
export function targetRow(
  name: string,
  params: Record<string, ParamValue>,
  figures: { strata: number; baseline: number | null },
  options: {
    unit: BenchUnit
    baselineName: string | null
    target: string
    within: boolean | TargetVerdict
  },
): BenchRow {
  const rate = ratio(figures.strata, figures.baseline)
  const row: BenchRow = {
    case: name,
    params,
    unit: options.unit,
    strata: significant(figures.strata),
    baseline: figures.baseline === null ? null : significant(figures.baseline),
    baselineName: figures.baseline === null ? null : options.baselineName,
    ratio: rate === null ? null : significant(rate),
  }
  return withTarget(row, options.target, options.within)
}

/** `1 234 567` bytes as `1.18 MiB`. */
export const mib = (bytes: number) => `${significant(bytes / 2 ** 20)} MiB`
