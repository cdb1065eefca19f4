/**
 * A log's active items, oldest first, and which of them are deep-frozen: a prefix and a suffix, with
 * maybe unfrozen items between. Items are frozen before they are handed out (views hand out the log's
 * own objects; frozen, a caller's mutation cannot corrupt the log), and each only once: an open takes
 * items in unfrozen, and reads that hand out the newest items freeze only back to the oldest they need.
 */
export class FrozenItems<T extends object> {
  readonly all: T[] = []
  /** `all[0, #prefix)` and `all[#suffix, length)` are frozen; `#prefix <= #suffix`. */
  #prefix = 0
  #suffix = 0

  /** Adds an item at the end; `frozen` when the caller froze it (see {@link deepFreeze}). */
  push(item: T, frozen: boolean) {
    this.all.push(item)
    if (!frozen) this.#suffix = this.all.length
  }

  /** Deep-freezes the items from index `from` on (all of them for 0); each is frozen once. */
  freezeFrom(from: number) {
    const all = this.all
    const start = Math.max(from, this.#prefix)
    for (let index = start; index < this.#suffix; index++) deepFreeze(all[index]!)
    if (start === this.#prefix) {
      this.#prefix = all.length
      this.#suffix = all.length
    } else if (start < this.#suffix) {
      this.#suffix = start
    }
  }

  /**
   * Deep-freezes the items of `view`, a subset of the items from index `from` on. A view that holds
   * most of them freezes them all ({@link freezeFrom}); a sparse one (the broadest level's view of a
   * long thread that opened many scopes: a seventh of its items) only its own, which a later call
   * finds frozen already. A first context of a 100k-item thread froze all 100k items for 13k shown.
   */
  freezeView(view: readonly T[], from: number) {
    const start = Math.max(from, this.#prefix)
    if (start >= this.#suffix) return
    if (view.length * 2 >= this.#suffix - start) this.freezeFrom(from)
    else for (const item of view) deepFreeze(item)
  }

  /**
   * Removes the items `drop` holds for, keeping the order of the rest; returns the removed ones. Only
   * the items at indexes `start` to `end` (exclusive) are asked: the others stay.
   */
  removeWhere(drop: (item: T) => boolean, start = 0, end = this.all.length): T[] {
    const all = this.all
    const removed: T[] = []
    if (start > all.length) return removed
    let kept = start
    // The items before `start` stay where they are, frozen or not.
    let prefix = Math.min(this.#prefix, start)
    let suffix = Math.min(this.#suffix, start)
    for (let index = start; index < all.length; index++) {
      const item = all[index]!
      if (index < end && drop(item)) {
        removed.push(item)
        continue
      }
      // Kept items stay in order, so the frozen prefix and suffix stay a prefix and a suffix.
      if (index < this.#prefix) prefix++
      if (index < this.#suffix) suffix++
      all[kept++] = item
    }
    all.length = kept
    this.#prefix = prefix
    this.#suffix = suffix
    return removed
  }
}

/** Freezes a JSON value and everything in it; stops at what is frozen already (frozen deeply here). */
export function deepFreeze(value: object) {
  if (Object.isFrozen(value)) return
  Object.freeze(value)
  if (Array.isArray(value)) {
    for (const child of value) if (typeof child === 'object' && child !== null) deepFreeze(child)
    return
  }
  for (const key in value) {
    const child = (value as Record<string, unknown>)[key]
    if (typeof child === 'object' && child !== null) deepFreeze(child)
  }
}
