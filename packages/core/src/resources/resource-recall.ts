import { referenceOf } from '../content/content-reference'
import { utf8Length } from '../content/content-size'
import { distinctFacts, isEchoRecord, pendingCall, searchedEntry, ToolCalls } from '../content/memory-query'
import type { KeyedEntry, MemoryRanking } from '../content/memory-ranking'
import {
  compareEntriesNewestFirst,
  contentEntry,
  type MemoryEntry,
  snippetOf,
} from '../content/memory-search'
import type { MemoryQueryHit } from '../content/memory-tool-types'
import { queryTerms } from '../content/search-terms'
import type { Item } from '../items'
import type { ContentRecord, StrataStoreBase } from '../stores'
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
    store.readArchive(threadId),
    hasContentMethods(store) ? store.queryContent(threadId) : Promise.resolve([]),
  ])
  return { threadId, items, archived, records }
}

/** Where a ranked entry came from. */
export interface Origin {
  threadId: string
  seq: number
  kind: ResourceQueryHit['kind']
  memoryId?: string
}

/**
 * The seq a content record is shown at: the item whose part cites it, or else (content stored by a
 * tool, `memory_store`) the newest item written before it; 0 in a thread with no such item.
 */
function contentSeqs(thread: ThreadData): (record: ContentRecord) => number {
  const citing = new Map<string, number>()
  const all = [...thread.archived, ...thread.items].sort((left, right) => left.seq - right.seq)
  for (const item of all) {
    if (item.type !== 'message') continue
    for (const part of item.content) {
      const reference = referenceOf(part)
      if (reference !== undefined && !citing.has(reference.id)) citing.set(reference.id, item.seq)
    }
  }
  return (record) => {
    const cited = citing.get(record.id)
    if (cited !== undefined) return cited
    let seq = 0
    for (const item of all) if (item.ts <= record.ts) seq = item.seq
    return seq
  }
}

/** A ranked entry of a resource query, with where it came from. */
export interface RankedHit {
  origin: Origin
  entry: MemoryEntry
  score: number
  snippet: string
}

/** The entries of a resource query and where each came from. */
export interface CollectedEntries {
  entries: KeyedEntry[]
  origins: Map<MemoryEntry, Origin>
}

/** The id an entry's vector is stored under in its thread: `item:<seq>` (facts too) or `content:<id>`. */
export const vectorIdOf = (origin: Origin) =>
  origin.kind === 'content' ? `content:${origin.memoryId}` : `item:${origin.seq}`

/**
 * What the threads hold as searchable entries — items of the active logs and archives (messages,
 * summaries, transitions), facts (the same fact once), and offloaded content — not the memory and
 * scope tools' own calls and results. `matches` filters them (memory_query's filters); `ranking`
 * keeps their counted terms between queries.
 */
export function collectEntries(
  threads: readonly ThreadData[],
  ranking: MemoryRanking,
  matches: (entry: MemoryEntry) => boolean = () => true,
): CollectedEntries {
  ranking.begin()
  const found: KeyedEntry[] = []
  const origins = new Map<MemoryEntry, Origin>()
  const take = (key: string | undefined, entry: MemoryEntry | undefined, origin: Origin) => {
    if (entry === undefined || !matches(entry)) return
    found.push({ key, entry })
    origins.set(entry, origin)
  }
  for (const thread of threads) {
    const { threadId } = thread
    const calls = new ToolCalls()
    calls.add(thread.archived)
    calls.add(thread.items)
    const seqOf = contentSeqs(thread)
    for (const record of thread.records) {
      if (isEchoRecord(record.source)) continue
      const key = `${threadId}|c:${record.id}:${record.ts}:${record.size}`
      const entry = ranking.entry(key, 'content', () => contentEntry(record))
      take(key, entry, { threadId, seq: seqOf(record), kind: 'content', memoryId: record.id })
    }
    const takeItem = (item: Item, where: 'out-of-view' | 'archive') => {
      const key = pendingCall(item, calls) ? undefined : `${threadId}|i:${item.id}:${item.seq}:${item.ts}`
      const entry = ranking.entry(key, where, () => searchedEntry(item, where, calls))
      take(key, entry, { threadId, seq: item.seq, kind: item.type === 'fact' ? 'fact' : 'item' })
    }
    for (const item of thread.items) takeItem(item, 'out-of-view')
    for (const item of thread.archived) takeItem(item, 'archive')
  }
  return { entries: distinctFacts(found), origins }
}

/** Reciprocal rank fusion's constant: how little the first ranks count more than the next. */
const RRF_K = 60
/** How many of the best semantic matches take part in the fusion, per hit asked for. */
const SEMANTIC_DEPTH = 10

/**
 * Ranks collected entries: by BM25F over all of them at once (IDF over the resource), best first;
 * with `similarity` (cosine to the query, from an embedder), BM25 and semantic ranks are fused
 * (reciprocal rank fusion), so an entry that says the same in other words is found too. Without a
 * word to rank by, newest first (score 0).
 */
export function rankEntries(
  { entries, origins }: CollectedEntries,
  text: string,
  limit: number,
  ranking: MemoryRanking,
  similarity?: ReadonlyMap<MemoryEntry, number>,
): RankedHit[] {
  const terms = queryTerms(text)
  if (terms.length === 0) {
    return entries
      .map(({ entry }) => entry)
      .sort(compareEntriesNewestFirst)
      .slice(0, limit)
      .map((entry) => ({ origin: origins.get(entry)!, entry, score: 0, snippet: snippetOf(entry.text, []) }))
  }
  const { ranked, idf } = ranking.rank(entries, terms, compareEntriesNewestFirst)
  const hit = (entry: MemoryEntry, score: number): RankedHit => ({
    origin: origins.get(entry)!,
    entry,
    score,
    snippet: snippetOf(entry.text, terms, idf),
  })
  if (similarity === undefined || similarity.size === 0)
    return ranked.slice(0, limit).map(({ entry, score }) => hit(entry, score))
  const fused = new Map<MemoryEntry, number>()
  ranked.forEach(({ entry }, index) => {
    fused.set(entry, 1 / (RRF_K + index + 1))
  })
  const semantic = [...similarity]
    .filter(([, cosine]) => cosine > 0)
    .sort(([left, a], [right, b]) => b - a || compareEntriesNewestFirst(left, right))
    .slice(0, Math.max(limit * SEMANTIC_DEPTH, 50))
  semantic.forEach(([entry], index) => {
    fused.set(entry, (fused.get(entry) ?? 0) + 1 / (RRF_K + index + 1))
  })
  return [...fused]
    .sort(([left, a], [right, b]) => b - a || compareEntriesNewestFirst(left, right))
    .slice(0, limit)
    .map(([entry, score]) => hit(entry, score))
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
