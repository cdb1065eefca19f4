import {
  assertThreadId,
  type JsonObject,
  type JsonValue,
  type ResourceDocument,
  type StoreResourceMethods,
  type VectorRecord,
} from '@strata-memory/core'
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
  encodeResourceCursor,
  isPlainObject,
  namespaceStartsWith,
  vectorAddress,
  workingMemoryConflictError,
} from '@strata-memory/core/store-kit'
import type { LuaScript } from './lua-scripts'
import type { RedisContext } from './redis-context'
import { corruptError, storeError } from './redis-errors'
import { entryOfMember, indexMember, resourceKeys, threadResourceKeys } from './resource-keys'
import {
  BIND_SCRIPT,
  FINISH_MOVE_SCRIPT,
  HASH_ENTRIES_SCRIPT,
  PUT_DOCUMENT_SCRIPT,
  REMOVE_ENTRY_SCRIPT,
  SET_WORKING_MEMORY_SCRIPT,
  UNBIND_SCRIPT,
  UPSERT_ENTRY_SCRIPT,
} from './resource-scripts'

/**
 * The store's resources (store contract `v2`). A resource's index, working memory and documents are
 * keys of the resource's slot (`<prefix>:res:{<resourceId>}:…`), changed by scripts on that slot, so
 * every compare-and-set is atomic on Cluster too. A thread's binding and vectors are keys of the
 * thread's slot. A move touches two slots: the binding's compare-and-set first (recording where the
 * thread comes from), then the two indexes, then the record is cleared; a move cut short is finished by
 * the next `setThreadResource` of that thread, so a retried or repeated move converges.
 */
