import type { Item } from '../items'
import { isSealed, type LogEntry } from '../items/sealed-item'
import type { LevelLadder } from '../levels'
import { isContextMemoryItem } from './context-memory-item'

/**
 * The normative level view: walk the log newest to oldest; keep items of `level`; skip narrower items;
 * stop at the first broader item; return the kept items oldest first. Runs in O(items visited).
 *
 * Context-memory items (facts and non-scope summaries) are not part of the walk: the context renders
 * them in their own slots, so they neither show up in a view nor end it. Sealed entries (see
 * `SealedItem`) are only ever skipped or never reached: a broader item follows each.
 *
 * @example
 * levelView(items, 'project', ladder) // the project's items and the transitions of its closed tasks
 */
export function levelView<L extends string>(
  items: readonly LogEntry<L>[],
  level: L,
  ladder: LevelLadder<L>,
): Item<L>[] {
  const target = ladder.rank(level)
  const ranks = new Map<string, number>(ladder.levels.map((name, index) => [name, index]))
  const kept: Item<L>[] = []
  for (let index = items.length - 1; index >= 0; index--) {
    const item = items[index]!
    if (!isSealed(item) && isContextMemoryItem(item)) continue
    const rank = item.level === level ? target : ranks.get(item.level)
    if (rank === undefined) ladder.assert(item.level)
    if (rank! < target) break
    if (rank !== target) continue
    // Most items of a view are of its level: kept without looking their rank up (names are unique).
    kept.push(viewItem(item))
  }
  // Pushing then reversing keeps the walk linear; the published version's unshift is quadratic.
  kept.reverse()
  return kept
}

/** An entry a view keeps: never a sealed one, which a broader item follows (a bug if it were). */
export function viewItem<L extends string>(entry: LogEntry<L>): Item<L> {
  if (isSealed(entry)) {
    throw new Error(
      `Strata internal error: a view reached sealed item seq ${entry.seq}, which a broader item follows.`,
    )
  }
  return entry
}
