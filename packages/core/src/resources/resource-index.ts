import { inverseFrequency, lengthNorm, termScore } from '../content/memory-ranking'
import { compareEntriesNewestFirst, type MemoryEntry } from '../content/memory-search'
import { normalizeFactText } from '../items/facts'
import type { StrataStoreBase } from '../stores'
import { type CountedEntry, type IndexedEntry, ThreadIndex } from './thread-index'

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

/**
 * The resource indexes of one memory, within a bound on the entries they hold together: past it, the
 * least recently queried resources are dropped (and rebuilt from the store at their next query).
 */
export class IndexPool {
  readonly maxEntries: number
  /** Each index's entries at its last use, least recently used first. */
  readonly #sizes = new Map<ResourceIndex, number>()
  #total = 0

  constructor(maxEntries: number) {
    this.maxEntries = maxEntries
  }

  /**
   * Marks `index` as just used, holding `size` entries, then drops the least recently used others
   * until the bound holds (or none is left). Costs nothing per index the memory holds while under it.
   */
  used(index: ResourceIndex, size: number) {
    this.#total += size - (this.#sizes.get(index) ?? 0)
    this.#sizes.delete(index)
    this.#sizes.set(index, size)
    for (const [other, held] of this.#sizes) {
      if (this.#total <= this.maxEntries) break
      if (other === index) continue
      this.#total -= held
      other.clear()
      this.#sizes.delete(other)
    }
  }
}

/**
 * A resource's search index, kept in memory between queries: one {@link ThreadIndex} per thread,
 * each brought up to date from the store (by its head) at every query, so a warm query reads each
 * thread's head and whatever was appended since — never the whole history.
 */
export class ResourceIndex {
  readonly #pool: IndexPool
  readonly #threads = new Map<string, ThreadIndex>()

  constructor(pool: IndexPool) {
    this.#pool = pool
  }

  /** The entries held. */
  get size(): number {
    let size = 0
    for (const thread of this.#threads.values()) size += thread.size
    return size
  }

  /** The threads `threadIds` names, each up to date with the store. */
  async sync(store: StrataStoreBase, threadIds: readonly string[]): Promise<ThreadIndex[]> {
    const threads = threadIds.map((threadId) => {
      let thread = this.#threads.get(threadId)
      if (thread === undefined) {
        thread = new ThreadIndex(threadId)
        this.#threads.set(threadId, thread)
      }
      return thread
    })
    await Promise.all(threads.map((thread) => thread.sync(store)))
    this.#pool.used(this, this.size)
    return threads
  }

  /** Content was stored in the thread without an append (which its head would show). */
  contentStored(threadId: string) {
    this.#threads.get(threadId)?.contentStored()
  }

  /** Forgets the threads no longer bound to the resource. */
  retain(threadIds: readonly string[]) {
    const kept = new Set(threadIds)
    for (const threadId of this.#threads.keys()) if (!kept.has(threadId)) this.#threads.delete(threadId)
  }

  clear() {
    this.#threads.clear()
  }
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
 * The entries holding at least one of `terms`, best first: BM25F over every entry the filter lets
 * through (IDF and average length over them, as {@link MemoryRanking.rank} ranks one thread), then
 * newest first among equal scores; only the best `keep` when given. Reads only the postings of the
 * query's terms.
 */
export function searchIndex(
  threads: readonly ThreadIndex[],
  terms: readonly string[],
  allowed?: EntryFilter,
  keep?: number,
): IndexSearch {
  const { masks, extras, documents, totalLength } = searchable(threads, allowed)
  if (documents === 0 || terms.length === 0) return { ranked: [], idf: new Map() }
  const holding = terms.map((term) => {
    let count = 0
    threads.forEach((thread, index) => {
      const postings = thread.postings.get(term)
      if (postings === undefined) return
      const mask = masks[index]
      if (mask === undefined) count += postings.at.length
      else for (const at of postings.at) count += mask[at]!
    })
    for (const extra of extras) if (extra.counted.body.has(term) || extra.counted.label.has(term)) count++
    return count
  })
  const averageLength = Math.max(totalLength / documents, 1)
  const idf = holding.map((count) => inverseFrequency(documents, count))
  const scores = new Map<IndexedEntry, number>()
  // Term by term, so each entry's score is summed in the same order as a single thread's ranking.
  terms.forEach((term, index) => {
    threads.forEach((thread, at) => {
      const postings = thread.postings.get(term)
      if (postings === undefined) return
      const mask = masks[at]
      for (let posting = 0; posting < postings.at.length; posting++) {
        const position = postings.at[posting]!
        if (mask !== undefined && mask[position] === 0) continue
        const indexed = thread.entries[position]!
        const norm = lengthNorm(indexed.length, averageLength)
        const added = termScore(idf[index]!, postings.body[posting]!, postings.label[posting]!, norm)
        scores.set(indexed, (scores.get(indexed) ?? 0) + added)
      }
    })
    for (const extra of extras) {
      const body = extra.counted.body.get(term) ?? 0
      const label = extra.counted.label.get(term) ?? 0
      if (body === 0 && label === 0) continue
      const norm = lengthNorm(extra.length, averageLength)
      scores.set(extra, (scores.get(extra) ?? 0) + termScore(idf[index]!, body, label, norm))
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
