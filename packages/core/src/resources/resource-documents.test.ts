import { describe, expect, it } from 'vitest'
import { StrataError } from '../errors'
import { createMemory } from '../memory'
import { inMemoryStore } from '../stores'

async function withDocuments() {
  let now = 1_000
  const clock = () => (now += 1)
  const memory = createMemory({ store: inMemoryStore({ clock }), clock })
  const user = memory.resource('user-1')
  await user.putDocument(['memories', 'food'], 'soup', {
    text: 'likes lentil soup',
    kind: 'preference',
    stars: 5,
  })
  await user.putDocument(['memories', 'food'], 'tea', {
    text: 'drinks green tea',
    kind: 'preference',
    stars: 3,
  })
  await user.putDocument(['memories', 'travel'], 'norway', {
    text: 'kayak trip to Norway',
    kind: 'plan',
    stars: 4,
  })
  await user.putDocument(['memories', 'travel', 'past'], 'rome', { text: 'visited Rome', kind: 'event' })
  await user.putDocument(['memoriesX'], 'x', { text: 'lentil tea kayak', kind: 'preference' })
  await user.putDocument(['profile'], 'main', { name: 'Ana', meta: { tier: 'gold' } })
  return { memory, user }
}

const keys = (documents: readonly { key: string }[]) => documents.map((document) => document.key)

