/**
 * How a read of the log is cut into pages. A page's reply (one string per element) and the items
 * parsed from it are alive together until the page is parsed: pages are sized by the characters of
 * their elements, not by a count of items, so that what a read holds besides its items stays about
 * the same whether the items are 200 characters or 20,000.
 */
export const READ_PAGE: Readonly<{ chars: number; firstItems: number; maxItems: number }> = {
  /** Characters of stored elements a page aims at (after the first, sized from the page before it). */
  chars: 512 * 1024,
  /** Items of the first page, before any element's size is known. */
  firstItems: 64,
  /** Items a page never exceeds (a log of small items: fewer round trips would save little). */
  maxItems: 2_000,
}

/**
 * Items the next page asks for, after a page of `items` items that held `chars` characters: as many as
 * fit in `READ_PAGE.chars` at that page's average size, from 1 to `READ_PAGE.maxItems`.
 */
export function nextPageItems(items: number, chars: number): number {
  if (chars <= 0) return READ_PAGE.maxItems
  return Math.max(1, Math.min(READ_PAGE.maxItems, Math.floor((READ_PAGE.chars * items) / chars)))
}

/** How many items the plan's runs of seqs hold (see {@link pagesOf}). */
export function planItems(plan: readonly string[]): number {
  let items = 0
  for (let index = 3; index + 1 < plan.length; index += 2)
    items += Number(plan[index + 1]) - Number(plan[index]) + 1
  return items
}

/**
 * The plan's runs of seqs (`plan[3]`, `plan[4]`: the first run's bounds, and so on) cut into pages, each
 * a list of `[from, to]` runs of at most `size()` items; `size` is asked again for each page, once the
 * page before it has been taken.
 */
export function* pagesOf(plan: readonly string[], size: () => number): Generator<[number, number][]> {
  let page: [number, number][] = []
  let room = size()
  for (let index = 3; index + 1 < plan.length; index += 2) {
    let from = Number(plan[index])
    const to = Number(plan[index + 1])
    while (from <= to) {
      const end = Math.min(to, from + room - 1)
      page.push([from, end])
      room -= end - from + 1
      from = end + 1
      if (room === 0) {
        yield page
        page = []
        room = size()
      }
    }
  }
  if (page.length > 0) yield page
}
