import { invalidOptions } from '../errors'
import type { Item, UnsequencedItem } from '../items'
import type { LogEntry } from '../items/sealed-item'
import type { ContentRecord } from '../stores'
import { checkContentRecord } from '../stores/store-arguments'
import { contentMethods } from '../stores/store-check'
import { type CitationCache, type CitingMemo, expandCitations } from './citation-expansion'
import type { ContentBinding } from './content-binding'
import { ContentOffload, type OffloadHistory } from './content-offload'
import { utf8Length } from './content-size'
import { ContentSpaces, JSON_MEDIA_TYPE, type ThreadContentDependencies } from './content-spaces'
import { queryMemory } from './memory-query'
import { retrieveMemory } from './memory-recall'
import type { MemoryQueryOutput, MemoryRetrieveOutput, MemoryStoreOutput } from './memory-tool-types'
import { checkStoreInput } from './tool-input'

export type { HistorySnapshot, ThreadContentDependencies } from './content-spaces'

/** A thread's content, exported with {@link ThreadContent.export} and restored with {@link ThreadContent.import}. */
export interface ContentSnapshot {
  format: 'strata-content'
  version: 1
  /** The thread it was exported from. */
  threadId: string
  /** Every record the thread can read, oldest first. */
  records: ContentRecord[]
}

/**
 * One thread's content channel: offloads large results into the content store, restores them in the
 * first context after they arrived, and answers the memory tools over everything the thread ever held
 * (content, the active log in and out of view, the archive, summaries and facts). Reach it as
 * `thread.content`; the model reaches it through `memoryTools(thread)`.
 */
export class ThreadContent {
  readonly #spaces: ContentSpaces
  readonly #offload: ContentOffload
  /** The parts contexts showed for each citation part (stored content does not change). */
  readonly #shown: CitationCache = new WeakMap()
  /** The view the last context expanded (see `expandCitations`). */
  readonly #expansion: CitingMemo = {}

  /** @internal Built by the thread. */
  constructor(deps: ThreadContentDependencies) {
    this.#spaces = new ContentSpaces(deps)
    this.#offload = new ContentOffload(this.#spaces)
  }

  /** `own` (isolated), `shared` or `read-only`. */
  get access(): ContentBinding['access'] {
    return this.#spaces.deps.binding.access
  }

  /** The thread whose content store this thread reads: itself, or its parent. */
  get owner(): string {
    return this.#spaces.deps.binding.owner
  }

  /** A stored record by memory id, from the spaces this thread reads, or undefined. */
  get(id: string): Promise<ContentRecord | undefined> {
    return this.#spaces.get(id)
  }

  /**
   * Stores content and returns its memory id (`memory_store`). `STRATA_CONTENT_READ_ONLY` on a
   * read-only sub-agent; `STRATA_INVALID_OPTIONS` for a bad input.
   */
  async put(input: unknown): Promise<MemoryStoreOutput> {
    const { content, type, tags } = checkStoreInput(input)
    const space = this.#spaces.explicitWriteSpace('memory_store')
    const { level, clock, threadId } = this.#spaces.deps
    const record: ContentRecord = {
      id: this.#spaces.newId(),
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
    await this.#spaces.put(space, record, 'memory_store')
    return { id: record.id, type: record.type, size: record.size }
  }

  /**
   * Reads a memory back (`memory_retrieve`): stored content by memory id, or any item of the log or
   * the archive by item id, shaped by a transform. `STRATA_MEMORY_NOT_FOUND` for an unknown id.
   */
  retrieve(input: unknown): Promise<MemoryRetrieveOutput> {
    return retrieveMemory(this.#spaces, input)
  }

  /**
   * Finds memories (`memory_query`) in everything the thread ever held: its content, the active log
   * (in and out of view), the archive, summaries and facts. Every filter given must match; entries
   * holding any word of `text` come best first (BM25F), else newest first; at most `limit` (10).
   */
  query(input: unknown = {}): Promise<MemoryQueryOutput> {
    return queryMemory(this.#spaces, input)
  }

  /** Every record this thread can read, oldest first, as a JSON-safe snapshot. */
  async export(): Promise<ContentSnapshot> {
    const records = new Map<string, ContentRecord>()
    for (const space of this.#spaces.readSpaces) {
      for (const record of await contentMethods(this.#spaces.deps.store, 'content.export()').queryContent(
        space,
      )) {
        if (!records.has(record.id)) records.set(record.id, record)
      }
    }
    const sorted = [...records.values()].sort((left, right) =>
      left.ts !== right.ts ? left.ts - right.ts : left.id < right.id ? -1 : left.id > right.id ? 1 : 0,
    )
    return { format: 'strata-content', version: 1, threadId: this.#spaces.deps.threadId, records: sorted }
  }

  /**
   * Restores a snapshot into the content this thread writes (a record with the same id is replaced).
   * Checks every record first: a bad snapshot writes nothing. Returns how many records were written.
   */
  async import(snapshot: ContentSnapshot): Promise<{ imported: number }> {
    const space = this.#spaces.explicitWriteSpace('content.import')
    if (
      typeof snapshot !== 'object' ||
      snapshot === null ||
      snapshot.format !== 'strata-content' ||
      snapshot.version !== 1 ||
      !Array.isArray(snapshot.records)
    ) {
      invalidOptions(
        'content.import(): pass a snapshot from thread.content.export() ({ format: "strata-content", version: 1, records }).',
      )
    }
    for (const record of snapshot.records) checkContentRecord(record)
    for (const record of snapshot.records) await this.#spaces.put(space, record, 'memory_store')
    return { imported: snapshot.records.length }
  }

  /**
   * @internal Used by the thread before it appends: large tool results (and attachments) of the items
   * are stored, and each is replaced in the item by its citation. `history` gives the active log, where
   * a result's call is looked up for plugins that read the call's input (only when a result is stored).
   */
  offload<I extends UnsequencedItem>(items: I[], history: OffloadHistory): Promise<I[]> {
    return this.#offload.offload(items, history)
  }

  /**
   * @internal Used by the thread when it builds a context: the view with its citations shown (see
   * {@link expandCitations}).
   */
  expand<I extends Item>(view: readonly I[], history: readonly LogEntry<string>[]): Promise<I[]> {
    return expandCitations(view, history, {
      options: this.#spaces.deps.options,
      get: (id) => this.get(id),
      cache: this.#shown,
      memo: this.#expansion,
    })
  }
}
