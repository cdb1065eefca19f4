import type { FactItem, Item } from '../items'
import { normalizeFactText } from '../items/facts'
import type { ThreadData } from './resource-recall'
import type { ResourceFact } from './resource-types'

interface Occurrence {
  threadId: string
  item: FactItem
}

const isFact = (item: Item): item is FactItem => item.type === 'fact'

/**
 * The facts of the threads (fact items of their active logs and archives), merged: the same fact
 * (by {@link normalizeFactText}) once, with its text as first written and every thread and seq that
 * holds it, oldest first. Ordered by each fact's latest occurrence, newest last, as a thread's own
 * facts are.
 */
export function mergeResourceFacts(threads: readonly ThreadData[]): ResourceFact[] {
  const occurrences: Occurrence[] = []
  for (const thread of threads) {
    for (const item of [...thread.archived, ...thread.items])
      if (isFact(item)) occurrences.push({ threadId: thread.threadId, item })
  }
  occurrences.sort(
    (left, right) =>
      left.item.ts - right.item.ts ||
      (left.threadId < right.threadId ? -1 : left.threadId > right.threadId ? 1 : 0) ||
      left.item.seq - right.item.seq,
  )
  const merged = new Map<string, { fact: ResourceFact; latest: number }>()
  occurrences.forEach(({ threadId, item }, order) => {
    const key = normalizeFactText(item.text)
    if (key.length === 0) return
    const known = merged.get(key)
    const source = { threadId, seq: item.seq }
    if (known === undefined) merged.set(key, { fact: { text: item.text, sources: [source] }, latest: order })
    else {
      known.fact.sources.push(source)
      known.latest = order
    }
  })
  return [...merged.values()].sort((left, right) => left.latest - right.latest).map(({ fact }) => fact)
}
