import type { JsonObject } from '../items'
import type { RetrieveTransform } from './retrieve-transform'

/** The names of the three memory tools every thread has. */
export type MemoryToolName = 'memory_store' | 'memory_retrieve' | 'memory_query'

/** The name of the tool only a thread with a resource has. */
export type ResourceToolName = 'memory_update_working'

/**
 * Where a memory lives: `content` (the content store), `view` (in the thread's current view),
 * `out-of-view` (in the active log, hidden by the level rule or the waterfall window), `archive`
 * (archived by compaction), `summary` or `fact` (summary and fact items of the active log).
 */
export type MemoryHitLocation = 'content' | 'view' | 'out-of-view' | 'archive' | 'summary' | 'fact'

/** Input of `memory_store`. */
export interface MemoryStoreInput {
  content: string
  /** @default 'text'; `json` content must parse as JSON */
  type?: string
  tags?: string[]
}

/** Output of `memory_store`. */
export interface MemoryStoreOutput {
  id: string
  type: string
  /** UTF-8 bytes. */
  size: number
}

/** Input of `memory_retrieve`. */
export interface MemoryRetrieveInput {
  /** A memory id (`mem_…`) or an item id returned by `memory_query`. */
  id: string
  /** @default 'full' */
  transform?: RetrieveTransform
  /** `first_n` / `last_n`: how many lines of text, or elements of a JSON array (entries of an object). @default 20 */
  n?: number
  /**
   * `filtered`: keep the lines (text), or the elements of the JSON's lists at any depth with the
   * document's shape around them, containing it, case-insensitive; `excerpt`: centre on its first match.
   */
  pattern?: string
  /** `excerpt` / `summary` length cap in characters. @default 1000 (excerpt), 800 (summary) */
  maxChars?: number
}

/** Output of `memory_retrieve`. */
export interface MemoryRetrieveOutput {
  id: string
  where: MemoryHitLocation
  type: string
  transform: RetrieveTransform
  content: string
  /** UTF-8 bytes of the whole stored content. */
  size: number
  /** True when `content` is not the whole stored content. */
  truncated: boolean
  /** Said when the transform could not do what was asked: a `filtered` that removed nothing, or nothing matched. */
  note?: string
}

/** Input of `memory_query`; every given filter must match. */
export interface MemoryQueryInput {
  type?: string
  source?: string
  /** Every tag listed must be present. */
  tags?: string[]
  /** Inclusive bounds on the timestamp, epoch ms. */
  fromTs?: number
  toTs?: number
  /**
   * Words to rank by: entries holding any of them, best first (BM25 over text, tool and tags), with a
   * snippet where they meet. Case, accents and plurals are ignored; `PO-7001` matches whole and by parts.
   */
  text?: string
  level?: string
  /** @default 10 (at most 100) */
  limit?: number
  /**
   * `thread`: this conversation; `resource`: every conversation of the thread's resource (its user),
   * this one included, ranked together. @default 'thread'
   */
  scope?: 'thread' | 'resource'
}

/** One result of `memory_query`. */
export interface MemoryQueryHit {
  id: string
  where: MemoryHitLocation
  type: string
  source?: string
  level?: string
  ts: number
  /** UTF-8 bytes of the whole content. */
  size: number
  tags: string[]
  /** About 160 characters around where the query's words meet (or the start). */
  snippet: string
  /** `scope: 'resource'`: the thread it was found in (`id` is retrievable there). */
  threadId?: string
  /** `scope: 'resource'`: its item's seq in that thread (for content: the item that offloaded it). */
  seq?: number
}

/** Output of `memory_query`: best first with `text`, else newest first. */
export interface MemoryQueryOutput {
  results: MemoryQueryHit[]
}

/** Input of `memory_update_working`. */
export interface MemoryUpdateWorkingInput {
  /** The whole new working memory: text, or JSON text when the memory has a schema. */
  content: string
  /** The version the context showed (`[MEMORY:WORKING version=N]`), 0 before the first write. */
  version: number
}

/** Output of `memory_update_working`: the version written. */
export interface MemoryUpdateWorkingOutput {
  version: number
}

/**
 * `memory_update_working` refused a stale version: someone wrote the working memory since the
 * version the model named. It carries the current version and content, to merge and write again.
 */
export interface MemoryUpdateWorkingConflict {
  error: { code: 'STRATA_SEQ_CONFLICT'; message: string }
  current: { version: number; content: string }
}

/**
 * What the resource tools (`memory_query` with `scope: 'resource'`, `memory_update_working`) need of
 * the thread's resource. A thread opened with a resource has one.
 */
export interface ToolResource {
  readonly id: string
  /** The working memory, as text, and its version (0 and the template, or empty, before the first write). */
  readWorking(): Promise<{ version: number; content: string }>
  /** Writes the working memory from the model's text (parsed as JSON when the memory has a schema). */
  writeWorking(content: string, version: number): Promise<{ version: number }>
  /** What the working memory is for and its shape (template, schema), for the tool's description. */
  workingGuide(): string
  /** `memory_query` over every thread of the resource; `matches` are the query's filters (none: all). */
  queryHits(
    text: string,
    limit: number,
    matches?: (entry: Pick<MemoryQueryHit, 'type' | 'source' | 'level' | 'ts' | 'tags'>) => boolean,
  ): Promise<MemoryQueryHit[]>
}

/** What the model reads when a call fails; tools never throw for bad model input. */
export interface MemoryToolError {
  error: { code: string; message: string }
}

/** A framework-neutral tool: adapters wrap it in their framework's tool type. */
// biome-ignore lint/correctness/noUnusedVariables: Input documents what execute accepts; adapters map it to their schema types.
export interface MemoryTool<Input, Output, Name extends string = MemoryToolName> {
  name: Name
  description: string
  /** JSON Schema (draft 2020-12 subset: type/properties/required/enum/items/minimum/description). */
  inputSchema: JsonObject
  /** Runs the tool. The input is checked here; a bad one gives a {@link MemoryToolError}. */
  execute(input: unknown): Promise<Output | MemoryToolError>
}

/** The memory tools bound to one thread. */
export interface MemoryTools {
  memory_store: MemoryTool<MemoryStoreInput, MemoryStoreOutput>
  memory_retrieve: MemoryTool<MemoryRetrieveInput, MemoryRetrieveOutput>
  memory_query: MemoryTool<MemoryQueryInput, MemoryQueryOutput>
  /**
   * Rewrites the resource's working memory; only for a thread with a resource. A stale version is
   * refused with the current version and content ({@link MemoryUpdateWorkingConflict}).
   */
  memory_update_working?: MemoryTool<
    MemoryUpdateWorkingInput,
    MemoryUpdateWorkingOutput | MemoryUpdateWorkingConflict,
    ResourceToolName
  >
}
