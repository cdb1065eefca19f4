import { describe, expect, it } from 'vitest'
import type { JsonValue } from '../items'
import { makeItems } from './fixtures'
import { describeValue, expectStrataError, INVALID_THREAD_IDS, scribble } from './store-conformance-helpers'
import type { ResourceCases } from './store-conformance-resource-cases'
import { describeResourceVectorConformance } from './store-conformance-resource-vectors'

/** A little slack for stores whose clock is a server's. */
export const CLOCK_SLACK_MS = 5_000

/** Namespaces whose labels hold the characters a key layout could trip on; each must stay distinct. */
const AWKWARD_NAMESPACES: string[][] = [
  ['a/b', 'c'],
  ['a', 'b/c'],
  ['a.b', 'c'],
  ['a', 'b.c'],
  ['ü', '🙂 x', '中文'],
  [':', '{x}', '*'],
  ['"', '\\', '\n'],
  ['..'],
]

/** The working memory, document, vector and deletion cases of the resource capability. */
export function describeResourceDataConformance(cases: ResourceCases): void {
  const { store, newThreadId, newResourceId, requireResources } = cases

  describe('working memory', () => {
    it('is versioned: 0 before the first write, +1 for each write', async (context) => {
      requireResources(context)
      const resourceId = newResourceId()
      const before = Date.now()
      const first = await store().setWorkingMemory(resourceId, { name: 'Zoë' }, { expectedVersion: 0 })
      expect(first.version).toBe(1)
      expect(first.value).toEqual({ name: 'Zoë' })
      expect(first.updatedAt).toBeGreaterThanOrEqual(before - CLOCK_SLACK_MS)
      expect(first.updatedAt).toBeLessThanOrEqual(Date.now() + CLOCK_SLACK_MS)
      expect(await store().getWorkingMemory(resourceId)).toEqual(first)
      const second = await store().setWorkingMemory(resourceId, 'free text', { expectedVersion: 1 })
      expect(second).toMatchObject({ value: 'free text', version: 2 })
      expect(await store().getWorkingMemory(resourceId)).toEqual(second)
    })

    it('refuses a stale version with STRATA_SEQ_CONFLICT naming both versions, writing nothing', async (context) => {
      requireResources(context)
      const resourceId = newResourceId()
      const unwritten = await expectStrataError(
        () => store().setWorkingMemory(resourceId, 'x', { expectedVersion: 3 }),
        'STRATA_SEQ_CONFLICT',
      )
      expect(unwritten.details).toMatchObject({ resourceId, expectedVersion: 3, actualVersion: 0 })
      expect(await store().getWorkingMemory(resourceId)).toBeUndefined()
      await store().setWorkingMemory(resourceId, 'one', { expectedVersion: 0 })
      const kept = await store().setWorkingMemory(resourceId, 'two', { expectedVersion: 1 })
      for (const expectedVersion of [0, 1, 3]) {
        const error = await expectStrataError(
          () => store().setWorkingMemory(resourceId, 'lost?', { expectedVersion }),
          'STRATA_SEQ_CONFLICT',
        )
        expect(error.details).toMatchObject({ resourceId, expectedVersion, actualVersion: 2 })
        expect(error.message).toContain('version 2')
      }
      expect(await store().getWorkingMemory(resourceId)).toEqual(kept)
    })

    it('of many writers at one version, exactly one wins and nothing else is written', async (context) => {
      requireResources(context)
      const resourceId = newResourceId()
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, (_, index) =>
          store().setWorkingMemory(resourceId, { writer: index }, { expectedVersion: 0 }),
        ),
      )
      const won = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []))
      expect(won).toHaveLength(1)
      for (const result of results) {
        if (result.status === 'rejected') {
          expect((result.reason as { code?: string }).code).toBe('STRATA_SEQ_CONFLICT')
          expect((result.reason as { details?: object }).details).toMatchObject({ actualVersion: 1 })
        }
      }
      expect(await store().getWorkingMemory(resourceId)).toEqual(won[0])
    })

    it('keeps any JSON value exactly, and returns fresh copies', async (context) => {
      requireResources(context)
      const values: JsonValue[] = [
        'Zoë’s 🙂\nnotes',
        42.5,
        null,
        [1, 'two', { three: [true] }],
        { deep: { a: [] } },
      ]
      const resourceId = newResourceId()
      for (const [index, value] of values.entries()) {
        const written = await store().setWorkingMemory(resourceId, value, { expectedVersion: index })
        expect((await store().getWorkingMemory(resourceId))?.value).toStrictEqual(value)
        scribble(written)
      }
      const input = { list: [1, 2], nested: { text: 'kept' } }
      await store().setWorkingMemory(resourceId, input, { expectedVersion: values.length })
      scribble(input)
      const read = await store().getWorkingMemory(resourceId)
      scribble(read)
      expect(await store().getWorkingMemory(resourceId)).toMatchObject({
        value: { list: [1, 2], nested: { text: 'kept' } },
        version: values.length + 1,
      })
    })

    it('refuses bad versions and values, writing nothing', async (context) => {
      requireResources(context)
      const resourceId = newResourceId()
      for (const expectedVersion of [-1, 1.5, undefined, '0']) {
        await expectStrataError(
          () => store().setWorkingMemory(resourceId, 'x', { expectedVersion: expectedVersion as number }),
          'STRATA_INVALID_OPTIONS',
          `expectedVersion ${String(expectedVersion)}`,
        )
      }
      await expectStrataError(
        () => store().setWorkingMemory(resourceId, { when: () => 1 } as never, { expectedVersion: 0 }),
        'STRATA_NOT_SERIALIZABLE',
      )
      expect(await store().getWorkingMemory(resourceId)).toBeUndefined()
    })
  })

  describe('documents', () => {
    it('put returns the document; a second put replaces it, keeping createdAt', async (context) => {
      requireResources(context)
      const resourceId = newResourceId()
      const before = Date.now()
      const first = await store().putDocument(resourceId, ['memories', 'preferences'], 'food', {
        likes: 'tea',
      })
      expect(first).toMatchObject({
        namespace: ['memories', 'preferences'],
        key: 'food',
        value: { likes: 'tea' },
      })
      expect(first.createdAt).toBe(first.updatedAt)
      expect(first.createdAt).toBeGreaterThanOrEqual(before - CLOCK_SLACK_MS)
      expect(await store().getDocument(resourceId, ['memories', 'preferences'], 'food')).toEqual(first)
      await new Promise((resolve) => setTimeout(resolve, 5))
      const second = await store().putDocument(resourceId, ['memories', 'preferences'], 'food', {
        likes: 'coffee',
      })
      expect(second.value).toEqual({ likes: 'coffee' })
      expect(second.createdAt).toBe(first.createdAt)
      expect(second.updatedAt).toBeGreaterThanOrEqual(first.updatedAt)
      expect(await store().getDocument(resourceId, ['memories', 'preferences'], 'food')).toEqual(second)
      expect(await store().listDocuments(resourceId)).toEqual([second])
    })

    it('keeps namespaces and keys of any characters apart', async (context) => {
      requireResources(context)
      const resourceId = newResourceId()
      const keys = ['k', 'a/b', '', 'ключ 🙂', '..']
      for (const [index, namespace] of AWKWARD_NAMESPACES.entries()) {
        for (const key of keys) await store().putDocument(resourceId, namespace, key, { index, key })
      }
      for (const [index, namespace] of AWKWARD_NAMESPACES.entries()) {
        for (const key of keys) {
          const document = await store().getDocument(resourceId, namespace, key)
          expect(document?.value, `${JSON.stringify(namespace)} ${JSON.stringify(key)}`).toEqual({
            index,
            key,
          })
          expect(document?.namespace).toEqual(namespace)
          expect(document?.key).toBe(key)
        }
      }
      expect(await store().listDocuments(resourceId)).toHaveLength(AWKWARD_NAMESPACES.length * keys.length)
      expect(await store().getDocument(resourceId, ['a/b'], 'c')).toBeUndefined()
      expect(await store().getDocument(resourceId, ['a', 'b', 'c'], 'k')).toBeUndefined()
    })

    it('lists by namespace then key, filtered by a namespace prefix label by label', async (context) => {
      requireResources(context)
      const resourceId = newResourceId()
      const namespaces = [['b'], ['a', 'z'], ['a'], ['ab'], ['a/b'], ['a', 'b', 'c'], ['a', 'b']]
      for (const namespace of namespaces) {
        for (const key of ['2', '1'])
          await store().putDocument(resourceId, namespace, key, { n: namespace.join('|') })
      }
      const listed = (prefix?: string[]) =>
        store()
          .listDocuments(resourceId, prefix === undefined ? undefined : { namespacePrefix: prefix })
          .then((documents) =>
            documents.map((document) => `${JSON.stringify(document.namespace)}:${document.key}`),
          )
      const all = [
        '["a"]:1',
        '["a"]:2',
        '["a","b"]:1',
        '["a","b"]:2',
        '["a","b","c"]:1',
        '["a","b","c"]:2',
        '["a","z"]:1',
        '["a","z"]:2',
        '["a/b"]:1',
        '["a/b"]:2',
        '["ab"]:1',
        '["ab"]:2',
        '["b"]:1',
        '["b"]:2',
      ]
      expect(await listed()).toEqual(all)
      expect(await listed([])).toEqual(all)
      expect(await listed(['a'])).toEqual(all.slice(0, 8))
      expect(await listed(['a', 'b'])).toEqual(all.slice(2, 6))
      expect(await listed(['a', 'b', 'c', 'd'])).toEqual([])
      expect(await listed(['a/b'])).toEqual(['["a/b"]:1', '["a/b"]:2'])
      expect(await listed(['c'])).toEqual([])
    })

    it('deletes a document (true), and again (false); others stay', async (context) => {
      requireResources(context)
      const resourceId = newResourceId()
      await store().putDocument(resourceId, ['n'], 'gone', { a: 1 })
      await store().putDocument(resourceId, ['n'], 'kept', { b: 2 })
      expect(await store().deleteDocument(resourceId, ['n'], 'gone')).toBe(true)
      expect(await store().deleteDocument(resourceId, ['n'], 'gone')).toBe(false)
      expect(await store().deleteDocument(newResourceId(), ['n'], 'kept')).toBe(false)
      expect(await store().getDocument(resourceId, ['n'], 'gone')).toBeUndefined()
      expect((await store().listDocuments(resourceId)).map((document) => document.key)).toEqual(['kept'])
    })

    it('returns fresh copies and keeps its own copy of what it was given', async (context) => {
      requireResources(context)
      const resourceId = newResourceId()
      const namespace = ['n']
      const value = { list: [1], nested: { text: 'kept' } }
      const returned = await store().putDocument(resourceId, namespace, 'k', value)
      scribble(value)
      namespace.push('changed')
      scribble(returned)
      scribble(await store().getDocument(resourceId, ['n'], 'k'))
      scribble(await store().listDocuments(resourceId))
      expect((await store().getDocument(resourceId, ['n'], 'k'))?.value).toStrictEqual({
        list: [1],
        nested: { text: 'kept' },
      })
      expect((await store().listDocuments(resourceId))[0]?.namespace).toEqual(['n'])
    })

    it('refuses bad namespaces, keys and values with STRATA_INVALID_OPTIONS, writing nothing', async (context) => {
      requireResources(context)
      const resourceId = newResourceId()
      for (const namespace of [[], 'memories', [''], ['a', ''], [1], undefined]) {
        await expectStrataError(
          () => store().putDocument(resourceId, namespace as string[], 'k', { a: 1 }),
          'STRATA_INVALID_OPTIONS',
          `namespace ${JSON.stringify(namespace)}`,
        )
        await expectStrataError(
          () => store().getDocument(resourceId, namespace as string[], 'k'),
          'STRATA_INVALID_OPTIONS',
        )
      }
      for (const key of [undefined, 1, null]) {
        await expectStrataError(
          () => store().putDocument(resourceId, ['n'], key as unknown as string, { a: 1 }),
          'STRATA_INVALID_OPTIONS',
          `key ${String(key)}`,
        )
      }
      for (const value of [[1], 'text', null, 3]) {
        await expectStrataError(
          () => store().putDocument(resourceId, ['n'], 'k', value as never),
          'STRATA_INVALID_OPTIONS',
          `value ${JSON.stringify(value)}`,
        )
      }
      await expectStrataError(
        () => store().listDocuments(resourceId, { namespacePrefix: 'n' as never }),
        'STRATA_INVALID_OPTIONS',
      )
      expect(await store().listDocuments(resourceId)).toEqual([])
    })
  })

  describe('deleteResource', () => {
    it('removes the index, working memory and documents; the threads stay, unbound', async (context) => {
      requireResources(context)
      const [resourceId, other] = [newResourceId(), newResourceId()]
      const { threadId, items } = await cases.threadWithItems(2)
      const bystander = newThreadId()
      await store().setThreadResource(threadId, resourceId, { expected: undefined })
      await store().setThreadResource(bystander, other, { expected: undefined })
      await store().setWorkingMemory(resourceId, 'notes', { expectedVersion: 0 })
      await store().setWorkingMemory(other, 'other notes', { expectedVersion: 0 })
      await store().putDocument(resourceId, ['n'], 'k', { a: 1 })
      await store().putDocument(other, ['n'], 'k', { b: 2 })
      await store().deleteResource(resourceId)
      expect(await store().listResourceThreads(resourceId)).toEqual({ threads: [] })
      expect(await store().getWorkingMemory(resourceId)).toBeUndefined()
      expect(await store().listDocuments(resourceId)).toEqual([])
      expect(await store().getThreadResource(threadId)).toBeUndefined()
      expect(await store().read(threadId)).toStrictEqual(items)
      // The thread may be bound afresh; the working memory starts over.
      await store().setThreadResource(threadId, resourceId, { expected: undefined })
      expect(await store().setWorkingMemory(resourceId, 'new', { expectedVersion: 0 })).toMatchObject({
        version: 1,
      })
      // The other resource is untouched.
      expect(await store().getThreadResource(bystander)).toBe(other)
      expect((await store().getWorkingMemory(other))?.value).toBe('other notes')
      expect((await store().listDocuments(other)).map((document) => document.value)).toEqual([{ b: 2 }])
      await store().deleteResource(newResourceId())
      await store().deleteResource(resourceId)
      await store().deleteResource(resourceId)
    })
  })

  describeResourceVectorConformance(cases)

  describe('deleteThread', () => {
    it("removes the thread's binding, its index entry and its vectors; the resource keeps the rest", async (context) => {
      requireResources(context)
      const resourceId = newResourceId()
      const { threadId } = await cases.threadWithItems(2)
      const sibling = newThreadId()
      for (const id of [threadId, sibling]) {
        await store().setThreadResource(id, resourceId, { expected: undefined })
        await store().putVectors(id, [{ id: 'item:1', model: 'a', vector: new Float32Array([1]) }])
      }
      await store().setWorkingMemory(resourceId, 'notes', { expectedVersion: 0 })
      await store().deleteThread(threadId)
      expect(await store().getThreadResource(threadId)).toBeUndefined()
      expect(await store().readVectors(threadId)).toEqual([])
      const listed = (await store().listResourceThreads(resourceId)).threads.map((entry) => entry.threadId)
      expect(listed).toEqual([sibling])
      expect(await store().getThreadResource(sibling)).toBe(resourceId)
      expect(await store().readVectors(sibling)).toHaveLength(1)
      expect((await store().getWorkingMemory(resourceId))?.version).toBe(1)
      // A deleted thread starts unbound.
      await store().setThreadResource(threadId, resourceId, { expected: undefined })
      await store().deleteThread(threadId)
    })
  })

  describe('ids', () => {
    const threadCalls: Record<string, (threadId: string, resourceId: string) => Promise<unknown>> = {
      getThreadResource: (threadId) => store().getThreadResource(threadId),
      setThreadResource: (threadId, resourceId) =>
        store().setThreadResource(threadId, resourceId, { expected: undefined }),
      touchResourceThread: (threadId, resourceId) => store().touchResourceThread(resourceId, threadId, 1),
      putVectors: (threadId) =>
        store().putVectors(threadId, [{ id: 'item:1', model: 'a', vector: new Float32Array([1]) }]),
      readVectors: (threadId) => store().readVectors(threadId),
    }
    const resourceCalls: Record<string, (resourceId: string, threadId: string) => Promise<unknown>> = {
      setThreadResource: (resourceId, threadId) =>
        store().setThreadResource(threadId, resourceId, { expected: undefined }),
      touchResourceThread: (resourceId, threadId) => store().touchResourceThread(resourceId, threadId, 1),
      listResourceThreads: (resourceId) => store().listResourceThreads(resourceId),
      getWorkingMemory: (resourceId) => store().getWorkingMemory(resourceId),
      setWorkingMemory: (resourceId) => store().setWorkingMemory(resourceId, 'x', { expectedVersion: 0 }),
      putDocument: (resourceId) => store().putDocument(resourceId, ['n'], 'k', { a: 1 }),
      getDocument: (resourceId) => store().getDocument(resourceId, ['n'], 'k'),
      deleteDocument: (resourceId) => store().deleteDocument(resourceId, ['n'], 'k'),
      listDocuments: (resourceId) => store().listDocuments(resourceId),
      deleteResource: (resourceId) => store().deleteResource(resourceId),
    }

    it('every resource method refuses invalid thread ids with STRATA_INVALID_THREAD_ID', async (context) => {
      requireResources(context)
      const resourceId = newResourceId()
      for (const [method, call] of Object.entries(threadCalls)) {
        for (const threadId of INVALID_THREAD_IDS) {
          await expectStrataError(
            () => call(threadId as string, resourceId),
            'STRATA_INVALID_THREAD_ID',
            `${method} with ${describeValue(threadId)}`,
          )
        }
      }
      expect(await store().listResourceThreads(resourceId)).toEqual({ threads: [] })
    })

    it('every resource method refuses invalid resource ids with STRATA_INVALID_THREAD_ID', async (context) => {
      requireResources(context)
      const threadId = newThreadId()
      for (const [method, call] of Object.entries(resourceCalls)) {
        for (const resourceId of INVALID_THREAD_IDS) {
          await expectStrataError(
            () => call(resourceId as string, threadId),
            'STRATA_INVALID_THREAD_ID',
            `${method} with resource ${describeValue(resourceId)}`,
          )
        }
      }
      expect(await store().getThreadResource(threadId)).toBeUndefined()
    })

    it('takes the longest valid ids', async (context) => {
      requireResources(context)
      const resourceId = `${newResourceId()}-`.padEnd(128, 'r')
      const threadId = newThreadId()
      await store().append(threadId, makeItems(1), { expectedSeq: 0 })
      await store().setThreadResource(threadId, resourceId, { expected: undefined })
      await store().putDocument(resourceId, ['n'], 'k', { a: 1 })
      expect(await store().getThreadResource(threadId)).toBe(resourceId)
      expect((await store().listResourceThreads(resourceId)).threads.map((entry) => entry.threadId)).toEqual([
        threadId,
      ])
      await store().deleteResource(resourceId)
      expect(await store().listDocuments(resourceId)).toEqual([])
    })
  })
}
