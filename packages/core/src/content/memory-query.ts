import { StrataError } from '../errors'
import type { Item } from '../items'
import { normalizeFactText } from '../items/facts'
import { readArchiveRange } from '../stores/archive-pages'
import { contentMethods } from '../stores/store-check'
import { utf8Length } from './content-size'
import type { ContentSpaces } from './content-spaces'
import { type EntryFilter, entriesOf, searchIndex } from './index-search'
import { type KeyedEntry, MemoryRanking } from './memory-ranking'
import { compareEntriesNewestFirst, type MemoryEntry, snippetOf } from './memory-search'
import type { MemoryHitLocation, MemoryQueryOutput } from './memory-tool-types'
import { type SearchQuery, searchQuery } from './search-terms'
import { isEchoRecord, pendingCall, searchedEntry, searchedRecord, ToolCalls } from './searched-entries'
import { ThreadIndex } from './thread-index'
import { type CheckedQuery, checkQueryInput } from './tool-input'

/** Each thread's ranking cache, kept as long as its content channel. */
const rankings = new WeakMap<ContentSpaces, MemoryRanking>()

/** Each thread's search state, created at its first query. */
function rankingOf(spaces: ContentSpaces): MemoryRanking {
  let ranking = rankings.get(spaces)
  if (ranking === undefined) {
    ranking = new MemoryRanking()
    rankings.set(spaces, ranking)
  }
  return ranking
}

/** True when a checked `memory_query` input has a filter besides its words. */
export const hasFilters = (query: CheckedQuery) =>
  query.type !== undefined ||
  query.source !== undefined ||
  query.level !== undefined ||
  query.fromTs !== undefined ||
  query.toTs !== undefined ||
  query.tags !== undefined

/** The filters of a checked `memory_query` input, as one test of an entry. */
export function entryFilter(
  query: CheckedQuery,
): (entry: Pick<MemoryEntry, 'type' | 'source' | 'level' | 'ts' | 'tags'>) => boolean {
  return (entry) =>
    (query.type === undefined || entry.type === query.type) &&
    (query.source === undefined || entry.source === query.source) &&
    (query.level === undefined || entry.level === query.level) &&
    (query.fromTs === undefined || entry.ts >= query.fromTs) &&
    (query.toTs === undefined || entry.ts <= query.toTs) &&
    (query.tags === undefined || query.tags.every((tag) => entry.tags.includes(tag)))
}

/**
 * Finds memories (`memory_query`) in everything the thread ever held: its content, the active log (in
 * and out of view), the archive, summaries and facts — not the memory and scope tools' own calls and
 * results. Every filter given must match. With `text`, entries holding any of its words are ranked
 * best first (BM25F, see {@link MemoryRanking}), with a snippet where the words meet; without it, all
 * matching entries newest first. At most `limit` (10).
 *
 * A thread reading its own content searches an index kept between queries ({@link ThreadIndex}, as a
 * resource's query does): a query reads the thread's head, what was appended since the last one and
 * the content records stored since, never the whole history again; any other change (a compaction
 * that archived, a rewind) builds it again from the store. A thread that reads another's content
 * (a sub-agent's binding) is searched whole at each query.
 */
export async function queryMemory(spaces: ContentSpaces, input: unknown): Promise<MemoryQueryOutput> {
  const query = checkQueryInput(input)
  const { store, threadId, levels } = spaces.deps
  if (query.level !== undefined && levels !== undefined && !levels.includes(query.level)) {
    throw new StrataError({
      code: 'STRATA_INVALID_LEVEL',
      message: `memory_query: level ${JSON.stringify(query.level)} is not a level of this memory; use one of ${levels.map((level) => `"${level}"`).join(', ')}, or leave level out.`,
      details: { level: query.level, levels: [...levels] },
    })
  }
  // Refused as before when the store keeps no content.
  contentMethods(store, 'memory_query')
  const matches = entryFilter(query)
  const words = searchQuery(query.words.join(' '))
  const { terms } = words
  const own = QUERY_INDEX.own && spaces.readSpaces.length === 1 && spaces.readSpaces[0] === threadId
  const { hits, weights } = await (own ? searchIndexed : searchWhole)(spaces, query, matches, words)
  return {
    results: hits.map(({ text, json: _json, order: _order, labels: _labels, ...hit }) => ({
      ...hit,
      size: utf8Length(text),
      snippet: snippetOf(text, terms, weights),
    })),
  }
}

/** Whether a thread reading only its own content searches its index (tests compare it with the whole search). */
export const QUERY_INDEX = { own: true }

/** What a search gives: the best entries, and each query term's weight for the snippets. */
interface Found {
  hits: MemoryEntry[]
  weights: ReadonlyMap<string, number> | undefined
}

/**
 * Each thread's own search index, kept as long as its content channel, or until the memory's bound on
 * indexed entries drops it (the next query builds it again).
 */
const indexes = new WeakMap<ContentSpaces, { index: ThreadIndex; clear(): void }>()

