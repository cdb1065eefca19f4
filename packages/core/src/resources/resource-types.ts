import type { JsonObject, JsonValue } from '../items'
import type { ResourceDocument, ResourceThreadPage, VersionedValue } from '../stores/store'

/** Options of {@link Resource.setWorkingMemory}. */
export interface SetWorkingMemoryOptions {
  /** The version the caller read (0 when there was none); a newer stored version is `STRATA_SEQ_CONFLICT`. */
  version: number
}

/** A fact of one of the resource's threads, merged across threads. */
export interface ResourceFact {
  /** The fact's text (one line). */
  text: string
  /** Where it came from: every thread and seq that holds it, oldest first. */
  sources: { threadId: string; seq: number }[]
}

/** Options of {@link Resource.query}. */
export interface ResourceQueryOptions {
  /** At most this many hits. @default 10 */
  limit?: number
  /** Only these threads of the resource. */
  threads?: readonly string[]
}

/** One ranked hit of {@link Resource.query}. */
export interface ResourceQueryHit {
  threadId: string
  /** The item's seq (for content: the item that offloaded it). */
  seq: number
  /** What matched: a history item (active or archived), offloaded content or a fact. */
  kind: 'item' | 'content' | 'fact'
  /** The memory id of content hits, retrievable with `memory_retrieve` in that thread. */
  memoryId?: string
  /** A short excerpt around the match. */
  snippet: string
  /** Higher is better; comparable within one query only. */
  score: number
}

/** Options of {@link Resource.searchDocuments}. */
export interface SearchDocumentsOptions {
  /** Orders the documents by these words (word ranking over their JSON); never hides one. */
  query?: string
  /**
   * Every key must match the document value's top-level field: equal (deep equality), or meet an
   * operator object like `{ $gte: 3 }` (`$eq $ne $gt $gte $lt $lte $in $nin`).
   */
  filter?: JsonObject
  /** @default 10 */
  limit?: number
  /** @default 0 */
  offset?: number
}

/** A document `searchDocuments` found: with the word-ranking `score` when a query ranked it. */
export interface ResourceDocumentHit extends ResourceDocument {
  /** Higher is better; only on documents holding a word of the query. */
  score?: number
}

/** Options of {@link Resource.listNamespaces} (LangGraph's `listNamespaces`). */
export interface ListNamespacesOptions {
  /** Only namespaces starting with these labels (`*` matches any label). */
  prefix?: readonly string[]
  /** Only namespaces ending with these labels (`*` matches any label). */
  suffix?: readonly string[]
  /** Namespaces cut to this many labels (then deduplicated). */
  maxDepth?: number
  /** @default 100 */
  limit?: number
  /** @default 0 */
  offset?: number
}

/**
 * A resource (a user, a team, an account): owns threads, and what an agent knows about it across all
 * of them. From `memory.resource(id)`; a store without `flags.resources` refuses its methods with
 * `STRATA_STORE_CAPABILITY`.
 */
export interface Resource {
  readonly id: string
  /** The resource's threads, newest first by last append, a page at a time. */
  listThreads(options?: { cursor?: string; limit?: number }): Promise<ResourceThreadPage>
  /** Moves a thread to this resource (from none or another one). */
  adoptThread(threadId: string): Promise<void>
  /** The working memory document and its version, or undefined when never written. */
  getWorkingMemory(): Promise<VersionedValue | undefined>
  /** Writes the working memory (text, or JSON checked against the memory's schema) if still at `version`. */
  setWorkingMemory(value: JsonValue, options: SetWorkingMemoryOptions): Promise<VersionedValue>
  /** The facts of all its threads, merged and deduplicated. */
  facts(): Promise<ResourceFact[]>
  /** Ranked recall across its threads (items, archives, content, facts). */
  query(text: string, options?: ResourceQueryOptions): Promise<ResourceQueryHit[]>
  putDocument(namespace: readonly string[], key: string, value: JsonObject): Promise<ResourceDocument>
  getDocument(namespace: readonly string[], key: string): Promise<ResourceDocument | undefined>
  deleteDocument(namespace: readonly string[], key: string): Promise<boolean>
  /**
   * Documents under a namespace prefix (whole labels; all when empty), filtered on top-level fields
   * (equality, or `$eq $ne $gt $gte $lt $lte $in $nin`); with `query`, those holding its words first,
   * best first, each with its `score`. LangGraph's `BaseStore.search` semantics.
   */
  searchDocuments(
    namespacePrefix: readonly string[],
    options?: SearchDocumentsOptions,
  ): Promise<ResourceDocumentHit[]>
  /** The distinct namespaces of its documents, sorted label by label (LangGraph's `listNamespaces`). */
  listNamespaces(options?: ListNamespacesOptions): Promise<string[][]>
  /** Deletes the resource's documents, working memory and thread index (its threads stay, unbound). */
  delete(): Promise<void>
}

/**
 * Computes embeddings for semantic ranking (`createMemory({ embedder })`); adapters fill it from their
 * framework's embedding model. Called off the hot path.
 */
export interface Embedder {
  /** Names the model: vectors of different models are never compared. */
  readonly model: string
  embed(texts: readonly string[]): Promise<Float32Array[]>
}
