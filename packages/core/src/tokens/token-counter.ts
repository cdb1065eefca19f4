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
