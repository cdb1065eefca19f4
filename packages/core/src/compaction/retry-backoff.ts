/** Options of {@link retryBackoff}. */
export interface RetryBackoffOptions {
  /**
   * Wait after the first failure before an automatic retry; doubled after each further failure.
   * @default 30_000
   */
  initialMs?: number
  /**
   * The longest wait between automatic retries.
   * @default 600_000
   */
  maxMs?: number
}

/** When automatic compaction may run again after summarizer failures. */
export interface RetryBackoff {
  /** True when no failure is pending or its wait has passed. */
  ready(now: number): boolean
  /** Records a failure at `now`: the next automatic attempt waits `initialMs × 2^(failures − 1)`, capped. */
  failed(now: number): void
  /** A success clears the failures. */
  succeeded(): void
  /** Consecutive failures since the last success. */
  readonly failures: number
  /** Epoch ms of the next automatic attempt, while failures are pending. */
  readonly retryAt: number | undefined
}

/**
 * Spaces out automatic retries of a failing summarizer, so an LLM that is down or timing out is not
 * called again on every turn (a budget compaction runs before the next context: each attempt would make
 * the conversation wait up to the time-out). Compaction by hand ignores it.
 *
 * @example
 * const backoff = retryBackoff({ initialMs: 30_000 })
 * backoff.failed(Date.now())
 * backoff.ready(Date.now()) // false for the next 30 s
 */
export function retryBackoff({
  initialMs = 30_000,
  maxMs = 600_000,
}: RetryBackoffOptions = {}): RetryBackoff {
  let failures = 0
  let retryAt: number | undefined
  return {
    ready: (now) => retryAt === undefined || now >= retryAt,
    failed(now) {
      failures++
      retryAt = now + Math.min(maxMs, initialMs * 2 ** (failures - 1))
    },
    succeeded() {
      failures = 0
      retryAt = undefined
    },
    get failures() {
      return failures
    },
    get retryAt() {
      return retryAt
    },
  }
}
