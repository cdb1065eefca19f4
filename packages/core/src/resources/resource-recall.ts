import { utf8Length } from '../content/content-size'
import type { IndexSearch } from '../content/index-search'
import { compareEntriesNewestFirst, type MemoryEntry, snippetOf } from '../content/memory-search'
import type { MemoryQueryHit } from '../content/memory-tool-types'
import type { IndexedEntry, Origin } from '../content/thread-index'
import type { Item } from '../items'
import type { ContentRecord, StrataStoreBase } from '../stores'
import { readArchiveRange } from '../stores/archive-pages'
import { hasContentMethods } from '../stores/store-check'
import type { ResourceQueryHit } from './resource-types'

/** What one thread holds that a resource query searches. */
export interface ThreadData {
  threadId: string
  /** The active log, oldest first. */
  items: readonly Item[]
  archived: readonly Item[]
  /** The thread's own content records (none when the store keeps no content). */
  records: readonly ContentRecord[]
}

/** Reads what a query or the facts of a resource need of one thread. */
export async function readThreadData(store: StrataStoreBase, threadId: string): Promise<ThreadData> {
  const [items, archived, records] = await Promise.all([
    store.read(threadId),
    readArchiveRange(store, threadId),
    hasContentMethods(store) ? store.queryContent(threadId) : Promise.resolve([]),
  ])
  return { threadId, items, archived, records }
}

/** A ranked entry of a resource query, with where it came from. */
export interface RankedHit {
  origin: Origin
  entry: MemoryEntry
  score: number
  snippet: string
}

/** The id an entry's vector is stored under in its thread: `item:<seq>` (facts too) or `content:<id>`. */
export const vectorIdOf = (origin: Origin) =>
  origin.kind === 'content' ? `content:${origin.memoryId}` : `item:${origin.seq}`

/** Reciprocal rank fusion's constant: how little the first ranks count more than the next. */
const RRF_K = 60
/** How many of the best semantic matches take part in the fusion, per hit asked for. */
const SEMANTIC_DEPTH = 10

/** The `limit` newest entries, for a query without a word to rank by (score 0). */
export function newestHits(entries: readonly IndexedEntry[], limit: number): RankedHit[] {
  return [...entries]
    .sort((left, right) => compareEntriesNewestFirst(left.entry, right.entry))
    .slice(0, limit)
    .map(({ entry, origin }) => ({ origin, entry, score: 0, snippet: snippetOf(entry.text, []) }))
}

/**
 * The best `limit` of a word ranking: BM25F alone, or with `similarity` (cosine to the query, from an
 * embedder) fused with it by reciprocal rank fusion, so an entry that says the same in other words is
 * found too.
 */
export function rankedHits(
  { ranked, idf }: IndexSearch,
  terms: readonly string[],
  limit: number,
  similarity?: ReadonlyMap<IndexedEntry, number>,
): RankedHit[] {
  const hit = (indexed: IndexedEntry, score: number): RankedHit => ({
    origin: indexed.origin,
    entry: indexed.entry,
    score,
    snippet: snippetOf(indexed.entry.text, terms, idf),
  })
  if (similarity === undefined || similarity.size === 0)
    return ranked.slice(0, limit).map(({ indexed, score }) => hit(indexed, score))
  const newestFirst = (left: IndexedEntry, right: IndexedEntry) =>
    compareEntriesNewestFirst(left.entry, right.entry)
  const fused = new Map<IndexedEntry, number>()
  ranked.forEach(({ indexed }, index) => {
    fused.set(indexed, 1 / (RRF_K + index + 1))
  })
  const semantic = [...similarity]
    .filter(([, cosine]) => cosine > 0)
    .sort(([left, a], [right, b]) => b - a || newestFirst(left, right))
    .slice(0, Math.max(limit * SEMANTIC_DEPTH, 50))
  semantic.forEach(([indexed], index) => {
    fused.set(indexed, (fused.get(indexed) ?? 0) + 1 / (RRF_K + index + 1))
  })
  return [...fused]
    .sort(([left, a], [right, b]) => b - a || newestFirst(left, right))
    .slice(0, limit)
    .map(([indexed, score]) => hit(indexed, score))
}

/** A ranked hit as `resource.query` gives it. */
export function publicHit({ origin, snippet, score }: RankedHit): ResourceQueryHit {
  return {
    threadId: origin.threadId,
    seq: origin.seq,
    kind: origin.kind,
    ...(origin.memoryId === undefined ? {} : { memoryId: origin.memoryId }),
    snippet,
    score,
  }
}

/** A ranked hit as `memory_query` with `scope: 'resource'` gives it. */
export function toolHit({ origin, entry, snippet }: RankedHit): MemoryQueryHit {
  const { text, json: _json, order: _order, labels: _labels, ...hit } = entry
  return { ...hit, size: utf8Length(text), snippet, threadId: origin.threadId, seq: origin.seq }
}
