import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createMemory } from '../memory'
import { inMemoryStore } from '../stores'
import { fetchMessages, makePage } from '../testing'
import type { MemoryToolError } from './memory-tool-types'
import { memoryTools } from './memory-tools'
import { RETRIEVE_TRANSFORMS } from './retrieve-transform'

/** A thread holding stored content, a page cited in the log, and a finished task's result out of view. */
async function fixture() {
  const store = inMemoryStore()
  let ids = 0
  let now = 1_000
  const memory = createMemory({ store, clock: () => ++now, generateId: () => `id${++ids}` })
  const thread = await memory.thread('fuzz')
  const tools = memoryTools(thread)
  const note = await tools.memory_store.execute({ content: 'alpha\nbeta\ngamma', tags: ['greek'] })
  if ('error' in note) throw new Error(note.error.message)
  await thread.append({ role: 'user', content: 'Read it' })
  await thread.append(fetchMessages('c1', 'https://example.com', makePage(6_000)))
  await thread.append({ role: 'assistant', content: 'Read.' })
  await thread.enter('project', { title: 'P' })
  const [inTask] = await thread.append({ role: 'user', content: 'The door code is 4471' })
  await thread.exit()
  const [page] = (await store.queryContent('fuzz')).filter((record) => record.source === 'fetch_page')
  const snapshot = async () =>
    JSON.stringify({
      content: await store.queryContent('fuzz'),
      log: await thread.items(),
      archive: await store.readArchive('fuzz'),
    })
  return { tools, snapshot, knownIds: [note.id, page!.id, inTask!.id] }
}

const isToolError = (result: unknown): result is MemoryToolError =>
  typeof result === 'object' && result !== null && 'error' in result

/**
 * Inputs a model could send: anything at all, and objects with the tools' keys, each usually a
 * plausible value and sometimes anything (a wrong type, a number out of range, an unknown key).
 */
function inputs(knownIds: string[]) {
  const junk = fc.oneof(fc.anything(), fc.string(), fc.integer({ min: -5, max: 200 }), fc.double())
  const mostly = <T>(plausible: fc.Arbitrary<T>) =>
    fc.oneof({ weight: 5, arbitrary: plausible }, { weight: 1, arbitrary: junk })
  const words = fc.constantFrom('alpha', 'line 3', 'ZZZ', 'door code', 'page line', 'Greek')
  const retrieve = fc.record(
    {
      id: mostly(fc.constantFrom(...knownIds, 'mem_nope')),
      transform: mostly(fc.constantFrom(...RETRIEVE_TRANSFORMS, 'shrink')),
      n: mostly(fc.integer({ min: 0, max: 50 })),
      pattern: mostly(words),
      maxChars: mostly(fc.integer({ min: 0, max: 2_000 })),
    },
    { requiredKeys: ['id'] },
  )
  const query = fc.record(
    {
      text: mostly(words),
      type: mostly(fc.constantFrom('text', 'web-page', 'message', 'summary')),
      source: mostly(fc.constantFrom('fetch_page', 'user', 'memory_store')),
      tags: mostly(fc.constantFrom(['greek'], [], ['x'])),
      fromTs: mostly(fc.integer({ min: 990, max: 1_020 })),
      toTs: mostly(fc.integer({ min: 990, max: 1_020 })),
      level: mostly(fc.constantFrom('global', 'project')),
      limit: mostly(fc.integer({ min: 0, max: 120 })),
    },
    { requiredKeys: [] },
  )
  const store = fc.record(
    {
      content: mostly(fc.string({ maxLength: 40 })),
      type: mostly(fc.constantFrom('text', 'json', 'note')),
      tags: mostly(fc.array(fc.string({ maxLength: 6 }), { maxLength: 3 })),
    },
    { requiredKeys: ['content'] },
  )
  const withUnknownKey = <T extends object>(arbitrary: fc.Arbitrary<T>) =>
    fc.oneof(
      { weight: 8, arbitrary },
      { weight: 1, arbitrary: fc.tuple(arbitrary, junk).map(([input, extra]) => ({ ...input, extra })) },
      { weight: 1, arbitrary: fc.anything() },
    )
  return { retrieve: withUnknownKey(retrieve), query: withUnknownKey(query), store: withUnknownKey(store) }
}

describe('memory tools on any input', () => {
  it('answer or return a typed error the model can read; reads never change what is stored', async () => {
    const { tools, snapshot, knownIds } = await fixture()
    const arbitrary = inputs(knownIds)
    const before = await snapshot()
    const check = (result: unknown) => {
      if (!isToolError(result)) return
      expect(result.error.code).toMatch(/^STRATA_[A-Z_]+$/)
      expect(result.error.message.length).toBeGreaterThan(20)
    }
    await fc.assert(
      fc.asyncProperty(arbitrary.retrieve, arbitrary.query, async (retrieveInput, queryInput) => {
        const retrieved = await tools.memory_retrieve.execute(retrieveInput)
        check(retrieved)
        if (!isToolError(retrieved)) expect(typeof retrieved.content).toBe('string')
        const queried = await tools.memory_query.execute(queryInput)
        check(queried)
        if (!isToolError(queried)) expect(Array.isArray(queried.results)).toBe(true)
        expect(await snapshot()).toBe(before)
      }),
      { numRuns: 300 },
    )
  })

  it('memory_store writes one record for a good input and nothing for a bad one', async () => {
    const { tools, snapshot, knownIds } = await fixture()
    await fc.assert(
      fc.asyncProperty(inputs(knownIds).store, async (input) => {
        const before = JSON.parse(await snapshot()) as { content: { id: string }[] }
        const result = await tools.memory_store.execute(input)
        const after = JSON.parse(await snapshot()) as { content: { id: string; data: string }[] }
        if (isToolError(result)) {
          expect(result.error.code).toBe('STRATA_INVALID_OPTIONS')
          expect(after).toEqual(before)
          return
        }
        const added = after.content.filter((record) => !before.content.some((old) => old.id === record.id))
        expect(added).toEqual([
          expect.objectContaining({ id: result.id, data: (input as { content: string }).content }),
        ])
      }),
      { numRuns: 200 },
    )
  })
})
