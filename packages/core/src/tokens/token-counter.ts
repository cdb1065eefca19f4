/**
 * Counts tokens in text. The default is a fast estimator that never undercounts; an exact offline
 * tokenizer is on `@strata-memory/core/tokenizer`. Counting never downloads anything.
 */
export interface TokenCounter {
  /** A short name for stats and benchmarks, e.g. `estimator` or `o200k_base`. */
  readonly name: string
  /**
   * Changes whenever the counts change under the same `name` (a new algorithm, other options). Core
   * stores each message's part counts with the counter's `name` and `version`, and counts again what
   * another name or version counted; without a version, counts stored under the same name (and no
   * version) are trusted.
   */
  readonly version?: string
  /** The number of tokens `text` takes. Must be deterministic. */
  count(text: string): number
}

/**
 * What stored counts record of the counter that counted them: its name, and its version when it has
 * one (`estimator@2`). Counts stored under another identity are counted again.
 */
export function counterIdentity(counter: TokenCounter): string {
  const { name, version } = counter
  return version === undefined ? name : `${name}@${version}`
}

/**
 * Stored identities a counter's own identity takes as its own. The estimator before versions (its
 * version 1, stored as plain `estimator`) counts as version 2 does but for runs of over 16 line breaks
 * or 128 spaces (a token less each): its counts stay trusted for the thread's totals, which only
 * schedule compaction (every context is fitted with fresh counts), so a thread stored before versions
 * is not counted again at every open. With a multiplier the old counts were another counter's, and
 * are counted again.
 */
const EARLIER_IDENTITIES: Readonly<Record<string, string>> = { 'estimator@2': 'estimator' }

/** Whether counts stored under `stored` were counted as the counter of `identity` counts. */
export function sameCounts(identity: string, stored: unknown): boolean {
  return stored === identity || (typeof stored === 'string' && EARLIER_IDENTITIES[identity] === stored)
}
