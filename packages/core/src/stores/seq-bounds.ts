import type { ReadOptions } from './store'

/**
 * The binary searches of a seq-sorted log kept as an array of seqs, for store authors (exported from
 * `@strata-memory/core/store-kit`): where a seq range starts and ends.
 */

/** The index of the first of `seqs` (ascending) that is at least `seq`; the length when none is. */
export function seqLowerBound(seqs: ArrayLike<number>, seq: number): number {
  let low = 0
  let high = seqs.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (seqs[middle]! < seq) low = middle + 1
    else high = middle
  }
  return low
}

/** The index of the first of `seqs` (ascending) above `seq`; the length when none is. */
export function seqUpperBound(seqs: ArrayLike<number>, seq: number): number {
  let low = 0
  let high = seqs.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (seqs[middle]! <= seq) low = middle + 1
    else high = middle
  }
  return low
}

/** The `[start, end)` indexes of `seqs` (ascending) a read with these options returns. */
export function seqRangeIndexes(
  seqs: ArrayLike<number>,
  { fromSeq, toSeq, limit }: ReadOptions,
): [number, number] {
  const start = fromSeq === undefined ? 0 : seqLowerBound(seqs, fromSeq)
  const end = toSeq === undefined ? seqs.length : seqUpperBound(seqs, toSeq)
  if (end <= start) return [start, start]
  return [start, limit === undefined ? end : Math.min(end, start + limit)]
}
