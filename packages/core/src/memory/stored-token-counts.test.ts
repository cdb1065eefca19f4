import { describe, expect, it } from 'vitest'
import type { Item, MessageItem, UnsequencedItem } from '../items'
import { inMemoryStore } from '../stores'
import type { TokenCounter } from '../tokens'
import { createMemory } from './create-memory'

const characters: TokenCounter = { name: 'characters', count: (text) => text.length }

/** Writes a small thread with text, a tool call and its result, and a closed scope. */
async function writeThread(store = inMemoryStore(), tokenCounter?: TokenCounter) {
  const thread = await createMemory({ store, ...(tokenCounter ? { tokenCounter } : {}) }).thread('t')
  await thread.append([{ role: 'user', content: 'Plan the launch page, please.' }])
  await thread.enter('task', { title: 'Hero section' })
  await thread.append([
    {
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: 'c1', toolName: 'create_shape', input: { type: 'rect', x: 4 } },
      ],
    },
    {
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'c1', toolName: 'create_shape', output: { id: 'shape_1' } },
      ],
    },
    { role: 'assistant', content: 'The hero is in place.' },
  ])
  await thread.exit({ outcome: 'complete' })
  return store
}

/** Copies a thread's items into a new thread of a new store, changed by `change`, in one batch append. */
async function copyThread(items: readonly Item[], change: (item: Item) => Item) {
  const store = inMemoryStore()
  const copies = items.map((item) => {
    const { seq: _, ...rest } = change(structuredClone(item))
    return rest as UnsequencedItem
  })
  await store.append('t', copies, { expectedSeq: 0 })
  return store
}

const withoutTokens = (item: Item): Item => {
  if (item.type === 'message') delete (item as MessageItem).tokens
  return item
}

async function totals(store: ReturnType<typeof inMemoryStore>, tokenCounter?: TokenCounter) {
  const thread = await createMemory({ store, ...(tokenCounter ? { tokenCounter } : {}) }).thread('t')
  const { stats } = await thread.context({ level: 'global' })
  const status = await thread.status()
  return { totalTokens: stats.totalTokens, itemsTotal: stats.itemsTotal, status: status.tokens }
}

describe('token counts stored with messages', () => {
  it("stores each part's count and the counter's name with every message, and nothing on other items", async () => {
    const store = await writeThread()
    const items = await store.read('t')
    const messages = items.filter((item): item is MessageItem => item.type === 'message')
    expect(messages.length).toBeGreaterThan(3)
    for (const message of messages) {
      expect(message.tokens?.counter).toBe('estimator')
      expect(message.tokens?.parts).toHaveLength(message.content.length)
      for (const count of message.tokens!.parts) expect(count).toBeGreaterThan(0)
    }
    for (const item of items.filter((item) => item.type !== 'message'))
      expect(item).not.toHaveProperty('tokens')
  })

  it('opens a log written before counts were stored with the same totals', async () => {
    const written = await writeThread()
    const old = await copyThread(await written.read('t'), withoutTokens)
    expect((await old.read('t')).some((item) => item.type === 'message' && item.tokens !== undefined)).toBe(
      false,
    )
    const expected = await totals(written)
    expect(expected.totalTokens).toBeGreaterThan(0)
    expect(await totals(old)).toEqual(expected)
  })

  it('counts again with another counter, and when the stored counts do not fit the parts', async () => {
    const written = await writeThread()
    const byCharacters = await totals(await writeThread(inMemoryStore(), characters), characters)
    expect(await totals(written, characters)).toEqual(byCharacters)
    expect(byCharacters.totalTokens).not.toBe((await totals(written)).totalTokens)

    const mismatched = await copyThread(await written.read('t'), (item) => {
      if (item.type === 'message')
        (item as MessageItem).tokens = { counter: 'estimator', parts: [1_000_000, 1_000_000] }
      return item
    })
    expect(await totals(mismatched)).toEqual(await totals(written))
    // Counts that fit are trusted as they are: the open does not count what was stored.
    const trusted = await copyThread(await written.read('t'), (item) => {
      if (item.type === 'message') (item as MessageItem).tokens = { counter: 'estimator', parts: [1_000] }
      return item
    })
    const messages = (await written.read('t')).filter((item) => item.type === 'message')
    expect(messages.every((item) => item.type === 'message' && item.content.length === 1)).toBe(true)
    expect((await totals(trusted)).totalTokens).toBe(messages.length * (1_000 + 4))
  })
})
