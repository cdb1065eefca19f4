import {
  InMemoryStore,
  InvalidNamespaceError,
  type ListNamespacesOperation,
  type Operation,
  type SearchOperation,
} from '@langchain/langgraph-checkpoint'
import { createMemory, type Memory, StrataError } from '@strata-memory/core'
import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { GRAPH_STORE_BACKENDS } from '../testing/graph-store-backends'
import { type StrataGraphStore, strataGraphStore } from './strata-graph-store'

// batch() once checked only for empty labels: ['user-1', 'a.b'] was stored apart from
// ['user-1', 'a', 'b'], listed, then refused by get and search, and a batch holding it wrote its
// good operations too.
const BAD_LABELS = [
  ['a period', 'a.b'],
  ['a colon', 'a:b'],
  ['a NUL byte', 'a\u0000b'],
] as const

const keysOf = (items: readonly { key: string }[]) => items.map((item) => item.key)

describe.each(GRAPH_STORE_BACKENDS)(
  'strataGraphStore on the $name store: LangGraph’s store semantics',
  (backend) => {
    let memory: Memory
    let store: StrataGraphStore
    const open = async () => {
      memory = createMemory({ store: await backend.create() })
      store = strataGraphStore(memory)
      return store
    }
    afterEach(async () => {
      await memory?.close()
      await backend.cleanup?.()
    })

    it('put then get returns the item: value, key, namespace and Date timestamps; a missing key is null', async () => {
      await open()
      const before = Date.now()
      await store.put(['user-1', 'memories'], 'diet', { text: 'vegetarian', since: 2019 })
      const item = await store.get(['user-1', 'memories'], 'diet')
      expect(item).toEqual({
        value: { text: 'vegetarian', since: 2019 },
        key: 'diet',
        namespace: ['user-1', 'memories'],
        createdAt: expect.any(Date),
        updatedAt: expect.any(Date),
      })
      expect(item!.createdAt.getTime()).toBeGreaterThanOrEqual(before - 1000)
      expect(item!.updatedAt.getTime()).toBe(item!.createdAt.getTime())
      expect(await store.get(['user-1', 'memories'], 'allergies')).toBeNull()
      expect(await store.get(['user-1', 'other'], 'diet')).toBeNull()
      // Any string is a key, the empty one too, as in LangGraph's InMemoryStore.
      await store.put(['user-1', 'memories'], '', { text: 'unnamed' })
      expect((await store.get(['user-1', 'memories'], ''))?.value).toEqual({ text: 'unnamed' })
    })

    it('a second put replaces the value and keeps createdAt; delete removes the item', async () => {
      await open()
      await store.put(['user-1', 'memories'], 'diet', { text: 'vegetarian' })
      const first = await store.get(['user-1', 'memories'], 'diet')
      await new Promise((resolve) => setTimeout(resolve, 5))
      await store.put(['user-1', 'memories'], 'diet', { text: 'vegan' })
      const second = await store.get(['user-1', 'memories'], 'diet')
      expect(second?.value).toEqual({ text: 'vegan' })
      expect(second?.createdAt.getTime()).toBe(first?.createdAt.getTime())
      expect(second!.updatedAt.getTime()).toBeGreaterThan(first!.updatedAt.getTime())
      await expect(store.delete(['user-1', 'memories'], 'diet')).resolves.toBeUndefined()
      expect(await store.get(['user-1', 'memories'], 'diet')).toBeNull()
      // Deleting what is not there is no error, as in LangGraph's stores.
      await expect(store.delete(['user-1', 'memories'], 'diet')).resolves.toBeUndefined()
    })

    it('the convenience methods check namespaces as BaseStore does (InvalidNamespaceError), before anything is written', async () => {
      await open()
      const value = { text: 'x' }
      await expect(store.put([], 'k', value)).rejects.toThrow(InvalidNamespaceError)
      await expect(store.put(['user-1', 'a.b'], 'k', value)).rejects.toThrow(InvalidNamespaceError)
      await expect(store.put(['user-1', ''], 'k', value)).rejects.toThrow(InvalidNamespaceError)
      await expect(store.put(['langgraph', 'x'], 'k', value)).rejects.toThrow(InvalidNamespaceError)
      expect(await memory.resource('user-1').searchDocuments([])).toEqual([])
      // The reserved root is refused by put only; batch writes it, and get, search and delete reach it.
      await store.batch([{ namespace: ['langgraph', 'x'], key: 'k', value }])
      expect((await store.get(['langgraph', 'x'], 'k'))?.value).toEqual(value)
      expect(keysOf(await store.search(['langgraph']))).toEqual(['k'])
      await store.delete(['langgraph', 'x'], 'k')
      expect(await store.get(['langgraph', 'x'], 'k')).toBeNull()
    })

    it('search matches whole labels of the prefix, filters on fields with the operators, and pages', async () => {
      await open()
      const docs = [
        ['js', { title: 'JavaScript Guide', level: 'beginner', pages: 120, tags: ['web'] }],
        ['ts', { title: 'TypeScript Handbook', level: 'intermediate', pages: 300, tags: ['types'] }],
        ['py', { title: 'Python Basics', level: 'beginner', pages: 90, tags: ['basics'] }],
      ] as const
      for (const [key, value] of docs) await store.put(['user-1', 'docs'], key, value)
      await store.put(['user-1', 'docs-archive'], 'old', { title: 'Old', level: 'beginner', pages: 1 })
      await store.put(['user-1', 'recipes'], 'cake', { title: 'Chocolate Cake', level: 'easy', pages: 2 })

      const all = await store.search(['user-1', 'docs'])
      expect(keysOf(all).sort()).toEqual(['js', 'py', 'ts'])
      expect(all.every((item) => item.score === undefined)).toBe(true)
      expect(keysOf(await store.search(['user-1'], { limit: 100 })).sort()).toEqual([
        'cake',
        'js',
        'old',
        'py',
        'ts',
      ])
      expect(await store.search(['user-1', 'nothing'])).toEqual([])

      const search = async (filter: Record<string, unknown>) =>
        keysOf(await store.search(['user-1', 'docs'], { filter })).sort()
      expect(await search({ level: 'beginner' })).toEqual(['js', 'py'])
      expect(await search({ level: { $eq: 'beginner' } })).toEqual(['js', 'py'])
      expect(await search({ level: { $ne: 'beginner' } })).toEqual(['ts'])
      expect(await search({ pages: { $gt: 120 } })).toEqual(['ts'])
      expect(await search({ pages: { $gte: 120 } })).toEqual(['js', 'ts'])
      expect(await search({ pages: { $lt: 120 } })).toEqual(['py'])
      expect(await search({ pages: { $lte: 120 } })).toEqual(['js', 'py'])
      expect(await search({ pages: { $gt: 100, $lt: 200 } })).toEqual(['js'])
      expect(await search({ level: { $in: ['beginner', 'intermediate'] } })).toEqual(['js', 'py', 'ts'])
      expect(await search({ level: { $nin: ['beginner'] } })).toEqual(['ts'])
      expect(await search({ level: 'beginner', pages: { $gt: 100 } })).toEqual(['js'])
      expect(await search({ level: 'expert' })).toEqual([])

      const page1 = keysOf(await store.search(['user-1', 'docs'], { limit: 2 }))
      const page2 = keysOf(await store.search(['user-1', 'docs'], { limit: 2, offset: 2 }))
      expect(page1).toHaveLength(2)
      expect(page2).toHaveLength(1)
      expect([...page1, ...page2].sort()).toEqual(['js', 'py', 'ts'])
    })

    it('search returns 10 items unless a limit says otherwise', async () => {
      await open()
      await store.batch(
        Array.from({ length: 12 }, (_, index) => ({
          namespace: ['user-1', 'notes'],
          key: `n${String(index).padStart(2, '0')}`,
          value: { index },
        })),
      )
      expect(await store.search(['user-1', 'notes'])).toHaveLength(10)
      expect(await store.search(['user-1', 'notes'], { limit: 20 })).toHaveLength(12)
    })

    it('a query ranks the items holding its words first, with a score; it hides none', async () => {
      await open()
      await store.put(['user-1', 'memories'], 'pets', { text: 'Has a cat named Miso.' })
      await store.put(['user-1', 'memories'], 'diet', { text: 'Vegetarian, no mushrooms.' })
      await store.put(['user-1', 'memories'], 'city', { text: 'Lives in Lyon.' })
      const hits = await store.search(['user-1', 'memories'], { query: 'vegetarian food' })
      expect(hits[0]).toMatchObject({ key: 'diet', value: { text: 'Vegetarian, no mushrooms.' } })
      expect(hits[0]!.score).toBeGreaterThan(0)
      expect(hits).toHaveLength(3)
      expect(hits.slice(1).every((hit) => hit.score === undefined)).toBe(true)
      const cat = await store.search(['user-1', 'memories'], {
        query: 'cat',
        filter: { text: 'Lives in Lyon.' },
      })
      expect(keysOf(cat)).toEqual(['city'])
    })

    it('listNamespaces: prefix and suffix with * wildcards, maxDepth (deduplicated), limit and offset', async () => {
      await open()
      for (const namespace of [
        ['user-1', 'b', 'c'],
        ['user-1', 'b', 'd'],
        ['user-1', 'c', 'e'],
        ['user-1', 'x', 'c'],
      ])
        await store.put(namespace, 'k', { value: 1 })
      await store.put(['user-2', 'b', 'c'], 'k', { value: 2 })

      expect(await store.listNamespaces({ prefix: ['user-1'] })).toEqual([
        ['user-1', 'b', 'c'],
        ['user-1', 'b', 'd'],
        ['user-1', 'c', 'e'],
        ['user-1', 'x', 'c'],
      ])
      expect(await store.listNamespaces({ prefix: ['user-1'], suffix: ['d'] })).toEqual([
        ['user-1', 'b', 'd'],
      ])
      expect(await store.listNamespaces({ prefix: ['user-1', '*', 'c'] })).toEqual([
        ['user-1', 'b', 'c'],
        ['user-1', 'x', 'c'],
      ])
      expect(await store.listNamespaces({ prefix: ['user-1'], suffix: ['*', 'e'] })).toEqual([
        ['user-1', 'c', 'e'],
      ])
      expect(await store.listNamespaces({ prefix: ['user-1'], maxDepth: 2 })).toEqual([
        ['user-1', 'b'],
        ['user-1', 'c'],
        ['user-1', 'x'],
      ])
      expect(await store.listNamespaces({ prefix: ['user-1'], suffix: ['c'], maxDepth: 2 })).toEqual([
        ['user-1', 'b'],
        ['user-1', 'x'],
      ])
      expect(await store.listNamespaces({ prefix: ['user-1'], limit: 2, offset: 1 })).toEqual([
        ['user-1', 'b', 'd'],
        ['user-1', 'c', 'e'],
      ])
      expect(await store.listNamespaces({ prefix: ['user-1', 'none'] })).toEqual([])
      expect(await store.listNamespaces({ prefix: ['user-3'] })).toEqual([])
    })

    it('batch runs mixed operations in order, one result each, each seeing the writes before it', async () => {
      await open()
      await store.put(['user-1', 'batch'], 'old', { data: 'old' })
      const results = await store.batch([
        { namespace: ['user-1', 'batch'], key: 'item1', value: { data: 'first' } },
        { namespace: ['user-1', 'batch'], key: 'item2', value: { data: 'second' } },
        { namespace: ['user-1', 'batch'], key: 'item1' },
        { namespace: ['user-1', 'batch'], key: 'old', value: null },
        { namespacePrefix: ['user-1', 'batch'], limit: 10, offset: 0 },
        { matchConditions: [{ matchType: 'prefix', path: ['user-1'] }], limit: 10, offset: 0 },
        { namespace: ['user-1', 'batch'], key: 'old' },
      ])
      expect(results).toHaveLength(7)
      expect(results[0]).toBeUndefined()
      expect(results[1]).toBeUndefined()
      expect(results[2]).toMatchObject({ key: 'item1', value: { data: 'first' } })
      expect(results[3]).toBeUndefined()
      expect(keysOf(results[4] as unknown as { key: string }[]).sort()).toEqual(['item1', 'item2'])
      expect(results[5]).toEqual([['user-1', 'batch']])
      expect(results[6]).toBeNull()
    })

    it('a batch with one bad operation writes nothing and says why (typed error)', async () => {
      await open()
      await store.put(['user-1', 'batch'], 'kept', { data: 'kept' })
      const refused = async (operations: Parameters<StrataGraphStore['batch']>[0], code: string) => {
        const error = await store.batch(operations).catch((caught: unknown) => caught)
        expect(StrataError.isInstance(error), String(error)).toBe(true)
        expect((error as StrataError).code).toBe(code)
        expect((error as StrataError).message).toMatch(
          /Nothing was written|names no resource|at most one|JSON/,
        )
      }
      const put = { namespace: ['user-1', 'batch'], key: 'new', value: { data: 'new' } }
      // A namespace that LangGraph's check refuses is its InvalidNamespaceError (graph-store-batch-namespaces.test.ts).
      await refused(
        [put, { namespace: 'user-1' as never, key: 'x', value: { data: 1 } }],
        'STRATA_INVALID_OPTIONS',
      )
      await refused(
        [put, { namespace: ['user-1', 'batch'], key: 42 as never, value: { a: 1 } }],
        'STRATA_INVALID_OPTIONS',
      )
      await refused(
        [put, { namespace: ['user-1', 'batch'], key: 'date', value: { when: new Date() } }],
        'STRATA_NOT_SERIALIZABLE',
      )
      await refused(
        [put, { namespace: ['user-1', 'batch'], key: 'list', value: [1, 2] as never }],
        'STRATA_INVALID_OPTIONS',
      )
      await refused([put, { namespacePrefix: ['user-1'], limit: 0, offset: 0 }], 'STRATA_INVALID_OPTIONS')
      await refused([put, { namespacePrefix: [], limit: 10, offset: 0 }], 'STRATA_INVALID_OPTIONS')
      await refused(
        [put, { namespace: ['ana@example', 'memories'], key: 'k', value: { a: 1 } }],
        'STRATA_INVALID_THREAD_ID',
      )
      await refused(
        [
          put,
          {
            matchConditions: [
              { matchType: 'prefix', path: ['user-1'] },
              { matchType: 'prefix', path: ['user-1', 'batch'] },
            ],
            limit: 10,
            offset: 0,
          },
        ],
        'STRATA_INVALID_OPTIONS',
      )
      expect(await store.get(['user-1', 'batch'], 'new')).toBeNull()
      expect(keysOf(await store.search(['user-1']))).toEqual(['kept'])
    })

    it('a search or listing that names no resource is refused, saying how to name one', async () => {
      await open()
      await expect(store.search([])).rejects.toThrow(/names no resource.*resourceOf/)
      await expect(store.listNamespaces()).rejects.toThrow(/names no resource/)
      await expect(store.listNamespaces({ prefix: ['*', 'memories'] })).rejects.toThrow(/names no resource/)
      const error = await store.put(['ana@example', 'memories'], 'k', { a: 1 }).catch((caught) => caught)
      expect(StrataError.isInstance(error, 'STRATA_INVALID_THREAD_ID')).toBe(true)
      expect(String(error)).toContain('resourceOf')
    })

    it('each resource sees only its own documents, and deleting a resource deletes all of its documents', async () => {
      await open()
      await store.put(['user-1', 'memories'], 'diet', { text: 'vegetarian' })
      await store.put(['user-1', 'profile', 'work'], 'job', { text: 'baker' })
      await store.put(['user-2', 'memories'], 'diet', { text: 'omnivore' })
      expect(keysOf(await store.search(['user-2']))).toEqual(['diet'])
      expect((await store.get(['user-2', 'memories'], 'diet'))?.value).toEqual({ text: 'omnivore' })
      expect(await memory.resource('user-1').listNamespaces()).toEqual([
        ['user-1', 'memories'],
        ['user-1', 'profile', 'work'],
      ])

      await memory.resource('user-1').delete()
      expect(await store.get(['user-1', 'memories'], 'diet')).toBeNull()
      expect(await store.search(['user-1'])).toEqual([])
      expect(await store.listNamespaces({ prefix: ['user-1'] })).toEqual([])
      expect((await store.get(['user-2', 'memories'], 'diet'))?.value).toEqual({ text: 'omnivore' })
    })

    it('resourceOf names the resource of another layout, e.g. LangGraph’s ["memories", userId]', async () => {
      memory = createMemory({ store: await backend.create() })
      store = strataGraphStore(memory, { resourceOf: (namespace) => namespace[1] })
      await store.put(['memories', 'user-1'], 'diet', { text: 'vegetarian' })
      await store.put(['memories', 'user-2'], 'diet', { text: 'omnivore' })
      expect(await memory.resource('user-1').getDocument(['memories', 'user-1'], 'diet')).toMatchObject({
        value: { text: 'vegetarian' },
      })
      expect(keysOf(await store.search(['memories', 'user-2']))).toEqual(['diet'])
      await expect(store.search(['memories'])).rejects.toThrow(/names no resource/)
      await memory.resource('user-1').delete()
      expect(await store.get(['memories', 'user-1'], 'diet')).toBeNull()
      expect(await store.get(['memories', 'user-2'], 'diet')).not.toBeNull()
    })

    it('agrees with LangGraph’s InMemoryStore on any sequence of puts and deletes (fast-check)', async () => {
      const label = fc.constantFrom('a', 'b', 'ab', 'c')
      const namespace = fc.tuple(
        fc.constantFrom('user-1', 'user-2'),
        fc.array(label, { minLength: 0, maxLength: 2 }),
      )
      const operation = fc.record({
        namespace: namespace.map(([user, rest]) => [user, ...rest]),
        key: fc.constantFrom('k1', 'k2', 'k3'),
        value: fc.option(fc.record({ n: fc.integer({ min: 0, max: 5 }), tag: fc.constantFrom('x', 'y') }), {
          freq: 4,
        }),
      })
      await fc.assert(
        fc.asyncProperty(
          fc.array(operation, { maxLength: 25 }),
          fc.integer({ min: 0, max: 5 }),
          async (operations, threshold) => {
            await memory?.close()
            memory = createMemory({ store: await backend.create() })
            store = strataGraphStore(memory)
            const reference = new InMemoryStore()
            for (const put of operations) {
              await store.batch([put])
              await reference.batch([put])
            }
            const strip = (items: readonly { namespace: string[]; key: string; value: unknown }[]) =>
              items.map(({ namespace, key, value }) => JSON.stringify([namespace, key, value])).sort()
            for (const user of ['user-1', 'user-2']) {
              for (const prefix of [[user], [user, 'a'], [user, 'ab']]) {
                const options = { limit: 100, filter: { n: { $gte: threshold } } }
                expect(strip(await store.search(prefix, options))).toEqual(
                  strip(await reference.search(prefix, options)),
                )
              }
              // InMemoryStore lists a namespace whose items were all deleted; the namespaces of its live items are the contract.
              const live = await reference.search([user], { limit: 1000 })
              const namespaces = [...new Set(live.map((item) => JSON.stringify(item.namespace)))]
                .map((text) => JSON.parse(text) as string[])
                .sort((left, right) => left.join(':').localeCompare(right.join(':')))
              expect(await store.listNamespaces({ prefix: [user] })).toEqual(namespaces)
            }
            for (const { namespace: ns, key } of operations) {
              const [ours, theirs] = [await store.get(ns, key), await reference.get(ns, key)]
              expect(
                ours === null ? null : { key: ours.key, namespace: ours.namespace, value: ours.value },
              ).toEqual(
                theirs === null
                  ? null
                  : { key: theirs.key, namespace: theirs.namespace, value: theirs.value },
              )
            }
          },
        ),
        { numRuns: backend.runs },
      )
    })

    it.each(BAD_LABELS)(
      'a put or get under a label with %s is InvalidNamespaceError, as in InMemoryStore',
      async (_, label) => {
        await open()
        const namespace = ['user-1', label]
        const put = { namespace, key: 'k', value: { text: 'x' } }
        await expect(new InMemoryStore().batch([put])).rejects.toThrow(InvalidNamespaceError)
        await expect(store.batch([put])).rejects.toThrow(InvalidNamespaceError)
        await expect(store.batch([{ namespace, key: 'k' }])).rejects.toThrow(InvalidNamespaceError)
        expect(await store.listNamespaces({ prefix: ['user-1'] })).toEqual([])
      },
    )

    it('a batch mixing a good put with a bad one writes neither', async () => {
      await open()
      const good = { namespace: ['user-1', 'a', 'b'], key: 'k', value: { text: 'good' } }
      for (const [, label] of BAD_LABELS) {
        const bad = { namespace: ['user-1', label], key: 'k', value: { text: 'bad' } }
        await expect(store.batch([good, bad])).rejects.toThrow(InvalidNamespaceError)
      }
      expect(await store.get(['user-1', 'a', 'b'], 'k')).toBeNull()
      expect(await store.listNamespaces({ prefix: ['user-1'] })).toEqual([])
    })

    it('an empty or non-string label, an empty put namespace and a bad search or listing path are refused too', async () => {
      await open()
      const value = { text: 'x' }
      const refused: Operation[] = [
        { namespace: [], key: 'k', value },
        { namespace: ['user-1', ''], key: 'k', value },
        { namespace: ['user-1', 42 as never], key: 'k', value },
        { namespacePrefix: ['user-1', 'a.b'], limit: 10, offset: 0 },
        { matchConditions: [{ matchType: 'prefix', path: ['user-1', 'a:b'] }], limit: 10, offset: 0 },
        { matchConditions: [{ matchType: 'suffix', path: ['a\u0000b'] }], limit: 10, offset: 0 },
      ]
      for (const operation of refused)
        await expect(store.batch([operation]), JSON.stringify(operation)).rejects.toThrow(
          InvalidNamespaceError,
        )
      // The reserved root, which only the put method refuses, and the '*' wildcard still pass.
      await store.batch([{ namespace: ['langgraph', 'x'], key: 'k', value }])
      const [hits, listed] = await store.batch<[SearchOperation, ListNamespacesOperation]>([
        { namespacePrefix: ['langgraph'], limit: 10, offset: 0 },
        { matchConditions: [{ matchType: 'prefix', path: ['langgraph', '*'] }], limit: 10, offset: 0 },
      ])
      expect(hits.map((hit) => hit.key)).toEqual(['k'])
      expect(listed).toEqual([['langgraph', 'x']])
    })
  },
)
