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

/**
 * A thread's last level view, extended rather than walked again while the log only grows: a chat call
 * appends a question and an answer to a log of thousands of entries, and its context needs the same
 * view with those two added. What {@link of} gives is always what `levelView` gives for the entries.
 *
 * The walk of `levelView` keeps the level's items after the newest broader item; read oldest first,
 * that is: a broader item empties the view, an item of the level joins it, anything else is skipped.
 * So the view of entries that only grew is the last view with the new entries read that way. The log
 * grew only if the entries are the same array and the last entry seen is still where it was: a
 * removal before it moves it, and any other change (a log read again, a rewind, an archive, sealing
 * or unsealing it) either does that or makes a new array. Sealed entries never reach a view (a
 * broader item follows each); an entry sealed in place where the last one seen was is another object.
 */
export class LevelViews<L extends string> {
  #last:
    | {
        entries: readonly LogEntry<L>[]
        length: number
        lastEntry: LogEntry<L> | undefined
        level: L
        view: Item<L>[]
      }
    | undefined

  /** `levelView(entries, level, ladder)`; the array is shared with later calls: copy it before changing it. */
  of(entries: readonly LogEntry<L>[], level: L, ladder: LevelLadder<L>): readonly Item<L>[] {
    const last = this.#last
    const length = entries.length
    if (
      last !== undefined &&
      last.entries === entries &&
      last.level === level &&
      length >= last.length &&
      (last.length === 0 || entries[last.length - 1] === last.lastEntry)
    ) {
      if (length === last.length) return last.view
      const view = grown(last.view, entries, last.length, level, ladder)
      if (view !== undefined) {
        this.#last = { entries, length, lastEntry: entries[length - 1], level, view }
        return view
      }
    }
    const view = levelView(entries, level, ladder)
    this.#last = { entries, length, lastEntry: entries[length - 1], level, view }
    return view
  }
}

/**
 * `view` (the level view of `entries` up to `from`) with the entries from `from` on read oldest first,
 * in a new array when anything joins it; undefined at a sealed entry, which `levelView` must judge.
 */
function grown<L extends string>(
  view: Item<L>[],
  entries: readonly LogEntry<L>[],
  from: number,
  level: L,
  ladder: LevelLadder<L>,
): Item<L>[] | undefined {
  const target = ladder.rank(level)
  let next: Item<L>[] | undefined
  for (let index = from; index < entries.length; index++) {
    const entry = entries[index]!
    if (isSealed(entry)) return undefined
    if (isContextMemoryItem(entry)) continue
    const rank = entry.level === level ? target : ladder.rank(entry.level)
    if (rank < target) {
      next = []
    } else if (rank === target) {
      next ??= view.slice()
      next.push(entry)
    }
  }
  return next ?? view
}
