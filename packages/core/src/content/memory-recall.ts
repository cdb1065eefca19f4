import { StrataError } from '../errors'
import type { Item, MessageItem } from '../items'
import { normalizeFactText } from '../items/facts'
import { contentMethods } from '../stores/store-check'
import { PART_ID_SEPARATOR, referenceOf } from './content-reference'
import { utf8Length } from './content-size'
import type { ContentSpaces } from './content-spaces'
import {
  compareEntriesNewestFirst,
  containsWords,
  contentEntry,
  itemEntry,
  type MemoryEntry,
  snippetOf,
} from './memory-search'
import type { MemoryHitLocation, MemoryQueryOutput, MemoryRetrieveOutput } from './memory-tool-types'
import { applyTransform } from './retrieve-transform'
import { checkQueryInput, checkRetrieveInput } from './tool-input'

/**
 * Reads a memory back (`memory_retrieve`): stored content by memory id, or any item of the log or the
 * archive by item id, shaped by a transform. `STRATA_MEMORY_NOT_FOUND` for an unknown id.
 */
export async function retrieveMemory(spaces: ContentSpaces, input: unknown): Promise<MemoryRetrieveOutput> {
  const { id, ...parameters } = checkRetrieveInput(input)
  const entry = await findEntry(spaces, id)
  if (entry === undefined) {
    throw new StrataError({
      code: 'STRATA_MEMORY_NOT_FOUND',
      message: `memory_retrieve: no memory with id '${id}' in thread '${spaces.deps.threadId}'. Use an id from a citation ("Memory id: …") or from memory_query results.`,
      details: { id },
    })
  }
  const { content, truncated } = applyTransform(entry.text, entry.json, parameters)
  return {
    id,
    where: entry.where,
    type: entry.type,
    transform: parameters.transform,
    content,
    size: utf8Length(entry.text),
    truncated,
  }
}

/**
 * Finds memories (`memory_query`) in everything the thread ever held: its content, the active log (in
 * and out of view), the archive, summaries and facts. Every filter given must match; words of `text`
 * must all occur, case-insensitively. Newest first, at most `limit` (10).
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
  const matches = (entry: MemoryEntry) =>
    (query.type === undefined || entry.type === query.type) &&
    (query.source === undefined || entry.source === query.source) &&
    (query.level === undefined || entry.level === query.level) &&
    (query.fromTs === undefined || entry.ts >= query.fromTs) &&
    (query.toTs === undefined || entry.ts <= query.toTs) &&
    (query.tags === undefined || query.tags.every((tag) => entry.tags.includes(tag))) &&
    containsWords(entry.text, query.words)

  const found: MemoryEntry[] = []
  const seen = new Set<string>()
  // The store narrows content by its own filters and the longest word; the words are checked here.
  const longest = query.words.reduce<string | undefined>(
    (best, word) => (best === undefined || word.length > best.length ? word : best),
    undefined,
  )
  for (const space of spaces.readSpaces) {
    const records = await contentMethods(store, 'memory_query').queryContent(space, {
      ...(query.type === undefined ? {} : { type: query.type }),
      ...(query.source === undefined ? {} : { source: query.source }),
      ...(query.level === undefined ? {} : { level: query.level }),
      ...(query.tags === undefined ? {} : { tags: query.tags }),
      ...(query.fromTs === undefined ? {} : { fromTs: query.fromTs }),
      ...(query.toTs === undefined ? {} : { toTs: query.toTs }),
      ...(longest === undefined ? {} : { text: longest }),
    })
    for (const record of records) {
      if (seen.has(record.id)) continue
      seen.add(record.id)
      const entry = contentEntry(record)
      if (matches(entry)) found.push(entry)
    }
  }
  const { items, viewIds } = await spaces.deps.history()
  for (const item of items) {
    const entry = itemEntry(item, viewIds.has(item.id) ? 'view' : 'out-of-view')
    if (entry !== undefined && matches(entry)) found.push(entry)
  }
  for (const item of await store.readArchive(threadId)) {
    const entry = itemEntry(item, 'archive')
    if (entry !== undefined && matches(entry)) found.push(entry)
  }
  found.sort(compareEntriesNewestFirst)
  // A fact extracted again (a later confidence) is one fact, as in the context: its newest item.
  const facts = new Set<string>()
  const hits = found.filter((entry) => {
    if (entry.type !== 'fact') return true
    const key = normalizeFactText(entry.text)
    if (facts.has(key)) return false
    facts.add(key)
    return true
  })
  return {
    results: hits.slice(0, query.limit).map(({ text, json: _json, order: _order, ...hit }) => ({
      ...hit,
      size: utf8Length(text),
      snippet: snippetOf(text, query.words),
    })),
  }
}

/**
 * The entry of an id: content first, then the active log, then the archive. An item id answers with
 * the item; `<item id>#<index>` (the id a context's note gives for one part of a message of several)
 * with that part alone. A part that cites stored content answers with the content, so every id a
 * context names returns the whole original.
 */
async function findEntry(spaces: ContentSpaces, id: string): Promise<MemoryEntry | undefined> {
  const record = await spaces.get(id)
  if (record !== undefined) return contentEntry(record)
  const { items, viewIds } = await spaces.deps.history()
  const active = locate(items, id)
  if (active !== undefined) {
    return partEntry(spaces, active, id, viewIds.has(active.item.id) ? 'view' : 'out-of-view')
  }
  const archived = locate(await spaces.deps.store.readArchive(spaces.deps.threadId), id)
  return archived === undefined ? undefined : partEntry(spaces, archived, id, 'archive')
}

/** The item an id names, and the part when it names one (`<item id>#<index>`). */
function locate(items: readonly Item[], id: string): { item: Item; part?: number } | undefined {
  const item = items.find((candidate) => candidate.id === id)
  if (item !== undefined) return { item }
  const at = id.lastIndexOf(PART_ID_SEPARATOR)
  if (at <= 0) return undefined
  const index = id.slice(at + 1)
  if (!/^\d+$/.test(index)) return undefined
  const owner = items.find((candidate) => candidate.id === id.slice(0, at))
  if (owner?.type !== 'message' || Number(index) >= owner.content.length) return undefined
  return { item: owner, part: Number(index) }
}

/** The entry of an item, or of one of its parts; a lone citation answers with the content it cites. */
async function partEntry(
  spaces: ContentSpaces,
  { item, part }: { item: Item; part?: number },
  id: string,
  where: MemoryHitLocation,
): Promise<MemoryEntry> {
  if (item.type !== 'message') return citedEntry(item, where)
  const parts = part === undefined ? item.content : [item.content[part]!]
  const reference = parts.length === 1 ? referenceOf(parts[0]!) : undefined
  if (reference !== undefined) {
    const record = await spaces.get(reference.id)
    if (record !== undefined) return { ...contentEntry(record), id }
  }
  return { ...citedEntry(part === undefined ? item : ({ ...item, content: parts } as Item), where), id }
}

/** An item's entry for retrieval; a message made only of citations is retrieved as those citations. */
function citedEntry(item: Item, where: MemoryHitLocation): MemoryEntry {
  const entry = itemEntry(item, where)
  if (entry !== undefined) return entry
  const message = item as MessageItem
  const text = message.content
    .map((part) =>
      part.type === 'tool-result' ? String(part.output) : part.type === 'text' ? part.text : '',
    )
    .join('\n')
  return {
    id: item.id,
    where,
    type: 'message',
    source: message.role,
    level: item.level,
    ts: item.ts,
    tags: [],
    text,
    json: false,
    order: item.seq,
  }
}
