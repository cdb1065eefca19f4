import type { ReadOptions } from '@strata-memory/core'

/** Seq-range helpers of the file store; the argument checks shared by every store come from `@strata-memory/core/store-kit`. */

/** The index of the first seq that is at least `seq` (the length when there is none). */
export function lowerBound(seqs: readonly number[], seq: number): number {
  let low = 0
  let high = seqs.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (seqs[middle]! < seq) low = middle + 1
    else high = middle
  }
  return low
}

/** The index of the first seq above `seq` (the length when there is none). */
export function upperBound(seqs: readonly number[], seq: number): number {
  let low = 0
  let high = seqs.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (seqs[middle]! <= seq) low = middle + 1
    else high = middle
  }
  return low
}

/** The `[start, end)` indexes of `seqs` a read returns. */
export function rangeOf(seqs: readonly number[], { fromSeq, toSeq, limit }: ReadOptions): [number, number] {
  const start = fromSeq === undefined ? 0 : lowerBound(seqs, fromSeq)
  const end = toSeq === undefined ? seqs.length : upperBound(seqs, toSeq)
  if (end <= start) return [start, start]
  return [start, limit === undefined ? end : Math.min(end, start + limit)]
}

/** Merges two seq-sorted runs of lines into one. */
export function mergeBySeq(
  leftSeqs: readonly number[],
  leftLines: readonly string[],
  rightSeqs: readonly number[],
  rightLines: readonly string[],
): { seqs: number[]; lines: string[] } {
  const seqs: number[] = []
  const lines: string[] = []
  let left = 0
  let right = 0
  while (left < leftSeqs.length || right < rightSeqs.length) {
    const takeLeft =
      right >= rightSeqs.length || (left < leftSeqs.length && leftSeqs[left]! < rightSeqs[right]!)
    if (takeLeft) {
      seqs.push(leftSeqs[left]!)
      lines.push(leftLines[left++]!)
    } else {
      seqs.push(rightSeqs[right]!)
      lines.push(rightLines[right++]!)
    }
  }
  return { seqs, lines }
}
