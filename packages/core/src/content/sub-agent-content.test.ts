import { beforeEach, describe, expect, it } from 'vitest'
import { createMemory, type Memory } from '../memory'
import { inMemoryStore, type StrataStore } from '../stores'
import { fetchMessages, makePage } from '../testing'
import { memoryTools } from './memory-tools'
import type { ContentSnapshot } from './thread-content'

let store: StrataStore
let memory: Memory
let ids: number

beforeEach(() => {
  store = inMemoryStore()
  ids = 0
  let now = 1_000
  memory = createMemory({ store, clock: () => ++now, generateId: () => `id${++ids}` })
})

describe('sub-agent content', () => {
  it("shared: the sub-agent's offloaded results land in the parent's content, and the parent retrieves them", async () => {
    const parent = await memory.thread('lead')
    const worker = await memory.thread('lead.worker', { content: { parent: 'lead', access: 'shared' } })
    expect([worker.content.access, worker.content.owner]).toEqual(['shared', 'lead'])
    const page = makePage(8_000)
    await worker.append({ role: 'user', content: 'Fetch' })
    await worker.append(fetchMessages('w1', 'https://example.com/w', page))
    expect(await store.queryContent('lead.worker')).toEqual([])
    const [record] = await store.queryContent('lead')
    expect(record).toMatchObject({ source: 'fetch_page', meta: { writer: 'lead.worker' } })
    const found = (await memoryTools(parent).memory_query.execute({ text: 'page line 2:' })) as {
      results: { id: string }[]
    }
    expect(found.results.map((hit) => hit.id)).toEqual([record!.id])
    expect(await memoryTools(parent).memory_retrieve.execute({ id: record!.id })).toMatchObject({
      content: page,
    })
    // And the other way: what the parent stores, the shared sub-agent reads.
    const brief = (await memoryTools(parent).memory_store.execute({
      content: 'Brief: compare three vendors',
    })) as {
      id: string
    }
    expect(await memoryTools(worker).memory_retrieve.execute({ id: brief.id })).toMatchObject({
      where: 'content',
      content: 'Brief: compare three vendors',
    })
    // A sub-agent of a shared sub-agent shares the same content.
    const nested = await memory.thread('lead.worker.helper', { content: { parent: 'lead.worker' } })
    expect(nested.content.owner).toBe('lead')
  })

  it("read-only: reads the parent's content, refuses explicit writes, keeps its own results in its own content", async () => {
    const parent = await memory.thread('boss')
    const stored = (await memoryTools(parent).memory_store.execute({ content: 'Spec v2: blue button' })) as {
      id: string
    }
    const reader = await memory.thread('boss.reader', { content: { parent: 'boss', access: 'read-only' } })
    expect(await memoryTools(reader).memory_retrieve.execute({ id: stored.id })).toMatchObject({
      content: 'Spec v2: blue button',
    })

    const refused = await memoryTools(reader).memory_store.execute({ content: 'Spec v3' })
    expect(refused).toMatchObject({
      error: { code: 'STRATA_CONTENT_READ_ONLY', message: expect.stringMatching(/access: 'shared'/) },
    })
    await expect(reader.content.import(await parent.content.export())).rejects.toMatchObject({
      code: 'STRATA_CONTENT_READ_ONLY',
    })

    await reader.append({ role: 'user', content: makePage(5_000, 'reader-notes') })
    const own = await store.queryContent('boss.reader')
    expect(own).toHaveLength(1)
    expect(await store.queryContent('boss')).toHaveLength(1)
    // It finds both its own and the parent's content; the parent sees only its own.
    const readerHits = (await memoryTools(reader).memory_query.execute({ type: 'text' })) as {
      results: { id: string }[]
    }
    expect(readerHits.results.map((hit) => hit.id).sort()).toEqual([own[0]!.id, stored.id].sort())
    expect(await memoryTools(parent).memory_retrieve.execute({ id: own[0]!.id })).toMatchObject({
      error: { code: 'STRATA_MEMORY_NOT_FOUND' },
    })
  })

  it('isolated (the default): its own content, nothing of the parent', async () => {
    const parent = await memory.thread('solo')
    await memoryTools(parent).memory_store.execute({ content: 'secret plan' })
    const own = await memory.thread('solo.child')
    expect(own.content.access).toBe('own')
    expect(await memoryTools(own).memory_query.execute({ text: 'secret' })).toEqual({ results: [] })
    await memoryTools(own).memory_store.execute({ content: 'child note' })
    expect(await memoryTools(parent).memory_query.execute({ text: 'child' })).toEqual({ results: [] })
  })

  it('exports a snapshot and restores it into another thread', async () => {
    const source = await memory.thread('export.source')
    await source.append({ role: 'user', content: 'Fetch' })
    await source.append(fetchMessages('e', 'https://example.com/e', makePage(7_000)))
    await memoryTools(source).memory_store.execute({ content: '{"k":1}', type: 'json', tags: ['cfg'] })
    const snapshot = await source.content.export()
    expect(snapshot).toMatchObject({ format: 'strata-content', version: 1, threadId: 'export.source' })
    expect(snapshot.records.map((record) => record.type)).toEqual(['web-page', 'json'])
    // The snapshot is plain JSON.
    const copy = JSON.parse(JSON.stringify(snapshot)) as ContentSnapshot

    const target = await memory.thread('export.target')
    expect(await target.content.import(copy)).toEqual({ imported: 2 })
    expect((await target.content.export()).records).toEqual(snapshot.records)
    const [page] = snapshot.records
    expect(await memoryTools(target).memory_retrieve.execute({ id: page!.id })).toMatchObject({
      content: page!.data,
    })

    await expect(
      target.content.import({ format: 'other' } as unknown as ContentSnapshot),
    ).rejects.toMatchObject({
      code: 'STRATA_INVALID_OPTIONS',
    })
    const broken = { ...copy, records: [copy.records[0], { id: 'x' }] } as unknown as ContentSnapshot
    const before = await target.content.export()
    await expect(target.content.import(broken)).rejects.toMatchObject({ code: 'STRATA_INVALID_OPTIONS' })
    expect(await target.content.export()).toEqual(before)
  })

  it('rejects bad thread content options, and reopening a thread with different ones', async () => {
    const bad: unknown[] = [
      { content: { parent: '../x' } },
      { content: { parent: 'p', access: 'write' } },
      { content: { parent: 'same' } },
      { content: 'p' },
    ]
    for (const options of bad) {
      await expect(memory.thread('same', options as never), JSON.stringify(options)).rejects.toMatchObject({
        code: expect.stringMatching(/STRATA_INVALID_OPTIONS|STRATA_INVALID_THREAD_ID/),
      })
    }
    const shared = await memory.thread('sub', { content: { parent: 'main' } })
    expect(await memory.thread('sub')).toBe(shared)
    expect(await memory.thread('sub', { content: { parent: 'main', access: 'shared' } })).toBe(shared)
    await expect(
      memory.thread('sub', { content: { parent: 'main', access: 'read-only' } }),
    ).rejects.toMatchObject({
      code: 'STRATA_INVALID_OPTIONS',
      message: expect.stringMatching(/already open with content shared from 'main'/),
    })
  })
})
