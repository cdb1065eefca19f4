import type { Item } from '@strata-memory/core'

/**
 * The baseline: the level view as the published fairies algorithm computes it. Walk the items newest to
 * oldest; keep items of `level`, skip narrower ones, stop at the first broader one — and `unshift` each
 * kept item, which moves every item kept so far, so the scan is O(kept²) where Strata's is O(visited).
 * Written for this benchmark from the algorithm's description; levels are ranked broad (0) to narrow.
 */
export function fairiesView<L extends string>(
  items: readonly Item<L>[],
  level: L,
  levels: readonly L[],
): Item<L>[] {
  const target = levels.indexOf(level)
  const kept: Item<L>[] = []
  for (let index = items.length - 1; index >= 0; index--) {
    const item = items[index]!
    const rank = levels.indexOf(item.level)
    if (rank === target) kept.unshift(item)
    else if (rank < target) break
  }
  return kept
}