/** A search of what a thread reads, for a checked query, its filters and its words. */
type Search = (
  spaces: ContentSpaces,
  query: CheckedQuery,
  matches: EntryFilter,
  words: SearchQuery,
) => Promise<Found>

/** The thread's own content and history, searched through its index brought up to date. */
const searchIndexed: Search = async (spaces, query, matches, words) => {
  const { store, threadId } = spaces.deps
  let held = indexes.get(spaces)
  if (held === undefined) {
    held = { index: new ThreadIndex(threadId), clear: () => indexes.delete(spaces) }
    indexes.set(spaces, held)
  }
  const { index } = held
  // Records stored without an append (by this process or another) are read too, by their time.
  index.contentStored()
  await index.sync(store)
  spaces.deps.indexes?.used(held, index.size)
  const viewIds = await spaces.deps.viewIds()
  let hits: MemoryEntry[]
  let weights: ReadonlyMap<string, number> | undefined
  if (words.terms.length === 0) {
    hits = entriesOf([index], matches)
      .map(({ entry }) => entry)
      .sort(compareEntriesNewestFirst)
      .slice(0, query.limit)
  } else {
    const ranked = searchIndex([index], words, matches, query.limit)
    hits = ranked.ranked.map(({ indexed }) => indexed.entry)
    weights = ranked.idf
  }
  // The index tells active items from archived ones; the view is the thread's now.
  return {
    hits: hits.map((entry) =>
      entry.where === 'out-of-view' && viewIds.has(entry.id) ? { ...entry, where: 'view' } : entry,
    ),
    weights,
  }
}

/** Everything the thread reads, read from the store and ranked at each query. */
const searchWhole: Search = async (spaces, query, matches, words) => {
  const { store, threadId } = spaces.deps
  const { items, viewIds } = await spaces.deps.history()
  // Everything the thread held is searched; the archive is read a page at a time.
  const archived = await readArchiveRange(store, threadId)
  const calls = new ToolCalls()
  calls.add(archived)
  calls.add(items)

  const ranking = rankingOf(spaces)
  ranking.begin()
  const found: KeyedEntry[] = []
  const take = (key: string | undefined, entry: MemoryEntry | undefined) => {
    if (entry !== undefined && matches(entry)) found.push({ key, entry })
  }
  const seen = new Set<string>()
  for (const space of spaces.readSpaces) {
    // The store narrows content by its own filters; the words are ranked here, over every entry.
    const records = await contentMethods(store, 'memory_query').queryContent(space, {
      ...(query.type === undefined ? {} : { type: query.type }),
      ...(query.source === undefined ? {} : { source: query.source }),
      ...(query.level === undefined ? {} : { level: query.level }),
      ...(query.tags === undefined ? {} : { tags: query.tags }),
      ...(query.fromTs === undefined ? {} : { fromTs: query.fromTs }),
      ...(query.toTs === undefined ? {} : { toTs: query.toTs }),
    })
    for (const record of records) {
      if (seen.has(record.id) || isEchoRecord(record.source)) continue
      seen.add(record.id)
      // A record replaced under its id (an import) has another size or time.
      const key = `c:${record.id}:${record.ts}:${record.size}`
      take(
        key,
        ranking.entry(key, 'content', () => searchedRecord(record, calls)),
      )
    }
  }
  const takeItem = (item: Item, where: MemoryHitLocation) => {
    // An item does not change once written; one holding a call without its result yet can still lose it.
    const key = pendingCall(item, calls) ? undefined : `i:${item.id}:${item.seq}:${item.ts}`
    take(
      key,
      ranking.entry(key, where, () => searchedEntry(item, where, calls)),
    )
  }
  for (const item of items) takeItem(item, viewIds.has(item.id) ? 'view' : 'out-of-view')
  for (const item of archived) takeItem(item, 'archive')
  const entries = distinctFacts(found)
  let hits: MemoryEntry[]
  let weights: ReadonlyMap<string, number> | undefined
  if (words.terms.length === 0) {
    hits = entries
      .map(({ entry }) => entry)
      .sort(compareEntriesNewestFirst)
      .slice(0, query.limit)
  } else {
    const ranked = ranking.rank(entries, words, compareEntriesNewestFirst)
    hits = ranked.ranked.slice(0, query.limit).map(({ entry }) => entry)
    weights = ranked.idf
  }
  return { hits, weights }
}

/** A fact extracted again (a later confidence) is one fact, as in the context: its newest item. */
export function distinctFacts(entries: KeyedEntry[]): KeyedEntry[] {
  const newest = new Map<string, MemoryEntry>()
  for (const { entry } of entries) {
    if (entry.type !== 'fact') continue
    const key = normalizeFactText(entry.text)
    const kept = newest.get(key)
    if (kept === undefined || compareEntriesNewestFirst(entry, kept) < 0) newest.set(key, entry)
  }
  return entries.filter(
    ({ entry }) => entry.type !== 'fact' || newest.get(normalizeFactText(entry.text)) === entry,
  )
}
