import type { IndexPool } from '../content/index-pool'
import { type EntryFilter, entriesOf, searchIndex } from '../content/index-search'
import { MemoryRanking } from '../content/memory-ranking'
import type { MemoryQueryHit, ToolResource } from '../content/memory-tool-types'
import { searchQuery } from '../content/search-terms'
import { invalidOptions, StrataError } from '../errors'
import { assertSerializable, assertThreadId, type JsonObject, type JsonValue } from '../items'
import type {
  ResourceDocument,
  ResourceThreadPage,
  StoreResourceMethods,
  StrataStoreBase,
  VersionedValue,
} from '../stores'
import { resourceMethods } from '../stores/store-check'
import type { TokenCounter } from '../tokens'
import { assertNamespace, listNamespaces, searchDocuments } from './resource-documents'
import { mergeResourceFacts } from './resource-facts'
import { ResourceIndex } from './resource-index'
import type { ResolvedResourceOptions } from './resource-options'
import {
  newestHits,
  publicHit,
  type RankedHit,
  rankedHits,
  readThreadData,
  type ThreadData,
  toolHit,
} from './resource-recall'
import type {
  Embedder,
  ListNamespacesOptions,
  Resource,
  ResourceDocumentHit,
  ResourceFact,
  ResourceQueryHit,
  ResourceQueryOptions,
  SearchDocumentsOptions,
  SetWorkingMemoryOptions,
} from './resource-types'
import { similarities } from './resource-vectors'
import { workingMemoryText, writeWorkingMemory } from './working-memory'

/** What a resource needs of its memory. */
export interface ResourceDependencies {
  /** The memory's store (read at each call: the memory wraps it in spans once it traces). */
  readonly store: StrataStoreBase
  readonly options: ResolvedResourceOptions
  readonly tokenCounter: TokenCounter
  /** Ranks semantically too (hybrid) when given. */
  readonly embedder?: Embedder | undefined
  /** The memory's resource indexes, within their bound on entries. */
  readonly indexes: IndexPool
  /** Settles when the thread-index touches this memory started have ended. */
  touched(): Promise<void>
  /** Told when `adoptThread` moved a thread, so the memory's open thread follows. */
  adopted(threadId: string, resourceId: string): void
  /** Told when the resource was deleted: its open threads are unbound. */
  deleted(resourceId: string): void
}

/** How many pages of the thread index a full walk reads at most (100 threads each). */
const PAGE_SIZE = 100
/** Times a binding is compared and set again after another writer changed it meanwhile. */
const BIND_ATTEMPTS = 5

/**
 * Moves or binds `threadId` to `resourceId` with the store's compare-and-set, reading the binding
 * again when another writer changed it meanwhile. `keep(current)` decides what to do with a thread
 * bound elsewhere: true moves it, false leaves it (the caller refuses). Returns the binding found.
 */
export async function bindThread(
  store: StoreResourceMethods,
  threadId: string,
  resourceId: string,
  move: (current: string) => boolean,
): Promise<string | undefined> {
  for (let attempt = 1; ; attempt++) {
    const current = await store.getThreadResource(threadId)
    if (current === resourceId) return current
    if (current !== undefined && !move(current)) return current
    try {
      await store.setThreadResource(threadId, resourceId, { expected: current })
      return resourceId
    } catch (error) {
      if (!StrataError.isInstance(error, 'STRATA_SEQ_CONFLICT') || attempt >= BIND_ATTEMPTS) throw error
    }
  }
}

/**
 * A resource of one memory: `memory.resource(id)`. Every method reaches the store's resource methods
 * (`STRATA_STORE_CAPABILITY` when it has none) and reads only the threads bound to this resource.
 */
export class ResourceHandle implements Resource, ToolResource {
  readonly id: string
  readonly #deps: ResourceDependencies
  /** What the resource's threads hold, indexed for search and kept up to date between queries. */
  readonly #index: ResourceIndex
  /** The counted terms of the resource's documents, kept between searches. */
  readonly #documentRanking = new MemoryRanking()

  constructor(id: string, deps: ResourceDependencies) {
    this.id = id
    this.#deps = deps
    this.#index = new ResourceIndex(deps.indexes)
  }

  #store(method: string): StoreResourceMethods {
    return resourceMethods(this.#deps.store, `resource('${this.id}').${method}()`)
  }

