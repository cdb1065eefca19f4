import { assertThreadId, type JsonObject, type JsonValue } from '../items'
import {
  assertResourceId,
  bindingConflictError,
  checkDocumentKey,
  checkDocumentValue,
  checkExpectedResource,
  checkLastAppendAt,
  checkNamespace,
  checkNamespacePrefix,
  checkResourcePageOptions,
  checkVectorQuery,
  checkVectorRecords,
  checkWorkingMemoryArguments,
  compareDocuments,
  compareVectors,
  documentAddress,
  namespaceStartsWith,
  pageResourceThreads,
  vectorAddress,
  workingMemoryConflictError,
} from './resource-arguments'
import type {
  ResourceDocument,
  ResourceThreadPage,
  StoreResourceMethods,
  VectorRecord,
  VersionedValue,
} from './store'

/** A resource's own data: its thread index, working memory and documents. */
interface ResourceData {
  /** Thread id → its last append (epoch ms). */
  index: Map<string, number>
  workingMemory: VersionedValue | undefined
  /** {@link documentAddress} → document. */
  documents: Map<string, ResourceDocument>
}

/** The resource methods of `inMemoryStore`, and what its `deleteThread` calls to forget a thread. */
export interface InMemoryResources extends StoreResourceMethods {
  /** Removes the thread's binding, its entry in its resource's index and its vectors. */
  forgetThread(threadId: string): void
}

