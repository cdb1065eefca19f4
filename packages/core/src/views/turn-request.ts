import type { Item, MessageItem } from '../items'
import { indexFromSeq } from '../items/seq-search'
import { startsTurn } from '../items/turns'

/**
 * The turn's request: the newest message of `items` that starts a turn (a user's own message, not a
 * scope's opening), or undefined when there is none. From a user message until the next one, this is
 * the request the model is working on. Walks back from the newest item: O(items of the current turn).
 */
export function turnRequest<L extends string>(items: readonly Item<L>[]): MessageItem<L> | undefined {
  for (let index = items.length - 1; index >= 0; index--) {
    const item = items[index]!
    if (item.type === 'message' && startsTurn(item)) return item
  }
  return undefined
}

/**
 * A level view with the turn's request in it: the view as it is when the request is among its items or
 * the log holds none; otherwise the view with the request inserted at its seq position (before the
 * items of its turn the view shows, after the older ones), so the model reads it as the current
 * request. A scope's view hides the broader items before its opening, and a transition at the parent
 * level hides a scope's items, the request among them: the context still needs it, the view rule
 * ({@link levelView}) stays as it is for everything else.
 *
 * `view` is a level view of `items` (sorted by seq); `items` is the active log, oldest first. The
 * request is a user message, so it holds no tool call nor result: it pairs with nothing.
 *
 * @example
 * withTurnRequest(levelView(items, 'task', ladder), items) // [request, task opening, task steps…]
 */
export function withTurnRequest<L extends string>(view: Item<L>[], items: readonly Item<L>[]): Item<L>[] {
  const request = turnRequest(items)
  if (request === undefined) return view
  const at = indexFromSeq(view, request.seq)
  if (view[at]?.seq === request.seq) return view
  return [...view.slice(0, at), request, ...view.slice(at)]
}