describe('resource documents (LangGraph BaseStore semantics)', () => {
  it('put replaces by namespace and key, keeping createdAt; get and delete answer by the same address', async () => {
    const { memory, user } = await withDocuments()
    const before = await user.getDocument(['memories', 'food'], 'soup')
    const after = await user.putDocument(['memories', 'food'], 'soup', { text: 'loves lentil soup' })
    expect(after.createdAt).toBe(before!.createdAt)
    expect(after.updatedAt).toBeGreaterThan(before!.updatedAt)
    expect((await user.getDocument(['memories', 'food'], 'soup'))?.value).toEqual({
      text: 'loves lentil soup',
    })
    expect(await user.getDocument(['memories'], 'soup')).toBeUndefined()
    expect(await user.deleteDocument(['memories', 'food'], 'soup')).toBe(true)
    expect(await user.deleteDocument(['memories', 'food'], 'soup')).toBe(false)
    expect(await user.getDocument(['memories', 'food'], 'soup')).toBeUndefined()
    // Another resource's documents are its own.
    expect(await memory.resource('user-2').getDocument(['profile'], 'main')).toBeUndefined()
    expect(await memory.resource('user-2').searchDocuments([])).toEqual([])
  })

  it('search matches whole namespace labels, filters top-level fields, and pages with limit and offset', async () => {
    const { user } = await withDocuments()
    expect(keys(await user.searchDocuments(['memories']))).toEqual(['soup', 'tea', 'norway', 'rome'])
    expect(keys(await user.searchDocuments(['memories', 'travel']))).toEqual(['norway', 'rome'])
    expect((await user.searchDocuments([], { limit: 100 })).length).toBe(6)
    expect(keys(await user.searchDocuments(['memories'], { filter: { kind: 'preference' } }))).toEqual([
      'soup',
      'tea',
    ])
    expect(keys(await user.searchDocuments([], { filter: { stars: { $gte: 4 } } }))).toEqual([
      'soup',
      'norway',
    ])
    expect(keys(await user.searchDocuments([], { filter: { kind: { $in: ['plan', 'event'] } } }))).toEqual([
      'norway',
      'rome',
    ])
    expect(
      keys(await user.searchDocuments(['memories'], { filter: { kind: { $ne: 'preference' } } })),
    ).toEqual(['norway', 'rome'])
    expect(keys(await user.searchDocuments([], { filter: { meta: { tier: 'gold' } } }))).toEqual(['main'])
    expect(keys(await user.searchDocuments(['memories'], { limit: 2, offset: 1 }))).toEqual(['tea', 'norway'])
  })

  it('a query ranks the documents holding its words first, with a score, and hides none', async () => {
    const { user } = await withDocuments()
    const found = await user.searchDocuments(['memories'], { query: 'kayak Norway' })
    expect(keys(found)).toEqual(['norway', 'soup', 'tea', 'rome'])
    expect(found[0]!.score).toBeGreaterThan(0)
    expect(found[1]!.score).toBeUndefined()
    const lentil = await user.searchDocuments([], {
      query: 'lentil soup',
      filter: { kind: 'preference' },
      limit: 2,
    })
    expect(keys(lentil)).toEqual(['soup', 'x'])
    expect(lentil[0]!.score!).toBeGreaterThan(lentil[1]!.score!)
  })

  it('listNamespaces: prefix and suffix (with *), maxDepth, sorted, paged', async () => {
    const { user } = await withDocuments()
    expect(await user.listNamespaces()).toEqual([
      ['memories', 'food'],
      ['memories', 'travel'],
      ['memories', 'travel', 'past'],
      ['memoriesX'],
      ['profile'],
    ])
    expect(await user.listNamespaces({ prefix: ['memories'] })).toEqual([
      ['memories', 'food'],
      ['memories', 'travel'],
      ['memories', 'travel', 'past'],
    ])
    expect(await user.listNamespaces({ prefix: ['memories'], maxDepth: 1 })).toEqual([['memories']])
    expect(await user.listNamespaces({ maxDepth: 2, limit: 2, offset: 1 })).toEqual([
      ['memories', 'travel'],
      ['memoriesX'],
    ])
    expect(await user.listNamespaces({ suffix: ['travel'] })).toEqual([['memories', 'travel']])
    expect(await user.listNamespaces({ prefix: ['*', 'travel'] })).toEqual([
      ['memories', 'travel'],
      ['memories', 'travel', 'past'],
    ])
  })

  it('refuses bad arguments with STRATA_INVALID_OPTIONS, writing nothing', async () => {
    const { user } = await withDocuments()
    const cases: [() => Promise<unknown>, RegExp][] = [
      [() => user.putDocument([], 'k', { a: 1 }), /non-empty list of non-empty strings/],
      [() => user.putDocument(['a', ''], 'k', { a: 1 }), /non-empty strings/],
      [() => user.putDocument(['a'], 'k', [1] as never), /value must be a JSON object/],
      [() => user.putDocument(['a'], 3 as never, { a: 1 }), /key must be a string/],
      [() => user.searchDocuments(['memories'], { limit: 0 }), /limit must be a positive integer/],
      [() => user.searchDocuments(['memories'], { offset: -1 }), /offset must be an integer/],
      [() => user.searchDocuments(['memories'], { filter: [] as never }), /filter must be an object/],
      [() => user.listNamespaces({ maxDepth: 0 }), /maxDepth must be a positive integer/],
    ]
    for (const [run, message] of cases) {
      const error = await run().catch((caught: unknown) => caught)
      expect(StrataError.isInstance(error, 'STRATA_INVALID_OPTIONS'), String(message)).toBe(true)
      expect((error as Error).message).toMatch(message)
    }
    expect((await user.listNamespaces()).length).toBe(5)
  })

  it('delete() removes documents, working memory and the thread index; the threads stay, unbound', async () => {
    const { memory, user } = await withDocuments()
    const thread = await memory.thread('chat-1', { resource: 'user-1' })
    await thread.append({ role: 'user', content: 'hello' })
    await user.setWorkingMemory('Ana', { version: 0 })
    await user.delete()
    expect(await user.searchDocuments([])).toEqual([])
    expect(await user.getWorkingMemory()).toBeUndefined()
    expect((await user.listThreads()).threads).toEqual([])
    expect(thread.resource).toBeUndefined()
    expect((await thread.items()).length).toBe(1)
  })
})
