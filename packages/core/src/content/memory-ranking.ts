import type { MemoryEntry } from './memory-search'
import type { MemoryHitLocation } from './memory-tool-types'
import { type SearchQuery, termsOf } from './search-terms'

/*
 * Ranking of `memory_query`: BM25F over two fields of each entry — its text, and its labels (the tool
 * or role it came from, its type and tags, the input of the call it answers) — with IDF taken over the
 * entries the query searched (the ones its filters let through). Labels weigh more than a word of a
 * long text and are not normalised by length. Entries and their counted terms are kept between
 * queries, so a thread of 10 000 items is turned into text and tokenised once, not at every query.
 */

/** BM25's term-frequency saturation. */
const K1 = 1.2
/** BM25's length normalisation of the text field. */
const B = 0.75
/** How much a term of the labels counts against one of the text. */
const LABEL_WEIGHT = 2
/** Queries an entry may go unsearched before it is dropped from the cache. */
const IDLE_QUERIES = 20

/** An entry's terms, counted. */
export interface Counted {
  body: Map<string, number>
  bodyLength: number
  label: Map<string, number>
}

/** A cached entry: built once from an item or record that does not change. */
interface Cached {
  entry: MemoryEntry
  counted?: Counted
  /** The last query that used it. */
  used: number
}

/** An entry the query searches, with its cache key (none when it may still change). */
export interface KeyedEntry {
  key: string | undefined
  entry: MemoryEntry
}

/** An entry and its score; `terms` counts the query's terms it holds. */
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

function countTerms(text: string): { counts: Map<string, number>; length: number } {
  const counts = new Map<string, number>()
  const terms = termsOf(text)
  for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1)
  return { counts, length: terms.length }
}

/** An entry's terms counted in its two fields: its text, and its labels. */
export function countEntry(entry: MemoryEntry): Counted {
  const body = countTerms(entry.text)
  const labels = [entry.source ?? '', entry.type, ...entry.tags, entry.labels ?? ''].join(' ')
  return { body: body.counts, bodyLength: body.length, label: countTerms(labels).counts }
}

/** BM25's length normalisation of an entry `length` terms long, among entries `average` long. */
export const lengthNorm = (length: number, average: number) => 1 - B + (B * length) / average

/** Lucene's IDF of a term `holding` of `documents` entries hold: always positive. */
export const inverseFrequency = (documents: number, holding: number) =>
  Math.log(1 + (documents - holding + 0.5) / (holding + 0.5))

/** What one query term adds to an entry's BM25F score: its counts in the text and the labels. */
export function termScore(idf: number, body: number, label: number, norm: number): number {
  const weighted = body / norm + LABEL_WEIGHT * label
  return weighted === 0 ? 0 : (idf * weighted * (K1 + 1)) / (weighted + K1)
}

/**
 * What an identifier's parts count for together, against 1 for its whole, while some entry holds the
 * whole. Below 1 / (K1 + 1), so an entry holding the whole outranks every entry holding only parts: a
 * term adds at most K1 + 1 times its IDF, a whole held at least once adds at least its IDF (see
 * {@link QueryScorer}), and a part is almost never rarer than the whole (the entries holding `po7001`
 * hold `po` and `7001`; only a whole written as one plain word or number, `invoicetotal`, does not).
 */
const PARTS_WEIGHT = 0.4

/** How a query's terms score, once the entries holding each are counted. */
export interface QueryScorer {
  /** Each term's IDF, in the query's order. */
  idf: number[]
  /**
   * What term `term` adds to an entry of length normalisation `norm` holding it `body` times in its
   * text and `label` times in its labels: its BM25F score, times its weight. A part of an identifier
   * the query names whole counts at a share of {@link PARTS_WEIGHT} when some entry holds the whole
   * (in full when none does: the identifier is then only written in other forms). The whole of an
   * identifier is not weighed down by a long text (its normalisation is at most 1): an identifier
   * names one thing, and a long tool result holding it once is as much about it as a short one.
   */
  score(term: number, body: number, label: number, norm: number): number
}

/** The scorer of `query` over `documents` entries, `holding[t]` of which hold its term `t`. */
export function queryScorer(query: SearchQuery, documents: number, holding: readonly number[]): QueryScorer {
  // Lucene's IDF: always positive, so a term every entry holds still counts a little.
  const idf = holding.map((count) => inverseFrequency(documents, count))
  const weights = query.terms.map(() => 1)
  const wholes = query.terms.map(() => false)
  const parts = new Set<number>()
  for (const { whole, parts: of } of query.identifiers) {
    wholes[whole] = true
    const share = holding[whole] === 0 ? 1 : PARTS_WEIGHT / of.length
    for (const part of of) {
      // A part of several identifiers counts at its largest share.
      weights[part] = parts.has(part) ? Math.max(weights[part]!, share) : share
      parts.add(part)
    }
  }
  return {
    idf,
    score: (term, body, label, norm) =>
      weights[term]! * termScore(idf[term]!, body, label, wholes[term]! ? Math.min(norm, 1) : norm),
  }
}

