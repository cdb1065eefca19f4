import { randomBytes } from 'node:crypto'
import { readFile, rename, rm, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import {
  assertThreadId,
  type JsonObject,
  type JsonValue,
  type ResourceDocument,
  type ResourceThreadPage,
  type StoreResourceMethods,
  type VectorRecord,
  type VersionedValue,
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
  namespaceStartsWith,
  pageResourceThreads,
  vectorAddress,
  workingMemoryConflictError,
} from '@strata-memory/core/store-kit'
import { writeFileAtomic } from './durable-fs'
import { isMissing, storeFailed } from './file-errors'
import { readJsonObject } from './json-file'
import type { ThreadFiles } from './thread-files'
import { decodeVectorFile, encodeVectorFile, VECTORS_FILE } from './vector-file'

/** The binding file's name inside the thread folder: `{ "resourceId": …, "movingFrom"?: … }`. */
export const BINDING_FILE = 'resource.json'
/** Files of `<dir>/resources/<resourceId>/`. */
const INDEX_FILE = 'threads.json'
const WORKING_MEMORY_FILE = 'working-memory.json'
const DOCUMENTS_FILE = 'documents.json'

/** What the binding file holds. `movingFrom`: a move whose index entries are not moved yet. */
interface Binding {
  resourceId: string
  movingFrom?: string
}

/** What the resources need from the file store. */
export interface FileResourcesContext {
  /** `<dir>/resources`. */
  resourcesDirectory: string
  threadFiles(threadId: string): ThreadFiles
  /** Runs `action` holding the lock of a thread folder or a resource folder (`.lock` inside it). */
  lockedDirectory<T>(directory: string, action: () => Promise<T>): Promise<T>
  durable: boolean
}

/**
 * The file store's resources (store contract `v2`): a resource is a folder
 * `<dir>/resources/<resourceId>/` beside `agents/`, holding `threads.json` (its thread index),
 * `working-memory.json` and `documents.json`, each replaced atomically (write, sync, rename) under the
 * resource folder's lock. A thread's binding (`resource.json`) and vectors (`vectors.json`) live in
 * the thread's folder, changed under the thread's lock; a move takes the thread's lock, then the
 * resources' (always in that order). None of these files makes a thread listed.
 */
export function fileResources(context: FileResourcesContext): StoreResourceMethods & {
  /** Holding the thread's lock: removes its entry from its resource's index (deleteThread). */
  forgetThread(thread: ThreadFiles): Promise<void>
} {
  const { resourcesDirectory, threadFiles, lockedDirectory, durable } = context
  const resourceDirectory = (resourceId: string) => join(resourcesDirectory, resourceId)
  const resourceFile = (resourceId: string, name: string) => join(resourceDirectory(resourceId), name)
  const bindingPath = (thread: ThreadFiles) => join(thread.directory, BINDING_FILE)
  const vectorsPath = (thread: ThreadFiles) => join(thread.directory, VECTORS_FILE)

  const lockedResource = <T>(resourceId: string, action: () => Promise<T>) =>
    lockedDirectory(resourceDirectory(resourceId), action)
  const lockedThread = <T>(thread: ThreadFiles, action: () => Promise<T>) =>
    lockedDirectory(thread.directory, action)

  const write = async (path: string, value: unknown): Promise<void> => {
    try {
      await writeFileAtomic(path, `${JSON.stringify(value)}\n`, durable)
    } catch (error) {
      throw storeFailed('write', path, error)
    }
  }

  const remove = async (path: string): Promise<void> => {
    try {
      await unlink(path)
    } catch (error) {
      if (!isMissing(error)) throw storeFailed('remove', path, error)
    }
  }

  const readBinding = async (thread: ThreadFiles): Promise<Binding | undefined> => {
    const value = await readJsonObject(bindingPath(thread), BINDING_FILE)
    if (value === undefined) return undefined
    const { resourceId, movingFrom } = value
    return typeof movingFrom === 'string'
      ? { resourceId: String(resourceId), movingFrom }
      : { resourceId: String(resourceId) }
  }

  const readIndex = async (resourceId: string): Promise<Record<string, number>> => {
    const value = await readJsonObject(resourceFile(resourceId, INDEX_FILE), INDEX_FILE)
    return (value?.threads as Record<string, number> | undefined) ?? {}
  }

  /** Changes the resource's index under its lock; `change` returns false when nothing changed. */
  const updateIndex = <T>(resourceId: string, change: (threads: Record<string, number>) => T) =>
    lockedResource(resourceId, async () => {
      const threads = await readIndex(resourceId)
      const before = JSON.stringify(threads)
      const result = change(threads)
      if (JSON.stringify(threads) !== before) {
        await write(resourceFile(resourceId, INDEX_FILE), { threads })
      }
      return result
    })

  /** Removes a thread's entry from a resource's index; returns its lastAppendAt, if it had one. */
  const removeEntry = (resourceId: string, threadId: string) =>
    updateIndex(resourceId, (threads) => {
      const lastAppendAt = threads[threadId]
      delete threads[threadId]
      return lastAppendAt
    })

  const readDocuments = async (resourceId: string): Promise<ResourceDocument[]> => {
    const value = await readJsonObject(resourceFile(resourceId, DOCUMENTS_FILE), DOCUMENTS_FILE)
    return (value?.documents as ResourceDocument[] | undefined) ?? []
  }

  const readVectors = async (thread: ThreadFiles): Promise<VectorRecord[]> => {
    const path = vectorsPath(thread)
    let text: string
    try {
      text = await readFile(path, 'utf8')
    } catch (error) {
      if (isMissing(error)) return []
      throw storeFailed('read', path, error)
    }
    return decodeVectorFile(text, path)
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

  return {
    async getThreadResource(threadId) {
      assertThreadId(threadId)
      return (await readBinding(threadFiles(threadId)))?.resourceId
    },

    async setThreadResource(threadId, resourceId, options) {
      assertThreadId(threadId)
      assertResourceId(resourceId)
      const expected = checkExpectedResource(options)
      const thread = threadFiles(threadId)
      await lockedThread(thread, async () => {
        const binding = await readBinding(thread)
        if (binding?.resourceId !== expected)
          throw bindingConflictError(threadId, expected, binding?.resourceId)
        // A move left unfinished (a crash between its steps) is finished by the next call.
        const from = binding?.resourceId !== resourceId ? binding?.resourceId : binding?.movingFrom
        if (from !== undefined) {
          // The binding is the commit point: written first, naming where the thread comes from.
          await write(bindingPath(thread), { resourceId, movingFrom: from })
        } else if (binding === undefined) {
          await write(bindingPath(thread), { resourceId })
        }
        const carried =
          from === undefined || from === resourceId ? undefined : await removeEntry(from, threadId)
        await updateIndex(resourceId, (threads) => {
          const indexed = threads[threadId]
          threads[threadId] = Math.max(indexed ?? 0, carried ?? indexed ?? Date.now())
        })
        if (from !== undefined) await write(bindingPath(thread), { resourceId })
      })
    },

    async touchResourceThread(resourceId, threadId, lastAppendAt) {
      assertResourceId(resourceId)
      assertThreadId(threadId)
      const time = checkLastAppendAt(lastAppendAt)
      await updateIndex(resourceId, (threads) => {
        threads[threadId] = Math.max(threads[threadId] ?? 0, time)
      })
    },

    async listResourceThreads(resourceId, options): Promise<ResourceThreadPage> {
      assertResourceId(resourceId)
      const page = checkResourcePageOptions(options)
      const threads = await readIndex(resourceId)
      const entries = Object.entries(threads).map(([threadId, lastAppendAt]) => ({ threadId, lastAppendAt }))
      return pageResourceThreads(entries, page)
    },

    async getWorkingMemory(resourceId) {
      assertResourceId(resourceId)
      const value = await readJsonObject(resourceFile(resourceId, WORKING_MEMORY_FILE), WORKING_MEMORY_FILE)
      return value as VersionedValue | undefined
    },

    async setWorkingMemory(resourceId: string, value: JsonValue, options: { expectedVersion: number }) {
      assertResourceId(resourceId)
      const expectedVersion = checkWorkingMemoryArguments(value, options)
      // Serialised before the first await: later changes to the caller's value are not stored.
      const text = JSON.stringify(value)
      return lockedResource(resourceId, async () => {
        const path = resourceFile(resourceId, WORKING_MEMORY_FILE)
        const stored = await readJsonObject(path, WORKING_MEMORY_FILE)
        const actualVersion = Number(stored?.version ?? 0)
        if (actualVersion !== expectedVersion) {
          throw workingMemoryConflictError(resourceId, expectedVersion, actualVersion)
        }
        const written = {
          value: JSON.parse(text) as JsonValue,
          version: actualVersion + 1,
          updatedAt: Date.now(),
        }
        await write(path, written)
        return written
      })
    },

    async putDocument(resourceId: string, namespace: readonly string[], key: string, value: JsonObject) {
      const checked = documentArguments(resourceId, namespace, key, 'putDocument')
      checkDocumentValue(value)
      const copy = JSON.parse(JSON.stringify(value)) as JsonObject
      return lockedResource(resourceId, async () => {
        const documents = await readDocuments(resourceId)
        const index = documents.findIndex(
          (document) => documentAddress(document.namespace, document.key) === checked.address,
        )
        const now = Date.now()
        const createdAt = index === -1 ? now : documents[index]!.createdAt
        const document = {
          namespace: checked.labels,
          key: checked.key,
          value: copy,
          createdAt,
          updatedAt: now,
        }
        if (index === -1) documents.push(document)
        else documents[index] = document
        await write(resourceFile(resourceId, DOCUMENTS_FILE), { documents })
        return JSON.parse(JSON.stringify(document)) as ResourceDocument
      })
    },

    async getDocument(resourceId, namespace, key) {
      const { address } = documentArguments(resourceId, namespace, key, 'getDocument')
      const documents = await readDocuments(resourceId)
      return documents.find((document) => documentAddress(document.namespace, document.key) === address)
    },

    async deleteDocument(resourceId, namespace, key) {
      const { address } = documentArguments(resourceId, namespace, key, 'deleteDocument')
      const held = await readDocuments(resourceId)
      // Nothing to delete: no lock taken, so no folder is made for a resource that has none.
      if (!held.some((document) => documentAddress(document.namespace, document.key) === address))
        return false
      return lockedResource(resourceId, async () => {
        const documents = await readDocuments(resourceId)
        const kept = documents.filter(
          (document) => documentAddress(document.namespace, document.key) !== address,
        )
        if (kept.length === documents.length) return false
        await write(resourceFile(resourceId, DOCUMENTS_FILE), { documents: kept })
        return true
      })
    },

    async listDocuments(resourceId, options) {
      assertResourceId(resourceId)
      const prefix = checkNamespacePrefix(options?.namespacePrefix, 'listDocuments')
      const documents = await readDocuments(resourceId)
      return documents
        .filter((document) => namespaceStartsWith(document.namespace, prefix))
        .sort(compareDocuments)
    },

    async deleteResource(resourceId) {
      assertResourceId(resourceId)
      const directory = resourceDirectory(resourceId)
      const trash = join(resourcesDirectory, `.deleted-${resourceId}-${randomBytes(6).toString('hex')}`)
      // Renamed away holding the lock: a writer waiting for it starts the resource afresh.
      const threads = await lockedResource(resourceId, async () => {
        const indexed = Object.keys(await readIndex(resourceId))
        const moved = await rename(directory, trash).then(
          () => true,
          (error: unknown) => {
            if (isMissing(error)) return false
            throw storeFailed('delete', directory, error)
          },
        )
        return moved ? indexed : []
      })
      await rm(trash, { recursive: true, force: true })
      // Then its threads are unbound, each under its own lock (never while holding the resource's).
      for (const threadId of threads) {
        const thread = threadFiles(threadId)
        await lockedThread(thread, async () => {
          if ((await readBinding(thread))?.resourceId === resourceId) await remove(bindingPath(thread))
        })
      }
    },

    async putVectors(threadId, records) {
      assertThreadId(threadId)
      checkVectorRecords(records)
      if (records.length === 0) return
      const copies = records.map(({ id, model, vector }) => ({ id, model, vector: new Float32Array(vector) }))
      const thread = threadFiles(threadId)
      await lockedThread(thread, async () => {
        const stored = new Map((await readVectors(thread)).map((record) => [vectorAddress(record), record]))
        for (const record of copies) stored.set(vectorAddress(record), record)
        try {
          await writeFileAtomic(vectorsPath(thread), encodeVectorFile([...stored.values()]), durable)
        } catch (error) {
          throw storeFailed('write', vectorsPath(thread), error)
        }
      })
    },

    async readVectors(threadId, options) {
      assertThreadId(threadId)
      const model = checkVectorQuery(options)
      const records = await readVectors(threadFiles(threadId))
      return records.filter((record) => model === undefined || record.model === model).sort(compareVectors)
    },

    async forgetThread(thread) {
      const binding = await readBinding(thread)
      for (const resourceId of new Set([binding?.resourceId, binding?.movingFrom])) {
        if (resourceId !== undefined) await removeEntry(resourceId, thread.threadId)
      }
    },
  }
}
