import type { Item, MessagePart, ToolCallPart } from '../items'
import type { ContextMessage } from './context-message'
import { pairResults, renderView } from './render-context'

/**
 * A level view's messages as {@link renderView} renders them, kept so the next context of the thread
 * renders only what its view added: a chat call adds a question and an answer to a view of hundreds
 * of items, which are otherwise rendered, counted and frozen again on every call.
 */
export interface RenderedView {
  /** The items rendered, in view order. */
  readonly view: readonly Item[]
  /** Their messages, parts frozen; never handed out (see {@link handOutView}). */
  readonly messages: readonly ContextMessage[]
  /** The calls the view leaves open (no result in it), by id: what a longer view may still answer. */
  readonly open: ReadonlyMap<string, ToolCallPart>
  /** The messages' tokens. */
  readonly tokens: number
}

/**
 * The messages of `view`, rendered as `renderContext` renders a view: `previous`'s reused when `view`
 * starts with all of its items (the same objects: the log's items are frozen and never change) and
 * what it adds answers none of the calls `previous` left open, else rendered whole. Every other change
 * (a compaction, a transition, another level, a rewind, a result for an earlier call) renders the
 * view whole, so the messages are always what `renderContext` gives for `view`. `keep` is given each
 * newly rendered message once, to freeze its parts (they are handed out on every call) and count it.
 */
export function renderedView(
  view: readonly Item[],
  previous: RenderedView | undefined,
  keep: (message: ContextMessage) => number,
): RenderedView {
  const from = previous === undefined ? 0 : extendedFrom(previous.view, view)
  if (previous !== undefined && from > 0) {
    const added = view.slice(from)
    const pairing = pairResults(added, new Map(previous.open))
    // A result for a call the kept messages left out changes how they render.
    if (!pairing.answeredEarlier) {
      const messages = previous.messages.slice()
      const start = messages.length
      renderView(added, pairing, messages)
      return { view, messages, open: pairing.open, tokens: previous.tokens + kept(messages, start, keep) }
    }
  }
  const pairing = pairResults(view)
  const messages: ContextMessage[] = []
  renderView(view, pairing, messages)
  return { view, messages, open: pairing.open, tokens: kept(messages, 0, keep) }
}

/** How many items of `view` `previous` rendered when `view` starts with all of them; 0 when it does not. */
function extendedFrom(previous: readonly Item[], view: readonly Item[]): number {
  if (previous.length === 0 || previous.length > view.length) return 0
  for (let index = previous.length - 1; index >= 0; index--) if (previous[index] !== view[index]) return 0
  return previous.length
}

/** The tokens of the messages from `start` on, each passed to `keep` once (see {@link renderedView}). */
function kept(
  messages: readonly ContextMessage[],
  start: number,
  keep: (message: ContextMessage) => number,
): number {
  let tokens = 0
  for (let index = start; index < messages.length; index++) tokens += keep(messages[index]!)
  return tokens
}

/**
 * The rendered view's messages as a caller gets them, pushed to `out` (returned): each message and its
 * list of parts its own (the caller may change them), the parts the frozen ones the view rendered.
 */
export function handOutView(rendered: RenderedView, out: ContextMessage[]): ContextMessage[] {
  for (const message of rendered.messages) {
    // Built field by field, in the order the rendered one has them: a spread of messages of two
    // shapes (with a kind and without) is several times slower.
    const copy: ContextMessage = { role: message.role, content: copyParts(message.content) }
    if (message.kind !== undefined) copy.kind = message.kind
    out.push(copy)
  }
  return out
}

/** Spread, not slice(): V8 slices a frozen array (the log's lists are) an order of magnitude slower. */
const copyParts = (parts: readonly MessagePart[]): MessagePart[] => [...parts]
