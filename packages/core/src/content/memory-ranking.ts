import type { MemoryEntry } from './memory-search'
import { termsOf } from './search-terms'

/*
 * Ranking of `memory_query`: BM25F over two fields of each entry — its text, and its labels (the tool
 * or role it came from, its type and tags, the input of the call it answers) — with IDF taken over the entries the query searched (the
 * ones its filters let through). Labels weigh more than a word of a long text and are not normalised by
 * length. An entry's terms are counted once and kept, so a thread of 10 000 items is tokenised once,
 * not at every query.
 */

/** BM25's term-frequency saturation. */
const K1 = 1.2
/** BM25's length normalisation of the text field. */
const B = 0.75
/** How much a term of the labels counts against one of the text. */
const LABEL_WEIGHT = 2
/** Queries an entry may go unsearched before its counted terms are dropped from the cache. */
const IDLE_QUERIES = 20

/** An entry's terms, counted. */
interface CountedEntry {
  /** The text the counts are of: a cached count is used only for the same text. */
  text: string
  labels: string
  body: Map<string, number>
  bodyLength: number
  label: Map<string, number>
  /** The last query that searched it. */
  used: number
}

function count(text: string): { counts: Map<string, number>; length: number } {
  const counts = new Map<string, number>()
  const terms = termsOf(text)
  for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1)
  return { counts, length: terms.length }
}

const labelsOf = (entry: MemoryEntry) =>
  [entry.source ?? '', entry.type, ...entry.tags, entry.labels ?? ''].join(' ')

/** An entry and its score; `terms` are the query's terms it holds. */
export interface RankedEntry {
  entry: MemoryEntry
  score: number
  terms: number
}

/** What {@link MemoryRanking.rank} gives: the ranked entries and each query term's IDF. */
export interface Ranking {
  ranked: RankedEntry[]
  idf: Map<string, number>
}

/**
 * The counted terms of the entries a thread's queries searched, kept between queries. Entries are keyed
 * by where they live and their id; a count is reused only while the entry's text is the same.
 */
export class MemoryRanking {
  readonly #counted = new Map<string, CountedEntry>()
  #query = 0

  #countedOf(key: string, entry: MemoryEntry): CountedEntry {
    const labels = labelsOf(entry)
    let counted = this.#counted.get(key)
    if (counted === undefined || counted.text !== entry.text || counted.labels !== labels) {
      const body = count(entry.text)
      const label = count(labels)
      counted = {
        text: entry.text,
        labels,
        body: body.counts,
        bodyLength: body.length,
        label: label.counts,
        used: 0,
      }
      this.#counted.set(key, counted)
    }
    counted.used = this.#query
    return counted
  }

  /**
   * The entries holding at least one of the terms, best first: by BM25F score, then newest first among
   * equal scores (`newestFirst` orders them). `keyOf` names an entry for the cache.
   */
  rank(
    entries: readonly MemoryEntry[],
    terms: readonly string[],
    keyOf: (entry: MemoryEntry) => string,
    newestFirst: (left: MemoryEntry, right: MemoryEntry) => number,
  ): Ranking {
    this.#query++
    const counted = entries.map((entry) => this.#countedOf(keyOf(entry), entry))
    this.#sweep()
    const documents = entries.length
    if (documents === 0 || terms.length === 0) return { ranked: [], idf: new Map() }
    let totalLength = 0
    for (const doc of counted) totalLength += doc.bodyLength
    const averageLength = Math.max(totalLength / documents, 1)
    const frequency = terms.map((term) => {
      let holding = 0
      for (const doc of counted) if (doc.body.has(term) || doc.label.has(term)) holding++
      return holding
    })
    // Lucene's IDF: always positive, so a term every entry holds still counts a little.
    const idf = frequency.map((holding) => Math.log(1 + (documents - holding + 0.5) / (holding + 0.5)))
    const ranked: RankedEntry[] = []
    counted.forEach((doc, index) => {
      const norm = 1 - B + (B * doc.bodyLength) / averageLength
      let score = 0
      let held = 0
      terms.forEach((term, termIndex) => {
        const weighted = (doc.body.get(term) ?? 0) / norm + LABEL_WEIGHT * (doc.label.get(term) ?? 0)
        if (weighted === 0) return
        held++
        score += (idf[termIndex]! * weighted * (K1 + 1)) / (weighted + K1)
      })
      if (held > 0) ranked.push({ entry: entries[index]!, score, terms: held })
    })
    ranked.sort((left, right) =>
      left.score !== right.score ? right.score - left.score : newestFirst(left.entry, right.entry),
    )
    return { ranked, idf: new Map(terms.map((term, index) => [term, idf[index]!])) }
  }

  /** Drops counts no query used lately: entries archived away, deleted, or always filtered out. */
  #sweep() {
    if (this.#query % IDLE_QUERIES !== 0) return
    for (const [key, doc] of this.#counted)
      if (this.#query - doc.used > IDLE_QUERIES) this.#counted.delete(key)
  }
}
