import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * The categories the default estimator is held to: within 1.15× of `o200k_base` and never under it,
 * on texts of at least 200 tokens (CJK is the exception the token-estimator tests name).
 */
export const ESTIMATOR_CATEGORIES = ['tool-results', 'json', 'code', 'prose', 'cjk'] as const

/** One of {@link ESTIMATOR_CATEGORIES}. */
export type EstimatorCategory = (typeof ESTIMATOR_CATEGORIES)[number]

/** A sample text of the estimator corpus. */
export interface EstimatorSample {
  category: EstimatorCategory
  /** The file name, e.g. `03-web-search-results.txt`. */
  name: string
  /** Held out from tuning: the estimator's costs were fitted without ever seeing it. */
  heldOut: boolean
  text: string
}

/**
 * The estimator corpus: realistic texts written for this repository, one file each under
 * `estimator-samples/<category>/` (tuned on) and `estimator-samples/held-out/<category>/` (every fourth
 * sample, set aside before tuning). Node-only (it reads the files); for tests and benchmarks.
 */
export function estimatorSamples(): EstimatorSample[] {
  const root = join(import.meta.dirname, 'estimator-samples')
  return [false, true].flatMap((heldOut) =>
    ESTIMATOR_CATEGORIES.flatMap((category) => {
      const folder = heldOut ? join(root, 'held-out', category) : join(root, category)
      return readdirSync(folder)
        .filter((name) => name.endsWith('.txt'))
        .sort()
        .map((name) => ({ category, name, heldOut, text: readFileSync(join(folder, name), 'utf8') }))
    }),
  )
}
