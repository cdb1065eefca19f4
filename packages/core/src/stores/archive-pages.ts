import type { Item } from '../items'
import type { StrataStoreBase } from './store'

/** Items per archive page: a reader of the archive holds at most this many items of a read at once. */
export const ARCHIVE_PAGE_ITEMS = 1000

/**
 * A thread's archived items in a seq range, oldest first, a page at a time
 * (`readArchive({ fromSeq, toSeq, limit })`): readers of the archive never ask the store for all of it
 * in one call.
 */
export async function* readArchivePages(
  store: Pick<StrataStoreBase, 'readArchive'>,
  threadId: string,
  range: { fromSeq?: number; toSeq?: number } = {},
  pageItems = ARCHIVE_PAGE_ITEMS,
): AsyncGenerator<Item[]> {
  let fromSeq = range.fromSeq ?? 1
  for (;;) {
    if (range.toSeq !== undefined && fromSeq > range.toSeq) return
    const page = await store.readArchive(threadId, {
      fromSeq,
      ...(range.toSeq === undefined ? {} : { toSeq: range.toSeq }),
      limit: pageItems,
    })
    if (page.length > 0) yield page
    if (page.length < pageItems) return
    fromSeq = page.at(-1)!.seq + 1
  }
}

/** The archived items of a seq range, read a page at a time (see {@link readArchivePages}). */
export async function readArchiveRange(
  store: Pick<StrataStoreBase, 'readArchive'>,
  threadId: string,
  range: { fromSeq?: number; toSeq?: number } = {},
): Promise<Item[]> {
  const items: Item[] = []
  for await (const page of readArchivePages(store, threadId, range)) for (const item of page) items.push(item)
  return items
}
