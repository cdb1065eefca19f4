import { invalidOptions } from '../errors'
import { wholeNumber } from './option-checks'
import type { RetryBackoffOptions } from './retry-backoff'

/**
 * The options every compaction policy shares (each policy's own options live in its folder, beside
 * its runner): the summarizer's time limit and the back-off after its failures.
 */
export interface SharedCompactionOptions {
  /**
   * How long one summarizer call may take before it is abandoned (the log stays untouched).
   * @default 60_000
   */
  summarizerTimeoutMs?: number
  /**
   * After a summarizer failure or time-out, automatic compaction waits `initialMs` before it tries
   * again, doubling after each further failure up to `maxMs`, so a model that is down does not make
   * every turn wait for it. `thread.compact()` by hand always runs at once.
   * @default { initialMs: 30_000, maxMs: 600_000 }
   */
  retry?: RetryBackoffOptions
}

/** The shared options with defaults applied and checked. */
export interface ResolvedSharedCompaction {
  summarizerTimeoutMs: number
  retry: Required<RetryBackoffOptions>
}

/** Applies the defaults of the shared options and validates them: `STRATA_INVALID_OPTIONS` with what to change. */
export function resolveSharedCompaction({
  summarizerTimeoutMs = 60_000,
  retry = {},
}: SharedCompactionOptions): ResolvedSharedCompaction {
  if (!(summarizerTimeoutMs > 0))
    invalidOptions('compaction: summarizerTimeoutMs must be a positive number of ms.')
  if (typeof retry !== 'object' || retry === null)
    invalidOptions('compaction: retry must be { initialMs?, maxMs? }.')
  const { initialMs = 30_000, maxMs = 600_000, ...unknown } = retry
  for (const key of Object.keys(unknown))
    invalidOptions(`compaction: retry.${key} is not an option; use initialMs, maxMs.`)
  wholeNumber(initialMs, 'retry.initialMs', 0)
  wholeNumber(maxMs, 'retry.maxMs', initialMs)
  return { summarizerTimeoutMs, retry: { initialMs, maxMs } }
}
