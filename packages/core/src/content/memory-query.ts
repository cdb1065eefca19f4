import { StrataError } from '../errors'
import type { Item, JsonValue } from '../items'
import { normalizeFactText } from '../items/facts'
import { readArchiveRange } from '../stores/archive-pages'
import { contentMethods } from '../stores/store-check'
import { utf8Length } from './content-size'
import type { ContentSpaces } from './content-spaces'
import { type KeyedEntry, MemoryRanking } from './memory-ranking'
import {
  compareEntriesNewestFirst,
  contentEntry,
  itemEntry,
  type MemoryEntry,
  snippetOf,
} from './memory-search'
import type { MemoryHitLocation, MemoryQueryOutput } from './memory-tool-types'
import { queryTerms } from './search-terms'
import { type CheckedQuery, checkQueryInput } from './tool-input'

/**
 * Tools whose calls and results `memory_query` never returns: the memory tools echo what memory holds
 * (a query's hits, a retrieved copy, the stored text, which is found as its content record), and the
 * scope tools echo what the scope's opening, transition and summary items hold.
 */
export const ECHO_TOOLS: ReadonlySet<string> = new Set([
  'memory_query',
  'memory_retrieve',
  'memory_store',
  'enter_scope',
  'exit_scope',
])

/** Content records the memory tools wrote as copies (a retrieve offloaded again) are echoes too. */
export const isEchoRecord = (source: string | undefined) =>
  source !== undefined && source !== 'memory_store' && ECHO_TOOLS.has(source)

/**
 * The tool calls of a thread: each call's input, and which calls have a result. A call and its result
 * are one unit: the result is what a search should find, and it is found by the call's input too.
 */
export class ToolCalls {
  readonly #inputs = new Map<string, JsonValue>()
  readonly answered = new Set<string>()

  add(items: readonly Item[]) {
    for (const item of items) {
      if (item.type !== 'message') continue
      for (const part of item.content) {
        if (part.type === 'tool-call') this.#inputs.set(part.toolCallId, part.input)
        else if (part.type === 'tool-result') this.answered.add(part.toolCallId)
      }
    }
  }

  /** The inputs of the calls `toolCallIds` name, as one text. */
  inputsOf(toolCallIds: readonly string[]): string | undefined {
    const inputs = toolCallIds.flatMap((id) =>
      this.#inputs.has(id) ? [JSON.stringify(this.#inputs.get(id)) ?? ''] : [],
    )
    return inputs.length === 0 ? undefined : inputs.join(' ')
  }
}

/** True when an item's entry can change: it holds a call whose result has not come yet. */
export const pendingCall = (item: Item, calls: ToolCalls) =>
  item.type === 'message' &&
  item.content.some((part) => part.type === 'tool-call' && !calls.answered.has(part.toolCallId))

/**
 * An item as the query searches it: without its parts that call or answer an echoing tool, nor calls
 * that have a result (the result stands for both); undefined when nothing else is left.
 */
export function searchedEntry(
  item: Item,
  where: MemoryHitLocation,
  calls: ToolCalls,
): MemoryEntry | undefined {
  if (item.type !== 'message') return itemEntry(item, where)
  const kept = item.content.filter((part) => {
    if (part.type !== 'tool-call' && part.type !== 'tool-result') return true
    if (ECHO_TOOLS.has(part.toolName)) return false
    return part.type === 'tool-result' || !calls.answered.has(part.toolCallId)
  })
  if (kept.length === 0) return undefined
  const entry = itemEntry(kept.length === item.content.length ? item : { ...item, content: kept }, where)
  const labels = calls.inputsOf(
    kept.flatMap((part) => (part.type === 'tool-result' ? [part.toolCallId] : [])),
  )
  if (entry !== undefined && labels !== undefined) entry.labels = labels
  return entry
}

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
  const matches = entryFilter(query)

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
        ranking.entry(key, 'content', () => {
          const entry = contentEntry(record)
          const toolCallId = record.meta?.toolCallId
          const labels = typeof toolCallId === 'string' ? calls.inputsOf([toolCallId]) : undefined
          if (labels !== undefined) entry.labels = labels
          return entry
        }),
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

  const terms = queryTerms(query.words.join(' '))
  let hits: MemoryEntry[]
  let weights: ReadonlyMap<string, number> | undefined
  if (terms.length === 0) {
    hits = entries
      .map(({ entry }) => entry)
      .sort(compareEntriesNewestFirst)
      .slice(0, query.limit)
  } else {
    const ranked = ranking.rank(entries, terms, compareEntriesNewestFirst)
    hits = ranked.ranked.slice(0, query.limit).map(({ entry }) => entry)
    weights = ranked.idf
  }
  return {
    results: hits.map(({ text, json: _json, order: _order, labels: _labels, ...hit }) => ({
      ...hit,
      size: utf8Length(text),
      snippet: snippetOf(text, terms, weights),
    })),
  }
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