export function redisResources(context: RedisContext): StoreResourceMethods & {
  /** Removes the thread's entry from its resource's index (deleteThread, before the thread's keys go). */
  forgetThread(threadId: string): Promise<void>
} {
  const { connection, prefix, checkOpen, send, parseJson } = context

  const evaluate = async (
    script: LuaScript,
    keys: string[],
    args: string[],
    id: string,
  ): Promise<string[]> => {
    checkOpen()
    try {
      return ((await connection.evaluate(script, keys, args)) as unknown[]).map(String)
    } catch (error) {
      throw storeError(error, prefix, keys[0]!, 'EVALSHA', id)
    }
  }

  const hashEntries = async (key: string, id: string): Promise<[string, string][]> => {
    const flat = await evaluate(HASH_ENTRIES_SCRIPT, [key], [], id)
    const entries: [string, string][] = []
    for (let index = 0; index + 1 < flat.length; index += 2) entries.push([flat[index]!, flat[index + 1]!])
    return entries
  }

  const indexKeys = (resourceId: string) => {
    const keys = resourceKeys(prefix, resourceId)
    return [keys.index, keys.times]
  }

  const upsertEntry = (resourceId: string, threadId: string, time: number, mode: 'max' | 'missing') =>
    evaluate(UPSERT_ENTRY_SCRIPT, indexKeys(resourceId), [threadId, String(time), mode], resourceId)

  /** Removes a thread's index entry; its lastAppendAt, when it had one. */
  const removeEntry = async (resourceId: string, threadId: string): Promise<number | undefined> => {
    const [, old] = await evaluate(REMOVE_ENTRY_SCRIPT, indexKeys(resourceId), [threadId], resourceId)
    return old === undefined || old === '' ? undefined : Number(old)
  }

  const readBinding = async (threadId: string): Promise<{ resource?: string; from?: string }> => {
    const key = threadResourceKeys(prefix, threadId).binding
    const [resource, from] = (await send(key, ['HMGET', key, 'resource', 'from'], threadId)) as unknown[]
    return {
      ...(typeof resource === 'string' ? { resource } : {}),
      ...(typeof from === 'string' ? { from } : {}),
    }
  }

  const documentArguments = (
    resourceId: string,
    namespace: readonly string[],
    key: unknown,
    method: string,
  ) => {
    assertResourceId(resourceId)
    const labels = checkNamespace(namespace, method)
    const checkedKey = checkDocumentKey(key, method)
    return { labels, key: checkedKey, address: documentAddress(labels, checkedKey) }
  }

  const parseDocument = (
    json: unknown,
    createdAt: unknown,
    key: string,
    resourceId: string,
  ): ResourceDocument => {
    const document = parseJson(json, key, resourceId)
    if (!isPlainObject(document) || !Array.isArray(document.namespace) || !isPlainObject(document.value)) {
      throw corruptError(prefix, key, 'a field that is not a document', resourceId)
    }
    return { ...(document as unknown as ResourceDocument), createdAt: Number(createdAt) }
  }

  return {
    async getThreadResource(threadId) {
      assertThreadId(threadId)
      return (await readBinding(threadId)).resource
    },

    async setThreadResource(threadId, resourceId, options) {
      assertThreadId(threadId)
      assertResourceId(resourceId)
      const expected = checkExpectedResource(options)
      const binding = threadResourceKeys(prefix, threadId).binding
      const [status, actualOrFrom] = await evaluate(
        BIND_SCRIPT,
        [binding],
        [expected ?? '', resourceId],
        threadId,
      )
      if (status === 'conflict') {
        throw bindingConflictError(threadId, expected, actualOrFrom === '' ? undefined : actualOrFrom)
      }
      const from = actualOrFrom === '' || actualOrFrom === resourceId ? undefined : actualOrFrom
      const carried = from === undefined ? undefined : await removeEntry(from, threadId)
      if (carried === undefined) await upsertEntry(resourceId, threadId, Date.now(), 'missing')
      else await upsertEntry(resourceId, threadId, carried, 'max')
      if (actualOrFrom !== '')
        await evaluate(FINISH_MOVE_SCRIPT, [binding], [resourceId, actualOrFrom!], threadId)
    },

    async touchResourceThread(resourceId, threadId, lastAppendAt) {
      assertResourceId(resourceId)
      assertThreadId(threadId)
      await upsertEntry(resourceId, threadId, checkLastAppendAt(lastAppendAt), 'max')
    },

    async listResourceThreads(resourceId, options) {
      assertResourceId(resourceId)
      const { limit, after } = checkResourcePageOptions(options)
      const { index } = resourceKeys(prefix, resourceId)
      const from = after === undefined ? '-' : `(${indexMember(after.lastAppendAt, after.threadId)}`
      const members = (await send(
        index,
        ['ZRANGEBYLEX', index, from, '+', 'LIMIT', '0', String(limit + 1)],
        resourceId,
      )) as unknown[]
      const threads = members.slice(0, limit).map((member) => {
        const entry = entryOfMember(String(member))
        if (entry === undefined)
          throw corruptError(prefix, index, 'a member that is no index entry', resourceId)
        return entry
      })
      const last = threads.at(-1)
      return members.length > limit && last !== undefined
        ? { threads, cursor: encodeResourceCursor(last) }
        : { threads }
    },

    async getWorkingMemory(resourceId) {
      assertResourceId(resourceId)
      const { working } = resourceKeys(prefix, resourceId)
      const [version, value, updatedAt] = (await send(
        working,
        ['HMGET', working, 'version', 'value', 'updatedAt'],
        resourceId,
      )) as unknown[]
      if (version === null || version === undefined) return undefined
      return {
        value: parseJson(value, working, resourceId) as JsonValue,
        version: Number(version),
        updatedAt: Number(updatedAt),
      }
    },

    async setWorkingMemory(resourceId: string, value: JsonValue, options: { expectedVersion: number }) {
      assertResourceId(resourceId)
      const expectedVersion = checkWorkingMemoryArguments(value, options)
      const { working } = resourceKeys(prefix, resourceId)
      const json = JSON.stringify(value)
      const updatedAt = Date.now()
      const [status, version] = await evaluate(
        SET_WORKING_MEMORY_SCRIPT,
        [working],
        [String(expectedVersion), json, String(updatedAt)],
        resourceId,
      )
      if (status === 'conflict')
        throw workingMemoryConflictError(resourceId, expectedVersion, Number(version))
      return { value: JSON.parse(json) as JsonValue, version: Number(version), updatedAt }
    },

    async putDocument(resourceId: string, namespace: readonly string[], key: string, value: JsonObject) {
      const checked = documentArguments(resourceId, namespace, key, 'putDocument')
      checkDocumentValue(value)
      const { documents } = resourceKeys(prefix, resourceId)
      const now = Date.now()
      const json = JSON.stringify({ namespace: checked.labels, key: checked.key, value, updatedAt: now })
      const [, createdAt] = await evaluate(
        PUT_DOCUMENT_SCRIPT,
        [documents],
        [checked.address, json, String(now)],
        resourceId,
      )
      return parseDocument(json, createdAt, documents, resourceId)
    },

    async getDocument(resourceId, namespace, key) {
      const { address } = documentArguments(resourceId, namespace, key, 'getDocument')
      const { documents } = resourceKeys(prefix, resourceId)
      const [json, createdAt] = (await send(
        documents,
        ['HMGET', documents, `d:${address}`, `c:${address}`],
        resourceId,
      )) as unknown[]
      return json === null || json === undefined
        ? undefined
        : parseDocument(json, createdAt, documents, resourceId)
    },

    async deleteDocument(resourceId, namespace, key) {
      const { address } = documentArguments(resourceId, namespace, key, 'deleteDocument')
      const { documents } = resourceKeys(prefix, resourceId)
      const removed = await send(documents, ['HDEL', documents, `d:${address}`, `c:${address}`], resourceId)
      return Number(removed) > 0
    },

    async listDocuments(resourceId, options) {
      assertResourceId(resourceId)
      const prefixLabels = checkNamespacePrefix(options?.namespacePrefix, 'listDocuments')
      const { documents } = resourceKeys(prefix, resourceId)
      const fields = new Map(await hashEntries(documents, resourceId))
      const listed: ResourceDocument[] = []
      for (const [field, json] of fields) {
        if (!field.startsWith('d:')) continue
        const document = parseDocument(json, fields.get(`c:${field.slice(2)}`), documents, resourceId)
        if (namespaceStartsWith(document.namespace, prefixLabels)) listed.push(document)
      }
      return listed.sort(compareDocuments)
    },

    async deleteResource(resourceId) {
      assertResourceId(resourceId)
      const keys = resourceKeys(prefix, resourceId)
      const members = (await send(keys.index, ['ZRANGE', keys.index, '0', '-1'], resourceId)) as unknown[]
      await send(keys.index, ['DEL', keys.index, keys.times, keys.working, keys.documents], resourceId)
      // Then its threads are unbound, each on its own slot, if still bound to it.
      for (const member of members) {
        const entry = entryOfMember(String(member))
        if (entry === undefined) continue
        const binding = threadResourceKeys(prefix, entry.threadId).binding
        await evaluate(UNBIND_SCRIPT, [binding], [resourceId], entry.threadId)
      }
    },

    async putVectors(threadId, records) {
      assertThreadId(threadId)
      checkVectorRecords(records)
      if (records.length === 0) return
      const { vectors } = threadResourceKeys(prefix, threadId)
      const fields: string[] = []
      for (const record of records) fields.push(vectorAddress(record), encodeVector(record.vector))
      await send(vectors, ['HSET', vectors, ...fields], threadId)
    },

    async readVectors(threadId, options) {
      assertThreadId(threadId)
      const model = checkVectorQuery(options)
      const { vectors } = threadResourceKeys(prefix, threadId)
      const records: VectorRecord[] = []
      for (const [field, value] of await hashEntries(vectors, threadId)) {
        const address = parseJson(field, vectors, threadId)
        if (!Array.isArray(address) || typeof address[0] !== 'string' || typeof address[1] !== 'string') {
          throw corruptError(prefix, vectors, 'a field that is no vector address', threadId)
        }
        if (model !== undefined && address[1] !== model) continue
        records.push({ id: address[0], model: address[1], vector: decodeVector(value) })
      }
      return records.sort(compareVectors)
    },

    async forgetThread(threadId) {
      const { resource, from } = await readBinding(threadId)
      for (const resourceId of new Set([resource, from])) {
        if (resourceId !== undefined) await removeEntry(resourceId, threadId)
      }
    },
  }
}

/** A vector as its float32 values, little-endian, in base64 (binary-safe through any client's decoding). */
function encodeVector(vector: Float32Array): string {
  const bytes = Buffer.alloc(vector.length * 4)
  for (let index = 0; index < vector.length; index++) bytes.writeFloatLE(vector[index]!, index * 4)
  return bytes.toString('base64')
}

function decodeVector(value: string): Float32Array {
  const bytes = Buffer.from(value, 'base64')
  const vector = new Float32Array(Math.floor(bytes.length / 4))
  for (let index = 0; index < vector.length; index++) vector[index] = bytes.readFloatLE(index * 4)
  return vector
}