  #what(method: string) {
    return `resource('${this.id}').${method}()`
  }

  async listThreads(options: { cursor?: string; limit?: number } = {}): Promise<ResourceThreadPage> {
    const store = this.#store('listThreads')
    if (typeof options !== 'object' || options === null)
      invalidOptions(`${this.#what('listThreads')}: options must be an object like { cursor, limit }.`)
    const { cursor, limit } = options
    if (limit !== undefined && (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1))
      invalidOptions(`${this.#what('listThreads')}: limit must be a positive integer.`, { limit })
    if (cursor !== undefined && typeof cursor !== 'string')
      invalidOptions(`${this.#what('listThreads')}: cursor must be the string a previous page returned.`)
    // This memory's own appends are listed in the order they happened.
    await this.#deps.touched()
    return store.listResourceThreads(this.id, {
      ...(cursor === undefined ? {} : { cursor }),
      ...(limit === undefined ? {} : { limit }),
    })
  }

  async adoptThread(threadId: string): Promise<void> {
    const store = this.#store('adoptThread')
    assertThreadId(threadId)
    await bindThread(store, threadId, this.id, () => true)
    this.#deps.adopted(threadId, this.id)
  }

  async getWorkingMemory(): Promise<VersionedValue | undefined> {
    return this.#store('getWorkingMemory').getWorkingMemory(this.id)
  }

  async setWorkingMemory(value: JsonValue, options: SetWorkingMemoryOptions): Promise<VersionedValue> {
    const store = this.#store('setWorkingMemory')
    if (typeof options !== 'object' || options === null)
      invalidOptions(
        `${this.#what('setWorkingMemory')}: pass { version }, the version you read (0 when there was none).`,
      )
    return writeWorkingMemory(
      store,
      this.id,
      value,
      options.version,
      this.#deps.options.workingMemory,
      this.#deps.tokenCounter,
    )
  }

  /**
   * The ids of the threads bound to this resource, newest first: the thread index, each entry checked
   * against the thread's own binding (an index entry left behind by a move never lets another
   * resource's thread in).
   */
  async threadIds(method = 'query'): Promise<string[]> {
    const store = this.#store(method)
    await this.#deps.touched()
    const listed: string[] = []
    let cursor: string | undefined
    do {
      const page = await store.listResourceThreads(this.id, {
        limit: PAGE_SIZE,
        ...(cursor === undefined ? {} : { cursor }),
      })
      listed.push(...page.threads.map((entry) => entry.threadId))
      cursor = page.cursor
    } while (cursor !== undefined)
    const bound = await Promise.all(listed.map((threadId) => store.getThreadResource(threadId)))
    const threadIds = listed.filter((_, index) => bound[index] === this.id)
    this.#index.retain(threadIds)
    return threadIds
  }

  async #threadData(threadIds: readonly string[]): Promise<ThreadData[]> {
    const store = this.#deps.store
    return Promise.all(threadIds.map((threadId) => readThreadData(store, threadId)))
  }

  async facts(): Promise<ResourceFact[]> {
    return mergeResourceFacts(await this.#threadData(await this.threadIds('facts')))
  }

  async query(text: string, options: ResourceQueryOptions = {}): Promise<ResourceQueryHit[]> {
    const what = this.#what('query')
    if (typeof text !== 'string') invalidOptions(`${what}: text must be a string of words to look for.`)
    if (typeof options !== 'object' || options === null)
      invalidOptions(`${what}: options must be an object like { limit, threads }.`)
    const { limit = 10, threads } = options
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 100)
      invalidOptions(`${what}: limit must be an integer from 1 to 100.`, { limit })
    if (threads !== undefined) {
      if (!Array.isArray(threads)) invalidOptions(`${what}: threads must be a list of thread ids.`)
      for (const threadId of threads) assertThreadId(threadId)
    }
    const bound = await this.threadIds('query')
    // Only the resource's own threads, whatever `threads` names.
    const searched = threads === undefined ? bound : bound.filter((threadId) => threads.includes(threadId))
    return (await this.rank(searched, text, limit)).map(publicHit)
  }

  /**
   * Ranks what the threads hold against `text` (threads of this resource: the caller checked), from
   * the resource's index, brought up to date with the store first; `matches` filters the entries.
   */
  async rank(
    threadIds: readonly string[],
    text: string,
    limit: number,
    matches?: EntryFilter,
  ): Promise<RankedHit[]> {
    if (threadIds.length === 0) return []
    const threads = await this.#index.sync(this.#deps.store, threadIds)
    const query = searchQuery(text)
    if (query.terms.length === 0) return newestHits(entriesOf(threads, matches), limit)
    const { embedder } = this.#deps
    // Fusion with the semantic ranks needs every word rank; word ranking alone, the best `limit`.
    const searched = searchIndex(threads, query, matches, embedder === undefined ? limit : undefined)
    const similarity =
      embedder === undefined
        ? undefined
        : await similarities(this.#store('query'), embedder, entriesOf(threads, matches), text)
    return rankedHits(searched, query.terms, limit, similarity)
  }

  /** @internal Content was stored in the thread: its next query reads the thread's new content. */
  contentStored(threadId: string) {
    this.#index.contentStored(threadId)
  }

  /** @internal For `memory_query` with `scope: 'resource'`. */
  async queryHits(text: string, limit: number, matches?: EntryFilter): Promise<MemoryQueryHit[]> {
    return (await this.rank(await this.threadIds('query'), text, limit, matches)).map(toolHit)
  }

  /** @internal For `memory_update_working`: the working memory as text and its version. */
  async readWorking(): Promise<{ version: number; content: string }> {
    const stored = await this.getWorkingMemory()
    if (stored !== undefined) return { version: stored.version, content: workingMemoryText(stored.value) }
    return { version: 0, content: this.#deps.options.workingMemory.template ?? '' }
  }

  /**
   * @internal For `memory_update_working`: writes the model's text, parsed as JSON when the memory has
   * a schema (a text that is not JSON is refused, saying so).
   */
  async writeWorking(content: string, version: number): Promise<{ version: number }> {
    let value: JsonValue = content
    if (this.#deps.options.workingMemory.schema !== undefined) {
      try {
        value = JSON.parse(content) as JsonValue
      } catch {
        invalidOptions(
          `memory_update_working: the working memory of '${this.id}' has a schema, so content must be JSON text that fits it (it did not parse). Nothing was written.`,
        )
      }
    }
    const written = await this.setWorkingMemory(value, { version })
    return { version: written.version }
  }

  /** @internal For the `memory_update_working` description: the template and schema, when set. */
  workingGuide(): string {
    const { template, schema, maxTokens } = this.#deps.options.workingMemory
    const parts = [`At most ${maxTokens} tokens.`]
    if (schema !== undefined)
      parts.push(`Content must be JSON matching this JSON Schema: ${JSON.stringify(schema)}`)
    if (template !== undefined) parts.push(`Follow this template:\n${template}`)
    return parts.join(' ')
  }

  #document(method: string, namespace: unknown, key: unknown) {
    assertNamespace(namespace, this.#what(method))
    if (typeof key !== 'string') invalidOptions(`${this.#what(method)}: key must be a string.`, { key })
  }

  async putDocument(namespace: readonly string[], key: string, value: JsonObject): Promise<ResourceDocument> {
    const store = this.#store('putDocument')
    this.#document('putDocument', namespace, key)
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      invalidOptions(`${this.#what('putDocument')}: value must be a JSON object, e.g. { text: '…' }.`)
    assertSerializable(value, 'value')
    return store.putDocument(this.id, namespace, key, value)
  }

  async getDocument(namespace: readonly string[], key: string): Promise<ResourceDocument | undefined> {
    const store = this.#store('getDocument')
    this.#document('getDocument', namespace, key)
    return store.getDocument(this.id, namespace, key)
  }

  async deleteDocument(namespace: readonly string[], key: string): Promise<boolean> {
    const store = this.#store('deleteDocument')
    this.#document('deleteDocument', namespace, key)
    return store.deleteDocument(this.id, namespace, key)
  }

  async searchDocuments(
    namespacePrefix: readonly string[],
    options: SearchDocumentsOptions = {},
  ): Promise<ResourceDocumentHit[]> {
    const store = this.#store('searchDocuments')
    const what = this.#what('searchDocuments')
    assertNamespace(namespacePrefix, what, true)
    const documents = await store.listDocuments(this.id, { namespacePrefix })
    return searchDocuments(documents, options, this.#documentRanking, what)
  }

  async listNamespaces(options: ListNamespacesOptions = {}): Promise<string[][]> {
    const store = this.#store('listNamespaces')
    return listNamespaces(await store.listDocuments(this.id), options, this.#what('listNamespaces'))
  }

  async delete(): Promise<void> {
    await this.#store('delete').deleteResource(this.id)
    this.#deps.deleted(this.id)
  }
}
