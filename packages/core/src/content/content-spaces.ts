import { StrataError } from '../errors'
import type { Item, MessagePart } from '../items'
import type { ContentRecord, StrataStore } from '../stores'
import { contentMethods } from '../stores/store-check'
import type { Summarizer } from '../summarizers'
import type { ContentBinding } from './content-binding'
import type { ResolvedContentOptions } from './content-options'
import type { IndexPool } from './index-pool'

/** What the thread's log looks like now, read under the thread's lock after catching up with the store. */
export interface HistorySnapshot {
  /** The active log, oldest first. */
  items: readonly Item[]
  /** Ids of the items in the thread's current view. */
  viewIds: ReadonlySet<string>
  /** The thread's current level. */
  level: string
}

/** An active item of the thread, whole, and whether the thread's current view shows it. */
export interface ActiveItem {
  item: Item
  inView: boolean
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
  /**
   * The active item with this id (not a part id), read under the thread's lock like {@link history}
   * but alone: a sealed item is read back by itself, not with the whole log.
   */
  activeItem: (itemId: string) => Promise<ActiveItem | undefined>
  /** The ids of the items the thread's current view shows, read under its lock (no log read back). */
  viewIds: () => Promise<ReadonlySet<string>>
  /** The thread's current level, without waiting for its lock. */
  level: () => string
  /** The thread's level ladder, broad to narrow: what `memory_query`'s `level` may name. */
  levels?: readonly string[]
  /** Counts a part's tokens with the thread's counter. */
  countPart?: (part: MessagePart) => number
  /**
   * The archived item with this id, read a page at a time from where the thread's index says it may be
   * (`memory_retrieve` of an archived item reads one page). Without it the archive is read page by page
   * until the item is found.
   */
  archivedItem?: (id: string) => Promise<Item | undefined>
  /** The memory's bound on the entries its search indexes hold; none: the thread's index is unbounded. */
  indexes?: IndexPool
  /** Told after content was stored in `space` (a thread id), so search indexes look at it again. */
  stored?: (space: string) => void
}

/** The media type of content stored as JSON. */
export const JSON_MEDIA_TYPE = 'application/json'

/**
 * Which content spaces a thread reads and writes, from its binding: its own, its parent's, or both
 * (a read-only sub-agent reads its parent's content and its own). Shared by the parts of the channel.
 */
export class ContentSpaces {
  /** The thread's dependencies, as the thread gave them. */
  readonly deps: ThreadContentDependencies

  constructor(deps: ThreadContentDependencies) {
    this.deps = deps
  }

  /** Where reads look, in order. */
  get readSpaces(): string[] {
    const { binding, threadId } = this.deps
    return binding.access === 'read-only' ? [binding.owner, threadId] : [binding.owner]
  }

  /** Where the thread's own offloads go: the parent's content when shared, else its own. */
  get offloadSpace(): string {
    const { binding, threadId } = this.deps
    return binding.access === 'shared' ? binding.owner : threadId
  }

  /** Where explicit writes go; a read-only thread has none (`STRATA_CONTENT_READ_ONLY`). */
  explicitWriteSpace(operation: string): string {
    const { binding, threadId } = this.deps
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
    for (const space of this.readSpaces) {
      const record = await contentMethods(this.deps.store, 'memory_retrieve').getContent(space, id)
      if (record !== undefined) return record
    }
    return undefined
  }

  /** Stores a record in `space`, then tells the thread's `stored` listener. */
  async put(space: string, record: ContentRecord, operation: string): Promise<void> {
    await contentMethods(this.deps.store, operation).putContent(space, record)
    this.deps.stored?.(space)
  }

  /** A new memory id. */
  newId(): string {
    return `mem_${this.deps.generateId()}`
  }
}
