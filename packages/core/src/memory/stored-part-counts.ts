import { referenceOf } from '../content/content-reference'
import type { Item, MessagePart } from '../items'
import { storedParts } from '../thread-state/thread-log'
import { MESSAGE_OVERHEAD_TOKENS } from '../tokens'

/** A message's content, as the context's counts take it. */
type Counted = { content: readonly MessagePart[] }

/**
 * The part counts core stored with the log's messages (`MessageItem.tokens`), for a context's counts:
 * a cold open's first context then counts only what it shows otherwise (cuts, citations, notes,
 * memory slots) instead of every part of its view again.
 *
 * A stored count is used only for the very part object it was stored with, and only when the counter
 * that stored it has the memory counter's identity (name and version, `counterIdentity`): it is then
 * the count `countPartTokens` gives that part. A part offloaded to the content store is left out: its
 * stored count is of what was appended, not of the citation the context shows. A cut, a brief form or
 * an expanded citation is a new object, so it is counted.
 */
export class StoredPartCounts {
  readonly #identity: string
  readonly #counts = new WeakMap<MessagePart, number>()
  /** Whether any count was taken in: without one, a count goes straight to the counter. */
  #any = false

  constructor(identity: string) {
    this.#identity = identity
  }

  /** Takes in the stored counts of `items`' parts (log items as stored; others are skipped). */
  take(items: readonly Item[]) {
    for (const item of items) {
      if (item.type !== 'message') continue
      const parts = storedParts(item, this.#identity)
      if (parts === undefined) continue
      const { content } = item
      for (let index = 0; index < content.length; index++) {
        const part = content[index]!
        if (referenceOf(part) !== undefined) continue
        this.#counts.set(part, parts[index]!)
        this.#any = true
      }
    }
  }

  /**
   * The tokens of `message`: stored counts for the parts that have one, `count` for the message's
   * other parts (its overhead included), so the sum is what `count(message)` gives.
   */
  count(message: Counted, count: (message: Counted) => number): number {
    if (!this.#any) return count(message)
    let stored = 0
    let rest: MessagePart[] | undefined
    for (const part of message.content) {
      const tokens = this.#counts.get(part)
      if (tokens !== undefined) stored += tokens
      else if (rest === undefined) rest = [part]
      else rest.push(part)
    }
    return rest === undefined ? stored + MESSAGE_OVERHEAD_TOKENS : stored + count({ content: rest })
  }
}
