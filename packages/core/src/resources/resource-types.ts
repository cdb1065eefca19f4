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
  /** Ranked by these words (word ranking; hybrid when the memory has an embedder). */
  query?: string
  /** Every key must equal the document value's field (top-level fields). */
  filter?: JsonObject
  /** @default 10 */
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
  /** Documents under a namespace prefix, filtered and ranked. */
  searchDocuments(
    namespacePrefix: readonly string[],
    options?: SearchDocumentsOptions,
  ): Promise<ResourceDocument[]>
  /** The distinct namespaces of its documents, sorted. */
  listNamespaces(options?: {
    prefix?: readonly string[]
    maxDepth?: number
    limit?: number
    offset?: number
  }): Promise<string[][]>
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
