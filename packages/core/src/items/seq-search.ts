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
