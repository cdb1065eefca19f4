import { invalidOptions } from '../errors'
import type { JsonObject } from '../items'
import { assertSchemaSubset } from './json-schema-check'

/** The working memory of `createMemory({ resources: { workingMemory } })`. */
export interface WorkingMemoryOptions {
  /**
   * A JSON Schema every write must conform to (a subset: `type`, `properties`, `required`,
   * `additionalProperties`, `items`, `enum`, `const`, `minLength`/`maxLength`, `minimum`/`maximum`,
   * `minItems`/`maxItems`; any other keyword is refused here). Without one, any JSON value or text.
   */
  schema?: JsonObject
  /**
   * What the working memory holds before its first write: shown in the context and to the model, so
   * it knows the shape to fill (e.g. `'# User\n- Name:\n- Preferences:'`).
   */
  template?: string
  /**
   * The most tokens the working memory may take: a longer write is refused, and the context's slot
   * never shows more. @default 1000
   */
  maxTokens?: number
}

/** Recall from the resource's other threads into each context. */
export interface ResourceRecallOptions {
  /** The most recalls shown, best first. @default 5 */
  limit?: number
}

/** The in-process search index of a memory's resources. */
export interface ResourceIndexOptions {
  /**
   * The most entries (items, facts, content) the memory keeps indexed across all its resources and
   * its threads' own `memory_query` indexes. A first query reads the threads from the store and
   * indexes them; later queries read only each thread's head and what was appended since. Past this
   * bound, the least recently queried indexes are dropped from memory and built again at their next
   * query. @default 250000
   */
  maxEntries?: number
}

/** Options of `createMemory({ resources })`: what a thread bound to a resource shows. */
export interface ResourceOptions {
  /** The search index behind `resource.query()`, recall and `memory_query` with `scope: 'resource'`. */
  index?: ResourceIndexOptions
  /** The working memory document: its schema, template and size. */
  workingMemory?: WorkingMemoryOptions
  /**
   * When given, each context of a thread with a resource shows, under `[MEMORY:RECALL]`, the best
   * matches of the turn's request among the resource's other threads. @default false
   */
  recall?: ResourceRecallOptions | false
}

/** {@link ResourceOptions}, checked and with their defaults. */
export interface ResolvedResourceOptions {
  workingMemory: { schema?: JsonObject; template?: string; maxTokens: number }
  recall: { limit: number } | false
  index: { maxEntries: number }
}

export const DEFAULT_WORKING_MEMORY_TOKENS = 1000
export const DEFAULT_RECALL_LIMIT = 5
export const DEFAULT_INDEX_ENTRIES = 250_000

const positiveInteger = (value: unknown) => typeof value === 'number' && Number.isInteger(value) && value > 0

/** Checks `createMemory({ resources })`; `STRATA_INVALID_OPTIONS` naming the bad option. */
export function resolveResourceOptions(options: ResourceOptions | undefined): ResolvedResourceOptions {
  if (options !== undefined && (typeof options !== 'object' || options === null))
    invalidOptions('createMemory(): resources must be an object like { workingMemory: { maxTokens: 500 } }.')
  const working = options?.workingMemory ?? {}
  if (typeof working !== 'object' || working === null)
    invalidOptions(
      'createMemory(): resources.workingMemory must be an object like { schema, template, maxTokens }.',
    )
  const { schema, template, maxTokens = DEFAULT_WORKING_MEMORY_TOKENS } = working
  if (schema !== undefined) assertSchemaSubset(schema, 'createMemory(): resources.workingMemory.schema')
  if (template !== undefined && typeof template !== 'string')
    invalidOptions('createMemory(): resources.workingMemory.template must be a string.')
  if (!positiveInteger(maxTokens))
    invalidOptions('createMemory(): resources.workingMemory.maxTokens must be a positive integer.', {
      maxTokens,
    })
  const recallOption = options?.recall ?? false
  let recall: ResolvedResourceOptions['recall'] = false
  if (recallOption !== false) {
    if (typeof recallOption !== 'object' || recallOption === null)
      invalidOptions('createMemory(): resources.recall must be false or an object like { limit: 5 }.')
    const { limit = DEFAULT_RECALL_LIMIT } = recallOption
    if (!positiveInteger(limit) || limit > 50)
      invalidOptions('createMemory(): resources.recall.limit must be an integer from 1 to 50.', { limit })
    recall = { limit }
  }
  const index = options?.index ?? {}
  if (typeof index !== 'object' || index === null)
    invalidOptions('createMemory(): resources.index must be an object like { maxEntries: 250000 }.')
  const { maxEntries = DEFAULT_INDEX_ENTRIES } = index
  if (!positiveInteger(maxEntries))
    invalidOptions('createMemory(): resources.index.maxEntries must be a positive integer.', { maxEntries })
  return {
    index: { maxEntries },
    workingMemory: {
      ...(schema === undefined ? {} : { schema }),
      ...(template === undefined ? {} : { template }),
      maxTokens,
    },
    recall,
  }
}
