import { normalizeFactText } from '../compaction/facts'
import { StrataError } from '../errors'
import type { Item, JsonValue, MessageItem, MessagePart, UnsequencedItem } from '../items'
import type { ContentRecord, StrataStore } from '../stores'
import { checkContentRecord } from '../stores/store-arguments'
import { contentMethods } from '../stores/store-check'
import type { Summarizer } from '../summarizers'
import { briefCitation, citationFooter, selectPlugin, writeCitation } from './citation'
import type { ContentBinding } from './content-binding'
import type { ResolvedContentOptions } from './content-options'
import type { CitationInput } from './content-plugin'
import {
  type ContentReference,
  citationPart,
  referenceOf,
  restoredPart,
  shownCitation,
} from './content-reference'
import { utf8Length } from './content-size'
import {
  compareEntriesNewestFirst,
  containsWords,
  contentEntry,
  itemEntry,
  type MemoryEntry,
  snippetOf,
} from './memory-search'
import type {
  MemoryHitLocation,
  MemoryQueryOutput,
  MemoryRetrieveOutput,
  MemoryStoreOutput,
} from './memory-tool-types'
import { applyTransform } from './retrieve-transform'
import { storedResultLine, storedResultsItem } from './stored-results'
import { checkQueryInput, checkRetrieveInput, checkStoreInput } from './tool-input'

/** A thread's content, exported with {@link ThreadContent.export} and restored with {@link ThreadContent.import}. */
export interface ContentSnapshot {
  format: 'strata-content'
  version: 1
  /** The thread it was exported from. */
  threadId: string
  /** Every record the thread can read, oldest first. */
  records: ContentRecord[]
}

/** What the thread's log looks like now, read under the thread's lock after catching up with the store. */
export interface HistorySnapshot {
  /** The active log, oldest first. */
  items: readonly Item[]
  /** Ids of the items in the thread's current view. */
  viewIds: ReadonlySet<string>
  /** The thread's current level. */
  level: string
}

/** What a thread gives its content channel. */
export interface ThreadContentDependencies {
  threadId: string
  store: StrataStore
  binding: ContentBinding
  options: ResolvedContentOptions
  summarizer: Summarizer
  clock: () => number
  generateId: () => string
  /** The log as it is now; see {@link HistorySnapshot}. */
  history: () => Promise<HistorySnapshot>
  /** The thread's current level, without waiting for its lock. */
  level: () => string
  /** The thread's level ladder, broad to narrow: what `memory_query`'s `level` may name. */
  levels?: readonly string[]
  /** Counts a part's tokens with the thread's counter. */
  countPart?: (part: MessagePart) => number
}

const JSON_MEDIA_TYPE = 'application/json'

/**
 * One thread's content channel: offloads large results into the content store, restores them in the
 * first context after they arrived, and answers the memory tools over everything the thread ever held
 * (content, the active log in and out of view, the archive, summaries and facts). Reach it as
 * `thread.content`; the model reaches it through `memoryTools(thread)`.
 */
export class ThreadContent {
  readonly #deps: ThreadContentDependencies
  /** Citation parts already built for an appended part: a write retried after a conflict reuses them. */
  readonly #offloaded = new WeakMap<MessagePart, MessagePart>()

  /** @internal Built by the thread. */
  constructor(deps: ThreadContentDependencies) {
    this.#deps = deps
  }

  /** `own` (isolated), `shared` or `read-only`. */
  get access(): ContentBinding['access'] {
    return this.#deps.binding.access
  }

  /** The thread whose content store this thread reads: itself, or its parent. */
  get owner(): string {
    return this.#deps.binding.owner
  }

