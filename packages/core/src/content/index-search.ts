import { normalizeFactText } from '../items/facts'
import { lengthNorm, queryScorer } from './memory-ranking'
import { compareEntriesNewestFirst, type MemoryEntry } from './memory-search'
import type { SearchQuery } from './search-terms'
import {
  type CountedEntry,
  type IndexedEntry,
  POSTING_SIZE,
  postingList,
  type ThreadIndex,
} from './thread-index'

/** Entries a query may return (memory_query's filters); all when absent. */
export type EntryFilter = (entry: MemoryEntry) => boolean

/** An entry and its BM25F score. */
export interface ScoredEntry {
  indexed: IndexedEntry
  score: number
}

/** What {@link searchIndex} gives: the entries holding a query term, best first, and each term's IDF. */
export interface IndexSearch {
  ranked: ScoredEntry[]
  idf: Map<string, number>
}

/** What a query searches in the threads: which indexed entries it lets through, and the others. */
interface Searchable {
  /** Per thread, which of its `entries` the filter lets through (undefined: all). */
  masks: (Uint8Array | undefined)[]
  /** Facts (the same fact once, its newest) and items that can still change, filtered. */
  extras: CountedEntry[]
  documents: number
  totalLength: number
}

function searchable(threads: readonly ThreadIndex[], allowed: EntryFilter | undefined): Searchable {
  let documents = 0
  let totalLength = 0
  const masks = threads.map((thread) => {
    if (allowed === undefined) {
      documents += thread.entries.length
      totalLength += thread.totalLength
      return undefined
    }
    const mask = new Uint8Array(thread.entries.length)
    thread.entries.forEach((indexed, at) => {
      if (!allowed(indexed.entry)) return
      mask[at] = 1
      documents++
      totalLength += indexed.length
    })
    return mask
  })
  // A fact extracted again (in this thread or another) is one fact: its newest item.
  const newest = new Map<string, CountedEntry>()
  for (const thread of threads) {
    for (const fact of thread.facts) {
      if (allowed !== undefined && !allowed(fact.entry)) continue
      const key = normalizeFactText(fact.entry.text)
      const kept = newest.get(key)
      if (kept === undefined || compareEntriesNewestFirst(fact.entry, kept.entry) < 0) newest.set(key, fact)
    }
  }
  const extras = [...newest.values()]
  for (const thread of threads)
    for (const pending of thread.pending)
      if (allowed === undefined || allowed(pending.entry)) extras.push(pending)
  for (const extra of extras) {
    documents++
    totalLength += extra.length
  }
  return { masks, extras, documents, totalLength }
}

/** Every entry of the threads the filter lets through (facts once), in no particular order. */
export function entriesOf(threads: readonly ThreadIndex[], allowed?: EntryFilter): IndexedEntry[] {
  const { masks, extras } = searchable(threads, allowed)
  const all: IndexedEntry[] = []
  threads.forEach((thread, index) => {
    const mask = masks[index]
    thread.entries.forEach((indexed, at) => {
      if (mask === undefined || mask[at] === 1) all.push(indexed)
    })
  })
  all.push(...extras)
  return all
}

/**
 * The entries holding at least one of the query's terms, best first: BM25F over every entry the filter
 * lets through (IDF and average length over them, as {@link MemoryRanking.rank} ranks one thread), then
 * newest first among equal scores; only the best `keep` when given. Reads only the postings of the
 * query's terms.
 */
export function searchIndex(
  threads: readonly ThreadIndex[],
  query: SearchQuery,
  allowed?: EntryFilter,
  keep?: number,
): IndexSearch {
  const { terms } = query
  const { masks, extras, documents, totalLength } = searchable(threads, allowed)
  if (documents === 0 || terms.length === 0) return { ranked: [], idf: new Map() }
  const holding = terms.map((term) => {
    let count = 0
    threads.forEach((thread, index) => {
      const held = thread.postings.get(term)
      if (held === undefined) return
      const postings = postingList(held)
      const mask = masks[index]
      if (mask === undefined) count += postings.length / POSTING_SIZE
      else
        for (let posting = 0; posting < postings.length; posting += POSTING_SIZE)
          count += mask[postings[posting]!]!
    })
    for (const extra of extras) if (extra.counted.body.has(term) || extra.counted.label.has(term)) count++
    return count
  })
  const averageLength = Math.max(totalLength / documents, 1)
  const { idf, score } = queryScorer(query, documents, holding)
  const scores = new Map<IndexedEntry, number>()
  // Term by term, so each entry's score is summed in the same order as a single thread's ranking.
  terms.forEach((term, index) => {
    threads.forEach((thread, at) => {
      const held = thread.postings.get(term)
      if (held === undefined) return
      const postings = postingList(held)
      const mask = masks[at]
      for (let posting = 0; posting < postings.length; posting += POSTING_SIZE) {
        const position = postings[posting]!
        if (mask !== undefined && mask[position] === 0) continue
        const indexed = thread.entries[position]!
        const norm = lengthNorm(indexed.length, averageLength)
        const added = score(index, postings[posting + 1]!, postings[posting + 2]!, norm)
        scores.set(indexed, (scores.get(indexed) ?? 0) + added)
      }
    })
    for (const extra of extras) {
      const body = extra.counted.body.get(term) ?? 0
      const label = extra.counted.label.get(term) ?? 0
      if (body === 0 && label === 0) continue
      const norm = lengthNorm(extra.length, averageLength)
      scores.set(extra, (scores.get(extra) ?? 0) + score(index, body, label, norm))
    }
  })
  const ranked = best(scores, keep)
  return { ranked, idf: new Map(terms.map((term, index) => [term, idf[index]!])) }
}

/** Best first: by score, then newest first among equal scores. */
const byScore = (left: ScoredEntry, right: ScoredEntry) =>
  left.score !== right.score
    ? right.score - left.score
    : compareEntriesNewestFirst(left.indexed.entry, right.indexed.entry)

/** The `keep` best of the scored entries (all of them when `keep` is undefined), best first. */
function best(scores: ReadonlyMap<IndexedEntry, number>, keep: number | undefined): ScoredEntry[] {
  if (keep === undefined || keep >= scores.size)
    return [...scores].map(([indexed, score]) => ({ indexed, score })).sort(byScore)
  // A query's terms are often held by thousands of entries: keep the best few as they come.
  const kept: ScoredEntry[] = []
  for (const [indexed, score] of scores) {
    const candidate = { indexed, score }
    if (kept.length === keep && byScore(candidate, kept[keep - 1]!) >= 0) continue
    let at = kept.length === keep ? keep - 1 : kept.length
    while (at > 0 && byScore(candidate, kept[at - 1]!) < 0) {
      kept[at] = kept[at - 1]!
      at--
    }
    kept[at] = candidate
  }
  return kept
}
