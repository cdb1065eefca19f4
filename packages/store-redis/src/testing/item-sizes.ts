import type { UnsequencedItem } from '@strata-memory/core'
import { makeItems } from '@strata-memory/core/testing'

/**
 * The items with over 9 KB of JSON each (more than DIRECT_APPEND_MAX_CHARS): any batch of them takes
 * the append's transaction path.
 */
export function largeItems(items: UnsequencedItem[]): UnsequencedItem[] {
  return items.map((item) => ({ ...item, meta: { padding: 'x'.repeat(9_000) } }))
}

/**
 * Item makers for each of the append's two paths (see APPEND_SCRIPT): small appends go in one script
 * call, larger ones in a transaction through the gate. For `describe.each`.
 */
export const APPEND_PATHS: [string, (count: number) => UnsequencedItem[]][] = [
  ['script path (small appends)', (count) => makeItems(count)],
  ['transaction path (large appends)', (count) => largeItems(makeItems(count))],
]