  /** Where reads look, in order. A read-only sub-agent reads its parent's content and its own. */
  get #readSpaces(): string[] {
    const { binding, threadId } = this.#deps
    return binding.access === 'read-only' ? [binding.owner, threadId] : [binding.owner]
  }

  /** Where the thread's own offloads go: the parent's content when shared, else its own. */
  get #offloadSpace(): string {
    const { binding, threadId } = this.#deps
    return binding.access === 'shared' ? binding.owner : threadId
  }

  /** Where explicit writes go; a read-only thread has none. */
  #explicitWriteSpace(operation: string): string {
    const { binding, threadId } = this.#deps
    if (binding.access === 'read-only') {
      throw new StrataError({
        code: 'STRATA_CONTENT_READ_ONLY',
        message: `${operation}: thread '${threadId}' has read-only access to the content of '${binding.owner}' and cannot write to it. Open it with content: { parent: '${binding.owner}', access: 'shared' } to write, or keep the text in the conversation.`,
        details: { threadId, owner: binding.owner },
      })
    }
    return binding.owner
  }

  /** A stored record by memory id, from the spaces this thread reads, or undefined. */
  async get(id: string): Promise<ContentRecord | undefined> {
    for (const space of this.#readSpaces) {
      const record = await contentMethods(this.#deps.store, 'memory_retrieve').getContent(space, id)
      if (record !== undefined) return record
    }
    return undefined
  }

  /**
   * Stores content and returns its memory id (`memory_store`). `STRATA_CONTENT_READ_ONLY` on a
   * read-only sub-agent; `STRATA_INVALID_OPTIONS` for a bad input.
   */
  async put(input: unknown): Promise<MemoryStoreOutput> {
    const { content, type, tags } = checkStoreInput(input)
    const space = this.#explicitWriteSpace('memory_store')
    const { level, clock, threadId } = this.#deps
    const record: ContentRecord = {
      id: this.#newId(),
      type,
      source: 'memory_store',
      tags,
      ts: clock(),
      size: utf8Length(content),
      level: level(),
      mediaType: type === 'json' ? JSON_MEDIA_TYPE : 'text/plain',
      data: content,
      meta: { writer: threadId },
    }
    await contentMethods(this.#deps.store, 'memory_store').putContent(space, record)
    return { id: record.id, type: record.type, size: record.size }
  }

  /**
   * Reads a memory back (`memory_retrieve`): stored content by memory id, or any item of the log or
   * the archive by item id, shaped by a transform. `STRATA_MEMORY_NOT_FOUND` for an unknown id.
   */
  async retrieve(input: unknown): Promise<MemoryRetrieveOutput> {
    const { id, ...parameters } = checkRetrieveInput(input)
    const entry = await this.#find(id)
    if (entry === undefined) {
      throw new StrataError({
        code: 'STRATA_MEMORY_NOT_FOUND',
        message: `memory_retrieve: no memory with id '${id}' in thread '${this.#deps.threadId}'. Use an id from a citation ("Memory id: …") or from memory_query results.`,
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
   * Finds memories (`memory_query`) in everything the thread ever held: its content, the active log
   * (in and out of view), the archive, summaries and facts. Every filter given must match; words of
   * `text` must all occur, case-insensitively. Newest first, at most `limit` (10).
   */
  async query(input: unknown = {}): Promise<MemoryQueryOutput> {
    const query = checkQueryInput(input)
    const { store, threadId, levels } = this.#deps
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
    for (const space of this.#readSpaces) {
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
    const { items, viewIds } = await this.#deps.history()
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

  /** Every record this thread can read, oldest first, as a JSON-safe snapshot. */
  async export(): Promise<ContentSnapshot> {
    const records = new Map<string, ContentRecord>()
    for (const space of this.#readSpaces) {
      for (const record of await contentMethods(this.#deps.store, 'content.export()').queryContent(space)) {
        if (!records.has(record.id)) records.set(record.id, record)
      }
    }
    const sorted = [...records.values()].sort((left, right) =>
      left.ts !== right.ts ? left.ts - right.ts : left.id < right.id ? -1 : left.id > right.id ? 1 : 0,
    )
    return { format: 'strata-content', version: 1, threadId: this.#deps.threadId, records: sorted }
  }

  /**
   * Restores a snapshot into the content this thread writes (a record with the same id is replaced).
   * Checks every record first: a bad snapshot writes nothing. Returns how many records were written.
   */
  async import(snapshot: ContentSnapshot): Promise<{ imported: number }> {
    const space = this.#explicitWriteSpace('content.import')
    if (
      typeof snapshot !== 'object' ||
      snapshot === null ||
      snapshot.format !== 'strata-content' ||
      snapshot.version !== 1 ||
      !Array.isArray(snapshot.records)
    ) {
      throw new StrataError({
        code: 'STRATA_INVALID_OPTIONS',
        message:
          'content.import(): pass a snapshot from thread.content.export() ({ format: "strata-content", version: 1, records }).',
      })
    }
    for (const record of snapshot.records) checkContentRecord(record)
    for (const record of snapshot.records)
      await contentMethods(this.#deps.store, 'memory_store').putContent(space, record)
    return { imported: snapshot.records.length }
  }

  /**
   * @internal Used by the thread before it appends: large tool results (and attachments) of the items
   * are stored, and each is replaced in the item by its citation. `history` is the active log, where
   * a result's call is looked up for plugins that read the call's input.
   */
  async offload<I extends UnsequencedItem>(items: I[], history: readonly Item[]): Promise<I[]> {
    if (!this.#deps.options.offload) return items
    const out: I[] = []
    for (const item of items) {
      if (item.type !== 'message') {
        out.push(item)
        continue
      }
      let changed = false
      const content: MessagePart[] = []
      for (const part of item.content) {
        const cited = await this.#offloadPart(item, part, items, history)
        if (cited !== part) changed = true
        content.push(cited)
      }
      out.push(changed ? ({ ...item, content } as I) : item)
    }
    return out
  }

  /**
   * @internal Used by the thread when it builds a context. Citations that arrived after the last
   * assistant message (the model has not answered them yet) are shown as the full stored part; older
   * ones as their citation, brief from `briefAfterTurns` turns back; answered tool results beyond the
   * newest `maxCitations` leave the view with their calls and are listed in one `[STORED RESULTS]`
   * note. The rule reads only the log and the content store, so the same log renders byte-identically.
   */
  async expand<I extends Item>(view: readonly I[], history: readonly Item[]): Promise<I[]> {
    let answeredThrough = 0
    for (let index = history.length - 1; index >= 0; index--) {
      const item = history[index]!
      if (item.type === 'message' && item.role === 'assistant') {
        answeredThrough = item.seq
        break
      }
    }
    const cites = (item: Item): item is MessageItem & I =>
      item.type === 'message' && item.content.some((part) => referenceOf(part) !== undefined)
    if (!view.some(cites)) return view as I[]
    const { briefAfterTurns, maxCitations } = this.#deps.options
    const grouped = groupedResults(view, answeredThrough, maxCitations)
    const inputs = grouped.size === 0 ? new Map<string, JsonValue>() : callInputs(view)
    const currentTurn = turnNumber(history.at(-1)?.turnId)

    // A provider-run call stays in a context while its result is pending: one whose result is
    // grouped out must leave with it here (other calls without a result are left out when rendered).
    const groupedCalls = new Set<string>()
    for (const part of grouped) if (part.type === 'tool-result') groupedCalls.add(part.toolCallId)
    const leaves = (part: MessagePart) =>
      part.type === 'tool-call' && part.providerExecuted === true && groupedCalls.has(part.toolCallId)

    const out: I[] = []
    const lines: string[] = []
    let noteAt = -1
    for (const item of view) {
      if (!cites(item)) {
        out.push(
          groupedCalls.size > 0 && item.type === 'message' && item.content.some(leaves)
            ? { ...item, content: item.content.filter((part) => !leaves(part)) }
            : item,
        )
        continue
      }
      const fresh = item.seq > answeredThrough
      // Citations from `briefAfterTurns` turns back or more shrink to their brief form.
      const brief = !fresh && currentTurn - turnNumber(item.turnId) >= briefAfterTurns
      const content: MessagePart[] = []
      for (const part of item.content) {
        const reference = referenceOf(part)
        if (reference === undefined) {
          if (!leaves(part)) content.push(part)
        } else if (grouped.has(part) && part.type === 'tool-result') {
          if (noteAt === -1) {
            noteAt = out.length
            out.push(item)
          }
          lines.push(storedResultLine(part, reference, inputs.get(part.toolCallId)))
        } else if (fresh) {
          const record = await this.get(reference.id)
          // A record missing from the store (deleted by hand) leaves the citation in place.
          content.push(
            record === undefined
              ? shownCitation(part, reference, false)
              : restoredPart(part, reference, record.data),
          )
        } else {
          content.push(shownCitation(part, reference, brief))
        }
      }
      if (content.length > 0) out.push({ ...item, content })
    }
    if (noteAt !== -1) out[noteAt] = storedResultsItem(out[noteAt] as MessageItem & I, lines)
    return out
  }

  async #offloadPart(
    item: Extract<UnsequencedItem, { type: 'message' }>,
    part: MessagePart,
    batch: readonly UnsequencedItem[],
    history: readonly Item[],
  ): Promise<MessagePart> {
    const done = this.#offloaded.get(part)
    if (done !== undefined) return done
    if (referenceOf(part) !== undefined) return part
    const candidate = this.#candidate(item, part)
    if (candidate === undefined) return part
    const { options, summarizer, store, threadId } = this.#deps
    const tool = part.type === 'tool-result' ? options.tools[part.toolName] : undefined
    const mode = tool?.offload ?? 'size'
    if (mode === 'never' || (mode === 'size' && candidate.size <= options.offloadAboveBytes)) return part

    const id = this.#newId()
    const input: CitationInput = { id, ...candidate }
    if (part.type === 'tool-result') {
      const call = findCall(part.toolCallId, batch, history)
      if (call !== undefined) input.input = call
    }
    const plugin = selectPlugin(input, tool, options)
    const type = tool?.type ?? plugin.type?.(input) ?? input.type
    input.type = type
    const { body, by } = await writeCitation(input, plugin, {
      tool,
      options,
      summarizer,
      item: { ...item, content: [part] },
    })
    const reference: ContentReference = {
      id,
      kind: part.type === 'tool-result' ? 'tool-result' : part.type === 'file' ? 'file' : 'text',
    }
    if (candidate.json) reference.json = true
    if (part.type === 'file') {
      reference.mediaType = part.mediaType
      if (part.filename !== undefined) reference.filename = part.filename
    }
    if (part.meta !== undefined) reference.meta = part.meta
    if (this.#deps.countPart !== undefined) reference.tokens = this.#deps.countPart(part)
    const label = plugin.label?.(input)
    if (label) reference.label = label
    reference.brief = briefCitation(body, label, id)
    const record: ContentRecord = {
      id,
      type,
      source: candidate.source,
      tags: [...(tool?.tags ?? []), ...(part.type === 'tool-result' ? [] : ['attachment'])],
      ts: item.ts,
      size: candidate.size,
      level: item.level,
      mediaType: candidate.mediaType,
      data: candidate.data,
      meta: {
        writer: threadId,
        itemId: item.id,
        kind: reference.kind,
        citedBy: by,
        ...(part.type === 'tool-result' ? { toolCallId: part.toolCallId } : {}),
        ...(candidate.filename === undefined ? {} : { filename: candidate.filename }),
      },
    }
    // The content is stored before the item that cites it, so a citation never points at nothing.
    await contentMethods(store, 'offload').putContent(this.#offloadSpace, record)
    const cited = citationPart(part, `${body}\n${citationFooter(id)}`, reference)
    this.#offloaded.set(part, cited)
    return cited
  }

  /** What a part would store, or undefined when the part is never offloaded. */
  #candidate(
    item: Extract<UnsequencedItem, { type: 'message' }>,
    part: MessagePart,
  ): Omit<CitationInput, 'id'> | undefined {
    const { options } = this.#deps
    if (part.type === 'tool-result') {
      const json = typeof part.output !== 'string'
      const data = json ? JSON.stringify(part.output) : (part.output as string)
      return {
        type: json ? 'json' : 'text',
        data,
        value: part.output,
        json,
        source: part.toolName,
        size: utf8Length(data),
        mediaType: json ? JSON_MEDIA_TYPE : 'text/plain',
      }
    }
    // Attachments: a user's own large text or inline file, never a scope's opening instructions.
    if (!options.attachments || item.role !== 'user' || item.scope !== undefined) return undefined
    if (part.type === 'text') {
      return {
        type: 'text',
        data: part.text,
        value: part.text,
        json: false,
        source: 'user',
        size: utf8Length(part.text),
        mediaType: 'text/plain',
      }
    }
    if (part.type === 'file') {
      const candidate: Omit<CitationInput, 'id'> = {
        type: 'file',
        data: part.data,
        value: part.data,
        json: false,
        source: 'user',
        size: utf8Length(part.data),
        mediaType: part.mediaType,
      }
      if (part.filename !== undefined) candidate.filename = part.filename
      return candidate
    }
    return undefined
  }

  #newId(): string {
    return `mem_${this.#deps.generateId()}`
  }

  /** The entry of an id: content first, then the active log, then the archive. */
  async #find(id: string): Promise<MemoryEntry | undefined> {
    const record = await this.get(id)
    if (record !== undefined) return contentEntry(record)
    const { items, viewIds } = await this.#deps.history()
    const active = items.find((item) => item.id === id)
    if (active !== undefined) return citedEntry(active, viewIds.has(id) ? 'view' : 'out-of-view')
    const archived = (await this.#deps.store.readArchive(this.#deps.threadId)).find((item) => item.id === id)
    return archived === undefined ? undefined : citedEntry(archived, 'archive')
  }
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

/** The input of the tool call `toolCallId`: in the batch being appended, else the newest in the log. */
function findCall(
  toolCallId: string,
  batch: readonly UnsequencedItem[],
  history: readonly Item[],
): JsonValue | undefined {
  const search = (items: readonly UnsequencedItem[]) => {
    for (let index = items.length - 1; index >= 0; index--) {
      const item = items[index]!
      if (item.type !== 'message' || item.role !== 'assistant') continue
      for (const part of item.content) {
        if (part.type === 'tool-call' && part.toolCallId === toolCallId) return part.input
      }
    }
    return undefined
  }
  return search(batch) ?? search(history)
}

/**
 * The answered tool results (cited parts at or before `answeredThrough`) older than the newest
 * `keep`: the parts to group out of the context, in view order.
 */
function groupedResults(view: readonly Item[], answeredThrough: number, keep: number): Set<MessagePart> {
  const answered: MessagePart[] = []
  for (const item of view) {
    if (item.type !== 'message' || item.seq > answeredThrough) continue
    for (const part of item.content) {
      if (part.type === 'tool-result' && referenceOf(part) !== undefined) answered.push(part)
    }
  }
  return new Set(answered.slice(0, Math.max(0, answered.length - keep)))
}

/** The input of every tool call in the view, by call id. */
function callInputs(view: readonly Item[]): Map<string, JsonValue> {
  const inputs = new Map<string, JsonValue>()
  for (const item of view) {
    if (item.type !== 'message' || item.role !== 'assistant') continue
    for (const part of item.content) if (part.type === 'tool-call') inputs.set(part.toolCallId, part.input)
  }
  return inputs
}

/** The number of a `turn_0012` turn id; 0 for none. */
function turnNumber(turnId: string | undefined): number {
  const match = turnId === undefined ? null : /^turn_(\d+)$/.exec(turnId)
  return match ? Number(match[1]) : 0
}