/** Resources kept in process memory, beside `inMemoryStore`'s threads; `clock` stamps the writes. */
export function inMemoryResources(clock: () => number): InMemoryResources {
  /** Thread id → the resource it is bound to. */
  const bindings = new Map<string, string>()
  const resources = new Map<string, ResourceData>()
  /** Thread id → {@link vectorAddress} → record. */
  const vectors = new Map<string, Map<string, VectorRecord>>()

  const opened = (resourceId: string): ResourceData => {
    let resource = resources.get(resourceId)
    if (resource === undefined) {
      resource = { index: new Map(), workingMemory: undefined, documents: new Map() }
      resources.set(resourceId, resource)
    }
    return resource
  }

  const documentOf = (resourceId: string, namespace: readonly string[], key: unknown, method: string) => {
    assertResourceId(resourceId)
    const labels = checkNamespace(namespace, method)
    const address = documentAddress(labels, checkDocumentKey(key, method))
    return { labels, address, documents: resources.get(resourceId)?.documents }
  }

  return {
    async getThreadResource(threadId: string): Promise<string | undefined> {
      assertThreadId(threadId)
      return bindings.get(threadId)
    },

    async setThreadResource(
      threadId: string,
      resourceId: string,
      options: { expected: string | undefined },
    ): Promise<void> {
      assertThreadId(threadId)
      assertResourceId(resourceId)
      const expected = checkExpectedResource(options)
      const actual = bindings.get(threadId)
      if (actual !== expected) throw bindingConflictError(threadId, expected, actual)
      const moved = actual === undefined ? undefined : resources.get(actual)?.index.get(threadId)
      if (actual !== undefined && actual !== resourceId) resources.get(actual)?.index.delete(threadId)
      bindings.set(threadId, resourceId)
      const index = opened(resourceId).index
      const indexed = index.get(threadId)
      index.set(threadId, Math.max(indexed ?? 0, moved ?? indexed ?? clock()))
    },

    async touchResourceThread(resourceId: string, threadId: string, lastAppendAt: number): Promise<void> {
      assertResourceId(resourceId)
      assertThreadId(threadId)
      const time = checkLastAppendAt(lastAppendAt)
      const index = opened(resourceId).index
      index.set(threadId, Math.max(index.get(threadId) ?? 0, time))
    },

    async listResourceThreads(
      resourceId: string,
      options?: { cursor?: string; limit?: number },
    ): Promise<ResourceThreadPage> {
      assertResourceId(resourceId)
      const page = checkResourcePageOptions(options)
      const index = resources.get(resourceId)?.index ?? new Map<string, number>()
      const entries = [...index].map(([threadId, lastAppendAt]) => ({ threadId, lastAppendAt }))
      return pageResourceThreads(entries, page)
    },

    async getWorkingMemory(resourceId: string): Promise<VersionedValue | undefined> {
      assertResourceId(resourceId)
      const stored = resources.get(resourceId)?.workingMemory
      return stored === undefined ? undefined : copy(stored)
    },

    async setWorkingMemory(
      resourceId: string,
      value: JsonValue,
      options: { expectedVersion: number },
    ): Promise<VersionedValue> {
      assertResourceId(resourceId)
      const expectedVersion = checkWorkingMemoryArguments(value, options)
      const actualVersion = resources.get(resourceId)?.workingMemory?.version ?? 0
      if (actualVersion !== expectedVersion) {
        throw workingMemoryConflictError(resourceId, expectedVersion, actualVersion)
      }
      const stored = { value: copy(value), version: actualVersion + 1, updatedAt: clock() }
      opened(resourceId).workingMemory = stored
      return copy(stored)
    },

    async putDocument(
      resourceId: string,
      namespace: readonly string[],
      key: string,
      value: JsonObject,
    ): Promise<ResourceDocument> {
      const { labels, address, documents } = documentOf(resourceId, namespace, key, 'putDocument')
      checkDocumentValue(value)
      const now = clock()
      const createdAt = documents?.get(address)?.createdAt ?? now
      const stored = { namespace: labels, key, value: copy(value), createdAt, updatedAt: now }
      opened(resourceId).documents.set(address, stored)
      return copy(stored)
    },

    async getDocument(
      resourceId: string,
      namespace: readonly string[],
      key: string,
    ): Promise<ResourceDocument | undefined> {
      const { address, documents } = documentOf(resourceId, namespace, key, 'getDocument')
      const stored = documents?.get(address)
      return stored === undefined ? undefined : copy(stored)
    },

    async deleteDocument(resourceId: string, namespace: readonly string[], key: string): Promise<boolean> {
      const { address, documents } = documentOf(resourceId, namespace, key, 'deleteDocument')
      return documents?.delete(address) ?? false
    },

    async listDocuments(
      resourceId: string,
      options?: { namespacePrefix?: readonly string[] },
    ): Promise<ResourceDocument[]> {
      assertResourceId(resourceId)
      const prefix = checkNamespacePrefix(options?.namespacePrefix, 'listDocuments')
      const documents = [...(resources.get(resourceId)?.documents.values() ?? [])]
      return documents
        .filter((document) => namespaceStartsWith(document.namespace, prefix))
        .sort(compareDocuments)
        .map(copy)
    },

    async deleteResource(resourceId: string): Promise<void> {
      assertResourceId(resourceId)
      for (const [threadId, bound] of bindings) if (bound === resourceId) bindings.delete(threadId)
      resources.delete(resourceId)
    },

    async putVectors(threadId: string, records: readonly VectorRecord[]): Promise<void> {
      assertThreadId(threadId)
      checkVectorRecords(records)
      if (records.length === 0) return
      let stored = vectors.get(threadId)
      if (stored === undefined) {
        stored = new Map()
        vectors.set(threadId, stored)
      }
      for (const record of records) stored.set(vectorAddress(record), copyVector(record))
    },

    async readVectors(threadId: string, options?: { model?: string }): Promise<VectorRecord[]> {
      assertThreadId(threadId)
      const model = checkVectorQuery(options)
      const records = [...(vectors.get(threadId)?.values() ?? [])]
      return records
        .filter((record) => model === undefined || record.model === model)
        .sort(compareVectors)
        .map(copyVector)
    },

    forgetThread(threadId: string): void {
      const resourceId = bindings.get(threadId)
      if (resourceId !== undefined) resources.get(resourceId)?.index.delete(threadId)
      bindings.delete(threadId)
      vectors.delete(threadId)
    },
  }
}

/** A deep copy through JSON, as a persistent store would return it. */
function copy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T
}

function copyVector({ id, model, vector }: VectorRecord): VectorRecord {
  return { id, model, vector: new Float32Array(vector) }
}
