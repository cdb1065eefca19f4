import type { Item } from '../items'
import { indexFromSeq } from '../items/seq-search'

/**
 * A level view with the turn's request in it. The request is the newest message of the log that
 * starts a turn (a user's own message, not a scope's opening): from a user message until the next one,
 * the request the model is working on. A scope's view hides the broader items before its opening, and
 * a transition at the parent level hides a closed scope's items, the request among them; the context
 * still needs it, while the view rule ({@link levelView}) stays as it is for everything else.
 *
 * Returns `view` itself when it holds the request or there is none; otherwise a copy with the request
 * at its seq position (after the older items, before the items of its turn the view shows), so a
 * model reads it as the current request. `view` is sorted by seq. The request is a user message: it
 * holds no tool call nor result, so it pairs with nothing.
 *
 * @example
 * withTurnRequest(levelView(items, 'task', ladder), log.request) // [request, task opening, task steps…]
 */
export function withTurnRequest<L extends string>(view: Item<L>[], request: Item<L> | undefined): Item<L>[] {
  if (request === undefined) return view
  const at = indexFromSeq(view, request.seq)
  if (view[at]?.seq === request.seq) return view
  return [...view.slice(0, at), request, ...view.slice(at)]
}
