import { StrataError } from '../errors'
import type { Item, MessageItem } from '../items'
import { readArchivePages } from '../stores/archive-pages'
import { PART_ID_SEPARATOR, referenceOf } from './content-reference'
import { utf8Length } from './content-size'
import type { ContentSpaces } from './content-spaces'
import { contentEntry, itemEntry, type MemoryEntry } from './memory-search'
import type { MemoryHitLocation, MemoryRetrieveOutput } from './memory-tool-types'
import { applyTransform } from './retrieve-transform'
import { checkRetrieveInput } from './tool-input'

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
  const { content, truncated, note } = applyTransform(entry.text, entry.json, parameters)
  return {
    id,
    where: entry.where,
    type: entry.type,
    transform: parameters.transform,
    content,
    size: utf8Length(entry.text),
    truncated,
    ...(note === undefined ? {} : { note }),
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
  const active = await findActive(spaces, id)
  if (active !== undefined) return partEntry(spaces, active, id, active.inView ? 'view' : 'out-of-view')
  const archived = await findArchived(spaces, id)
  return archived === undefined ? undefined : partEntry(spaces, archived, id, 'archive')
}

/**
 * An active item (or part) by id, and whether the view shows it: the item itself, else the message it
 * names a part of. Only that item is read back when an open sealed it.
 */
async function findActive(spaces: ContentSpaces, id: string) {
  const whole = await spaces.deps.activeItem(id)
  if (whole !== undefined) return { item: whole.item, inView: whole.inView }
  const at = id.lastIndexOf(PART_ID_SEPARATOR)
  if (at <= 0 || !/^\d+$/.test(id.slice(at + 1))) return undefined
  const owner = await spaces.deps.activeItem(id.slice(0, at))
  const found = owner === undefined ? undefined : locate([owner.item], id)
  return found === undefined ? undefined : { ...found, inView: owner!.inView }
}

/** An archived item (or part) by id: the item itself, else the message it names a part of. */
async function findArchived(spaces: ContentSpaces, id: string) {
  const { archivedItem } = spaces.deps
  const find = async (itemId: string) => {
    if (archivedItem !== undefined) return archivedItem(itemId)
    for await (const page of readArchivePages(spaces.deps.store, spaces.deps.threadId)) {
      const found = page.find((item) => item.id === itemId)
      if (found !== undefined) return found
    }
    return undefined
  }
  const item = await find(id)
  if (item !== undefined) return { item }
  const at = id.lastIndexOf(PART_ID_SEPARATOR)
  if (at <= 0 || !/^\d+$/.test(id.slice(at + 1))) return undefined
  const owner = await find(id.slice(0, at))
  return owner === undefined ? undefined : locate([owner], id)
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
