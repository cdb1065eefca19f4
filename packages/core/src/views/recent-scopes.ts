import type { Item, SeqRange } from '../items'

const rangeKey = (range: SeqRange) => `${range.fromSeq}-${range.toSeq}`

/**
 * The view without all but the newest `keep` closed scopes: an older scope's transition and its scope
 * summary (the summary item of tier `scope` covering the same range) leave it. Everything else, and the
 * order, stay as they are. The items stay in the log; this only bounds what a context shows.
 */
export function keepRecentScopes<L extends string>(view: readonly Item<L>[], keep: number): Item<L>[] {
  let transitions = 0
  for (const item of view) if (item.type === 'transition') transitions++
  if (transitions <= keep) return [...view]
  let drop = transitions - keep
  const dropped = new Set<string>()
  const kept: Item<L>[] = []
  for (const item of view) {
    if (item.type === 'transition' && drop > 0) {
      drop--
      dropped.add(rangeKey(item.range))
      continue
    }
    if (item.type === 'summary' && item.tier === 'scope' && dropped.has(rangeKey(item.range))) continue
    kept.push(item)
  }
  return kept
}
