/**
 * Counts tokens in text. The default is a fast estimator that never undercounts; an exact offline
 * tokenizer is on `@strata-memory/core/tokenizer`. Counting never downloads anything.
 */
export interface TokenCounter {
  /** A short name for stats and benchmarks, e.g. `estimator` or `o200k_base`. */
  readonly name: string
  /** The number of tokens `text` takes. Must be deterministic. */
  count(text: string): number
}
