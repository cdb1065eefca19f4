import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { MessageInput } from '../items'
import { inMemoryStore, type StrataStore } from '../stores'
import { fetchMessages, makePage } from '../testing'
import { createMemory } from './create-memory'

// A call refused for its budget leaves the thread exactly as it was: adapters append the new messages
// with `fit` (what they will pass to context()), and a request that cannot fit is refused before any
// write — the log, the thread's state and the content store are untouched.

const SYSTEM = 'You are a procurement agent.'
const AGENT_PROMPT = `House rules. ${'Follow the house rules on vendors, budgets and sources. '.repeat(150)}`

async function storeState(store: StrataStore, threadId: string) {
  return {
    items: await store.read(threadId),
    head: await store.head(threadId),
    state: await store.getState(threadId),
    archive: await store.readArchive(threadId),
    content: await store.queryContent!(threadId),
  }
}

async function openThread(store: StrataStore, budget = 2_000) {
  const memory = createMemory({ store, compaction: { budget: { inputTokens: budget } } })
  const thread = await memory.thread('refused')
  return { memory, thread }
}

async function withHistory(store: StrataStore) {
  const { thread } = await openThread(store)
  await thread.append({ role: 'user', content: 'Find the vendors.' })
  await thread.append(fetchMessages('c1', 'https://example.com/vendors', makePage(6_000, 'vendors')))
  await thread.append({ role: 'assistant', content: 'Three vendors found.' })
  await thread.settled()
}

describe('appendUnseen / append with fit: a refused call writes nothing', () => {
  it('a request that cannot fit beside the text sent alongside is refused before anything is stored', async () => {
    const store = inMemoryStore()
    await withHistory(store)
    const { thread } = await openThread(store)
    const before = await storeState(store, 'refused')
    // A large attachment (it would go to the content store) and two images that cannot be cut.
    const request: MessageInput = {
      role: 'user',
      content: [
        { type: 'text', text: makePage(9_000, 'attachment') },
        { type: 'file', mediaType: 'image/png', data: 'https://example.com/a.png' },
      ],
    }
    await expect(
      thread.appendUnseen([request], { history: 'new', fit: { system: SYSTEM, alongside: AGENT_PROMPT } }),
    ).rejects.toMatchObject({
      code: 'STRATA_BUDGET_EXCEEDED',
      message: expect.stringContaining('Nothing was stored.'),
    })
    await expect(
      thread.append(request, { fit: { system: SYSTEM, alongside: AGENT_PROMPT } }),
    ).rejects.toMatchObject({ code: 'STRATA_BUDGET_EXCEEDED' })
    expect(await storeState(store, 'refused')).toEqual(before)
    // A thread opened anew reads the same: the request was never stored.
    const reopened = await openThread(store)
    expect(await reopened.thread.items()).toEqual(await thread.items())
    // Without the agent's prompt alongside, the same request fits: it is stored and the context builds.
    await thread.appendUnseen([request], { history: 'new', fit: { system: SYSTEM } })
    await expect(thread.context({ system: SYSTEM })).resolves.toBeDefined()
  })

  it('without fit the request is stored and only context() refuses (what adapters did before)', async () => {
    const store = inMemoryStore()
    await withHistory(store)
    const { thread } = await openThread(store)
    const before = await storeState(store, 'refused')
    const request: MessageInput = {
      role: 'user',
      content: [{ type: 'file', mediaType: 'image/png', data: 'https://example.com/a.png' }],
    }
    await thread.appendUnseen([request], { history: 'new' })
    expect((await storeState(store, 'refused')).items.length).toBe(before.items.length + 1)
    await expect(thread.context({ system: SYSTEM, alongside: AGENT_PROMPT })).rejects.toMatchObject({
      code: 'STRATA_BUDGET_EXCEEDED',
    })
  })

  it('agrees with context(): accepted with fit ⇔ the context with the same texts builds', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 2_400 }),
        fc.integer({ min: 1, max: 3 }),
        fc.boolean(),
        async (alongsideWords, images, attachment) => {
          const store = inMemoryStore()
          await withHistory(store)
          const { thread } = await openThread(store)
          const alongside = 'word '.repeat(alongsideWords)
          const request: MessageInput = {
            role: 'user',
            content: [
              { type: 'text', text: attachment ? makePage(8_000, 'attached') : 'Compare them.' },
              ...Array.from({ length: images - 1 }, (_, index) => ({
                type: 'file' as const,
                mediaType: 'image/png',
                data: `https://example.com/${index}.png`,
              })),
            ],
          }
          const before = await storeState(store, 'refused')
          const accepted = await thread
            .appendUnseen([request], { history: 'new', fit: { system: SYSTEM, alongside } })
            .then(
              () => true,
              (error) => {
                expect(error).toMatchObject({ code: 'STRATA_BUDGET_EXCEEDED' })
                return false
              },
            )
          if (!accepted) {
            expect(await storeState(store, 'refused')).toEqual(before)
            // Stored without the check, the context refuses too.
            await thread.appendUnseen([request], { history: 'new' })
          }
          const built = await thread.context({ system: SYSTEM, alongside }).then(
            () => true,
            () => false,
          )
          expect(built).toBe(accepted)
        },
      ),
      { numRuns: 40 },
    )
  }, 60_000)

  it('a bad fit option is a typed error and writes nothing', async () => {
    const store = inMemoryStore()
    await withHistory(store)
    const { thread } = await openThread(store)
    const before = await storeState(store, 'refused')
    await expect(
      thread.append({ role: 'user', content: 'Hi' }, { fit: { alongside: 42 as unknown as string } }),
    ).rejects.toMatchObject({ code: 'STRATA_INVALID_OPTIONS' })
    expect(await storeState(store, 'refused')).toEqual(before)
  })
})
