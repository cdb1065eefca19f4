import type { SeqRange } from './item'

/** The index of the first of `items` (sorted by seq) that `isBefore` is false for: a binary search. */
function firstNotBefore(items: readonly { seq: number }[], isBefore: (seq: number) => boolean): number {
  let low = 0
  let high = items.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (isBefore(items[middle]!.seq)) low = middle + 1
    else high = middle
  }
  return low
}

/** The index of the first of `items` (sorted by seq) whose seq is at least `seq`; the length when none is. */
export const indexFromSeq = (items: readonly { seq: number }[], seq: number): number =>
  firstNotBefore(items, (itemSeq) => itemSeq < seq)

/** The index of the first of `items` (sorted by seq) whose seq is above `seq`; the length when none is. */
export const indexAfterSeq = (items: readonly { seq: number }[], seq: number): number =>
  firstNotBefore(items, (itemSeq) => itemSeq <= seq)

/** Sorted, distinct seqs as runs of consecutive seqs: `[1, 2, 3, 7]` → `1–3, 7–7`. */
export function seqRuns(seqs: readonly number[]): SeqRange[] {
  const runs: SeqRange[] = []
  for (const seq of seqs) {
    const last = runs.at(-1)
    if (last !== undefined && seq === last.toSeq + 1) last.toSeq = seq
    else runs.push({ fromSeq: seq, toSeq: seq })
  }
  return runs
}
