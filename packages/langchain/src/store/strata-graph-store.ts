import {
  BaseStore,
  type Item,
  type ListNamespacesOperation,
  type Operation,
  type OperationResults,
  type SearchItem,
  type SearchOperation,
} from '@langchain/langgraph-checkpoint'
import {
  invalidOptions,
  isValidThreadId,
  type JsonObject,
  type Memory,
  type Resource,
  type ResourceDocument,
  StrataError,
} from '@strata-memory/core'
import { checkMemoryArgument } from '@strata-memory/core/adapter-kit'
import { classifyOperations, type GraphOperation } from './graph-operations'

/** Options of {@link strataGraphStore}. */
export interface StrataGraphStoreOptions {
  /**
   * Names the resource (a user, a team, an account) a namespace belongs to; its documents live in that
   * resource, so `memory.resource(id).delete()` deletes them. Also called with the prefix of a
   * `search` and of a `listNamespaces`, which reach only that resource's documents: return undefined
   * when a prefix names none (the operation is then refused).
   * @default the namespace's first label (`['user-42', 'memories']` → `'user-42'`), none for `'*'`
   */
  resourceOf?: (namespace: readonly string[]) => string | undefined
}

const firstLabel = (namespace: readonly string[]): string | undefined =>
  namespace[0] === '*' ? undefined : namespace[0]

const toItem = (document: ResourceDocument): Item => ({
  value: document.value,
  key: document.key,
  namespace: [...document.namespace],
  createdAt: new Date(document.createdAt),
  updatedAt: new Date(document.updatedAt),
})

/**
 * LangGraph's `BaseStore` on Strata resource documents: what `createAgent({ store })` and a tool's
 * `runtime.store` read and write, kept in the store the memory persists to (file, Redis, in memory).
 * Create it with {@link strataGraphStore}.
 */
export class StrataGraphStore extends BaseStore {
  readonly memory: Memory
  readonly #resourceOf: (namespace: readonly string[]) => string | undefined

  constructor(memory: Memory, { resourceOf = firstLabel }: StrataGraphStoreOptions = {}) {
    super()
    checkMemoryArgument('strataGraphStore(memory)', memory)
    if (typeof resourceOf !== 'function')
      invalidOptions('strataGraphStore: resourceOf must be a function from a namespace to a resource id.')
    this.memory = memory
    this.#resourceOf = resourceOf
  }

  /**
   * Runs the operations in order, each seeing the writes before it; a put with a null value deletes.
   * Every operation is checked first: a batch with a bad one writes nothing.
   */
  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const planned = classifyOperations(operations).map((step) => ({
      step,
      resource: this.#resource(step),
    }))
    const results: unknown[] = []
    for (const { step, resource } of planned) results.push(await this.#run(step, resource))
    return results as OperationResults<Op>
  }

  async #run(step: GraphOperation, resource: Resource): Promise<unknown> {
    switch (step.kind) {
      case 'get': {
        const { namespace, key } = step.operation
        const document = await resource.getDocument(namespace, key)
        return document === undefined ? null : toItem(document)
      }
      case 'put': {
        const { namespace, key, value } = step.operation
        if (value === null) await resource.deleteDocument(namespace, key)
        else await resource.putDocument(namespace, key, value as JsonObject)
        return undefined
      }
      case 'search':
        return this.#search(step.operation, resource)
      case 'list':
        return this.#listNamespaces(step.operation, resource)
    }
  }

  async #search(operation: SearchOperation, resource: Resource): Promise<SearchItem[]> {
    const { namespacePrefix, filter, query, limit, offset } = operation
    const hits = await resource.searchDocuments(namespacePrefix, {
      ...(filter == null ? {} : { filter: filter as JsonObject }),
      ...(query == null ? {} : { query }),
      ...(limit === undefined ? {} : { limit }),
      ...(offset === undefined ? {} : { offset }),
    })
    return hits.map((hit) => ({ ...toItem(hit), score: hit.score }))
  }

  async #listNamespaces(operation: ListNamespacesOperation, resource: Resource): Promise<string[][]> {
    const { prefix, suffix } = conditionsOf(operation)
    return resource.listNamespaces({
      ...(prefix === undefined ? {} : { prefix }),
      ...(suffix === undefined ? {} : { suffix }),
      ...(operation.maxDepth === undefined ? {} : { maxDepth: operation.maxDepth }),
      ...(operation.limit === undefined ? {} : { limit: operation.limit }),
      ...(operation.offset === undefined ? {} : { offset: operation.offset }),
    })
  }

  /** The resource an operation reaches, by `resourceOf` of its namespace or prefix. */
  #resource(step: GraphOperation): Resource {
    const [namespace, what] =
      step.kind === 'search'
        ? [step.operation.namespacePrefix, 'search prefix']
        : step.kind === 'list'
          ? [conditionsOf(step.operation).prefix ?? [], 'listNamespaces prefix']
          : [step.operation.namespace, 'namespace']
    const resourceId = this.#resourceOf(namespace)
    if (resourceId === undefined)
      invalidOptions(
        `strataGraphStore: the ${what} ${JSON.stringify(namespace)} names no resource. Each user's documents live in their own resource: start namespaces with the user id, e.g. ['user-42', 'memories'], or pass strataGraphStore(memory, { resourceOf }) to say which label names it. Nothing was written.`,
        { namespace },
      )
    if (!isValidThreadId(resourceId))
      throw new StrataError({
        code: 'STRATA_INVALID_THREAD_ID',
        message: `strataGraphStore: the ${what} ${JSON.stringify(namespace)} names the resource ${JSON.stringify(resourceId)}, which is not a resource id (1-128 characters of A-Z a-z 0-9 _ . - not starting with '.'). Map your ids with strataGraphStore(memory, { resourceOf }). Nothing was written.`,
        details: { threadId: resourceId, namespace },
      })
    return this.memory.resource(resourceId)
  }
}

/** The prefix and suffix of a listing (LangGraph's `listNamespaces` sends at most one of each). */
function conditionsOf(operation: ListNamespacesOperation): { prefix?: string[]; suffix?: string[] } {
  const found: { prefix?: string[]; suffix?: string[] } = {}
  for (const { matchType, path } of operation.matchConditions ?? []) {
    if (found[matchType] !== undefined)
      invalidOptions(
        `strataGraphStore: listNamespaces takes at most one ${matchType} condition; merge them into one path ('*' matches any label).`,
      )
    found[matchType] = [...path]
  }
  return found
}

/**
 * A LangGraph store (`BaseStore`) on the memory's resource documents, for `createAgent({ store })`,
 * a graph's `compile({ store })` and a tool's `runtime.store`. Each namespace belongs to a resource
 * (by default its first label, the user id), so a user's documents sit beside their threads and
 * working memory and go with `memory.resource(id).delete()`. `search` with a `query` ranks by words
 * (hits first, with `score`). Needs a store with resources (in memory, file, Redis).
 *
 * @example
 * const agent = createAgent({ model, tools, store: strataGraphStore(memory) })
 * // in a tool: await runtime.store.put([userId, 'memories'], 'diet', { text: 'vegetarian' })
 */
export function strataGraphStore(memory: Memory, options: StrataGraphStoreOptions = {}): StrataGraphStore {
  return new StrataGraphStore(memory, options)
}
