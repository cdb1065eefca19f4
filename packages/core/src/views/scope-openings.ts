import type { Item } from '../items'

/**
 * A view with one opening per scope: a reopening (an opening item with `scope.continuedFrom`) is left
 * out when the opening it continues is in the view too, directly or through other reopenings.
 *
 * A scope is reopened when a broader item ended its view (the result of the call that opened it, a late
 * result, an automatic transition). When that broader item later leaves the active log (a long turn's
 * old tool steps are compacted and archived), nothing separates the two openings any more and a view
 * would show the scope twice; the first one, which starts the scope's items, stands for both. Threads
 * written before openings were worded as new hold such doubled openings too: they read the same way.
 * Everything else, and the order, stay as they are.
 */
export function oneOpeningPerScope<L extends string>(view: Item<L>[]): Item<L>[] {
  const shown = new Set<number>()
  const dropped = new Set<number>()
  for (const item of view) {
    if (item.type !== 'message' || item.scope === undefined) continue
    const from = item.scope.continuedFrom
    if (from !== undefined && shown.has(from)) dropped.add(item.seq)
    shown.add(item.seq)
  }
  return dropped.size === 0 ? view : view.filter((item) => !dropped.has(item.seq))
}
