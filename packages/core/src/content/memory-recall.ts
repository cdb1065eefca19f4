import { StrataError } from '../errors'
import type { Item, MessageItem } from '../items'
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

/** The entry of an id: content first, then the active log, then the archive. */
async function findEntry(spaces: ContentSpaces, id: string): Promise<MemoryEntry | undefined> {
  const record = await spaces.get(id)
  if (record !== undefined) return contentEntry(record)
  const { items, viewIds } = await spaces.deps.history()
  const active = items.find((item) => item.id === id)
  if (active !== undefined) return citedEntry(active, viewIds.has(id) ? 'view' : 'out-of-view')
  const archived = (await spaces.deps.store.readArchive(spaces.deps.threadId)).find((item) => item.id === id)
  return archived === undefined ? undefined : citedEntry(archived, 'archive')
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