/** Summaries and facts of the active log are found "in" `summary` and `fact`; the archive stays `archive`. */
const placed = (entry: MemoryEntry, where: MemoryHitLocation): MemoryEntry => {
  const wanted =
    where !== 'archive' && where !== 'content' && (entry.type === 'summary' || entry.type === 'fact')
      ? entry.type
      : where
  return entry.where === wanted ? entry : { ...entry, where: wanted }
}

/**
 * One thread's search state, kept between queries: the entries built from its items and records
 * (which do not change once written) and their counted terms. Call {@link begin} at each query.
 */
export class MemoryRanking {
  readonly #cache = new Map<string, Cached>()
  #query = 0

  /** Starts a query; every 20th drops what no query used lately (archived away, deleted, filtered out). */
  begin() {
    this.#query++
    if (this.#query % IDLE_QUERIES !== 0) return
    for (const [key, cached] of this.#cache)
      if (this.#query - cached.used > IDLE_QUERIES) this.#cache.delete(key)
  }

  /**
   * The entry of `key` at `where`: the cached one, or the one `build` gives, cached when `key` is set
   * (a key names something that will not change). Items are found under `where`, records in `content`.
   */
  entry(
    key: string | undefined,
    where: MemoryHitLocation,
    build: () => MemoryEntry | undefined,
  ): MemoryEntry | undefined {
    const cached = key === undefined ? undefined : this.#cache.get(key)
    if (cached !== undefined) {
      cached.used = this.#query
      return placed(cached.entry, where)
    }
    const entry = build()
    if (entry !== undefined && key !== undefined) this.#cache.set(key, { entry, used: this.#query })
    return entry
  }

  /**
   * The entries holding at least one of the query's terms, best first: by BM25F score (see
   * {@link queryScorer}), then newest first among equal scores (`newestFirst` orders them).
   */
  rank(
    entries: readonly KeyedEntry[],
    query: SearchQuery,
    newestFirst: (left: MemoryEntry, right: MemoryEntry) => number,
  ): Ranking {
    const documents = entries.length
    const { terms } = query
    if (documents === 0 || terms.length === 0) return { ranked: [], idf: new Map() }
    // One pass: each entry's counts of the query's terms, and how many entries hold each term.
    const holding = new Array<number>(terms.length).fill(0)
    const matched: { index: number; counted: Counted; body: number[]; label: number[] }[] = []
    let totalLength = 0
    entries.forEach(({ key, entry }, index) => {
      const counted = this.#counted(key, entry)
      totalLength += counted.bodyLength
      let body: number[] | undefined
      let label: number[] | undefined
      for (let term = 0; term < terms.length; term++) {
        const inBody = counted.body.get(terms[term]!) ?? 0
        const inLabel = counted.label.get(terms[term]!) ?? 0
        if (inBody === 0 && inLabel === 0) continue
        body ??= new Array<number>(terms.length).fill(0)
        label ??= new Array<number>(terms.length).fill(0)
        body[term] = inBody
        label[term] = inLabel
        holding[term]!++
      }
      if (body !== undefined && label !== undefined) matched.push({ index, counted, body, label })
    })
    const averageLength = Math.max(totalLength / documents, 1)
    const { idf, score: termScoreOf } = queryScorer(query, documents, holding)
    const ranked: RankedEntry[] = matched.map(({ index, counted, body, label }) => {
      const norm = lengthNorm(counted.bodyLength, averageLength)
      let score = 0
      let held = 0
      for (let term = 0; term < terms.length; term++) {
        if (body[term] === 0 && label[term] === 0) continue
        held++
        score += termScoreOf(term, body[term]!, label[term]!, norm)
      }
      return { entry: entries[index]!.entry, score, terms: held }
    })
    ranked.sort((left, right) =>
      left.score !== right.score ? right.score - left.score : newestFirst(left.entry, right.entry),
    )
    return { ranked, idf: new Map(terms.map((term, index) => [term, idf[index]!])) }
  }

  #counted(key: string | undefined, entry: MemoryEntry): Counted {
    const cached = key === undefined ? undefined : this.#cache.get(key)
    if (cached === undefined) return countEntry(entry)
    cached.counted ??= countEntry(entry)
    return cached.counted
  }
}
