import { itemEntry } from '../content/memory-search'
import { queryTerms } from '../content/search-terms'
import type { Item, MessageItem } from '../items'
import {
  type Embedder,
  embedAll,
  type ResolvedResourceOptions,
  type ResourceHandle,
  workingMemorySlot,
} from '../resources'
import type { StoreResourceMethods } from '../stores'
import type { TokenCounter } from '../tokens'

/** What a thread's resource link needs of its memory. */
export interface ThreadResourceParts {
  threadId: string
  /** The memory's resource handle of an id. */
  resource(resourceId: string): ResourceHandle
  /** The store's resource methods (undefined: the store has none). */
  store(): StoreResourceMethods | undefined
  options: ResolvedResourceOptions
  tokenCounter: TokenCounter
  clock: () => number
  /** Keeps a background touch until it ends, for `memory.settled()` and resource listings. */
  track(touch: Promise<void>): void
  /** Embeds appended items in the background when the memory has an embedder. */
  embedder?: Embedder | undefined
}

/** The text a request is recalled by: the user's own words. */
const requestText = (request: MessageItem): string =>
  request.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n')

/**
 * A thread's tie to its resource: which resource it is bound to, the thread-index touch after each
 * append, and the resource's memory slots in its contexts (the working memory, and the recalls from
 * the resource's other threads, computed once per turn).
 */
export class ThreadResourceLink {
  #resourceId: string | undefined
  readonly #parts: ThreadResourceParts
  readonly #pending = new Set<Promise<void>>()
  #recalls: { key: string; slot: string | undefined } | undefined

  constructor(parts: ThreadResourceParts, resourceId: string | undefined) {
    this.#parts = parts
    this.#resourceId = resourceId
  }

  /** The resource the thread is bound to, as this memory last read or set it. */
  get resourceId(): string | undefined {
    return this.#resourceId
  }

  set resourceId(resourceId: string | undefined) {
    if (resourceId !== this.#resourceId) this.#recalls = undefined
    this.#resourceId = resourceId
  }

  /** The thread's resource handle, when it has one. */
  resource(): ResourceHandle | undefined {
    return this.#resourceId === undefined ? undefined : this.#parts.resource(this.#resourceId)
  }

  /**
   * Records the append in the resource's thread index, in the background: the write has been taken,
   * the index is an upsert where the later time wins, so nothing waits for it. A failed touch leaves
   * the index's time as it was (the next append touches again).
   */
  afterAppend(items: readonly Item[]) {
    // Asked after every append: a thread without a resource stops before the store is looked at.
    const resourceId = this.#resourceId
    if (resourceId === undefined) return
    const store = this.#parts.store()
    if (store === undefined) return
    this.#background(store.touchResourceThread(resourceId, this.#parts.threadId, this.#parts.clock()))
    const { embedder } = this.#parts
    if (embedder !== undefined) this.#background(this.#embed(store, embedder, items))
  }

  /** Tells the resource's index that content was stored in `space` without an append. */
  contentStored(space: string) {
    this.resource()?.contentStored(space)
  }

  /** Keeps a background write until it ends; a failure leaves what it would have written to later. */
  #background(work: Promise<void>) {
    const tracked = work.catch(() => undefined).finally(() => this.#pending.delete(tracked))
    this.#pending.add(tracked)
    this.#parts.track(tracked)
  }

  /**
   * Embeds the appended items and stores their vectors beside the thread's data, so a query embeds
   * only itself (what is missing, such as a failed batch, is embedded by the query that needs it).
   */
  async #embed(store: StoreResourceMethods, embedder: Embedder, items: readonly Item[]) {
    const entries = items.flatMap((item) => {
      const entry = itemEntry(item, 'out-of-view')
      return entry === undefined ? [] : [{ id: `item:${item.seq}`, text: entry.text }]
    })
    if (entries.length === 0) return
    const vectors = await embedAll(
      embedder,
      entries.map((entry) => entry.text),
    )
    await store.putVectors(
      this.#parts.threadId,
      entries.map(({ id }, index) => ({ id, model: embedder.model, vector: vectors[index]! })),
    )
  }

  /** Settles when the touches started so far have ended. */
  async settled(): Promise<void> {
    await Promise.all([...this.#pending])
  }

  /**
   * The resource's slots for a context: `[MEMORY:WORKING version=N]` (read at each context: another
   * process may have written it) and, when the memory's options ask, `[MEMORY:RECALL]` with the best
   * matches of the turn's request in the resource's other threads (kept for the turn).
   */
  async slots(request: MessageItem | undefined): Promise<{ working?: string; recall?: string }> {
    const resourceId = this.#resourceId
    if (resourceId === undefined) return {}
    const store = this.#parts.store()
    if (store === undefined) return {}
    const { options, tokenCounter } = this.#parts
    const [stored, recall] = await Promise.all([
      store.getWorkingMemory(resourceId),
      options.recall === false || request === undefined
        ? undefined
        : this.#recall(resourceId, request, options.recall.limit),
    ])
    const working = workingMemorySlot(stored, options.workingMemory, tokenCounter)
    return {
      ...(working === undefined ? {} : { working }),
      ...(recall === undefined ? {} : { recall }),
    }
  }

  async #recall(resourceId: string, request: MessageItem, limit: number): Promise<string | undefined> {
    const key = `${resourceId}\u0000${request.id}\u0000${limit}`
    if (this.#recalls?.key === key) return this.#recalls.slot
    const text = requestText(request)
    const resource = this.#parts.resource(resourceId)
    const others = (await resource.threadIds('recall')).filter(
      (threadId) => threadId !== this.#parts.threadId,
    )
    // Without a word to rank by, nothing is recalled (not the newest of other threads).
    const hits = queryTerms(text).length === 0 ? [] : await resource.rank(others, text, limit)
    const slot =
      hits.length === 0
        ? undefined
        : `[MEMORY:RECALL]\n${hits.map(({ origin, snippet }) => `- (${origin.threadId}#${origin.seq}) ${snippet}`).join('\n')}`
    this.#recalls = { key, slot }
    return slot
  }
}
