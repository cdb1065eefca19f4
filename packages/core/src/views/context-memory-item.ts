import type { FactItem, Item, SummaryItem } from '../items'

/**
 * True for items the context renders in its memory slots (long-term, short-term and episodic
 * summaries, and facts) rather than in the level view. Scope summaries stay in the view.
 */
export function isContextMemoryItem<L extends string>(item: Item<L>): item is FactItem<L> | SummaryItem<L> {
  return item.type === 'fact' || (item.type === 'summary' && item.tier !== 'scope')
}
