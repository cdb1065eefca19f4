import type { Item } from '../items'
import type { LevelLadder } from '../levels'
import { isContextMemoryItem } from './context-memory-item'

/**
 * The normative level view: walk the log newest to oldest; keep items of `level`; skip narrower items;
 * stop at the first broader item; return the kept items oldest first. Runs in O(items visited).
 *
 * Context-memory items (facts and non-scope summaries) are not part of the walk: the context renders
 * them in their own slots, so they neither show up in a view nor end it.
 *
 * @example
 * levelView(items, 'project', ladder) // the project's items and the transitions of its closed tasks
 */
export function levelView<L extends string>(
  items: readonly Item<L>[],
  level: L,
  ladder: LevelLadder<L>,
): Item<L>[] {
  const target = ladder.rank(level)
  const ranks = new Map<string, number>(ladder.levels.map((name, index) => [name, index]))
  const kept: Item<L>[] = []
  for (let index = items.length - 1; index >= 0; index--) {
    const item = items[index]!
    if (isContextMemoryItem(item)) continue
    // Most items of a view are of its level: kept without looking their rank up (names are unique).
    if (item.level === level) {
      kept.push(item)
      continue
    }
    const rank = ranks.get(item.level)
    if (rank === undefined) ladder.assert(item.level)
    if (rank === target) kept.push(item)
    else if (rank! < target) break
  }
  // Pushing then reversing keeps the walk linear; the published version's unshift is quadratic.
  kept.reverse()
  return kept
}
