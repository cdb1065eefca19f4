import { describe, expect, it } from 'vitest'
import type { Item, JsonObject, MessageItem, UnsequencedItem } from '../items'
import { inMemoryStore } from '../stores'
import { agentTurn, countingStore } from '../testing/thread-open-suite'
import { DIGEST_SLOT, parseDigest, storedDigest } from '../thread-state/log-digest'
import { ThreadLog } from '../thread-state/thread-log'
import { counterIdentity, type TokenCounter, tokenEstimator } from '../tokens'
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
  it("stores each part's count and the counter's name and version with every message, and nothing on other items", async () => {
    const store = await writeThread()
    const items = await store.read('t')
    const messages = items.filter((item): item is MessageItem => item.type === 'message')
    expect(messages.length).toBeGreaterThan(3)
    for (const message of messages) {
      expect(message.tokens?.counter).toBe('estimator@2')
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
      if (item.type === 'message') (item as MessageItem).tokens = { counter: 'estimator@2', parts: [1_000] }
      return item
    })
    const messages = (await written.read('t')).filter((item) => item.type === 'message')
    expect(messages.every((item) => item.type === 'message' && item.content.length === 1)).toBe(true)
    expect((await totals(trusted)).totalTokens).toBe(messages.length * (1_000 + 4))
  })
})

/** Text messages only, each with stored counts of `parts: [count]` by `counter`. */
async function textThread(counter: string, count: number) {
  const written = inMemoryStore()
  const thread = await createMemory({ store: written }).thread('t')
  await thread.append([
    { role: 'user', content: 'Plan the launch page, please.' },
    { role: 'assistant', content: 'First the hero, then the pricing table.' },
    { role: 'user', content: 'Go ahead.' },
  ])
  return copyThread(await written.read('t'), (item) => {
    if (item.type === 'message') (item as MessageItem).tokens = { counter, parts: [count] }
    return item
  })
}

describe("a counter's identity: its name and version", () => {
  it('names the estimator by its version, and its multiplier; a counter without a version by its name', () => {
    expect(tokenEstimator().name).toBe('estimator')
    expect(counterIdentity(tokenEstimator())).toBe('estimator@2')
    expect(counterIdentity(tokenEstimator({ multiplier: 1.5 }))).toBe('estimator@2x1.5')
    expect(counterIdentity(characters)).toBe('characters')
  })

  it("trusts what the estimator stored before versions, as version 2's; a multiplier's counts again", async () => {
    const fresh = await totals(await textThread('estimator@2', 1_000))
    expect(fresh.totalTokens).toBe(3 * (1_000 + 4))
    // Plain `estimator`: version 1, which counts as version 2 does but for very long whitespace runs.
    const old = await textThread('estimator', 1_000)
    expect(await totals(old)).toEqual(fresh)
    // The contexts are fitted with fresh counts whatever was stored.
    const thread = await createMemory({ store: old }).thread('t')
    const { stats } = await thread.context({ level: 'global' })
    expect(stats.contextTokens).toBeLessThan(3 * 30)
    // Another estimator (a multiplier) stored them under the same bare name: they are counted again.
    const multiplied = tokenEstimator({ multiplier: 2 })
    expect((await totals(old, multiplied)).totalTokens).toBeLessThan(3 * 60)
    expect((await totals(await textThread('estimator@1', 1_000))).totalTokens).toBeLessThan(3 * 30)
  })

  it("a context counts the parts it shows unchanged by the counts this very counter stored; another's are counted", async () => {
    const thread = await createMemory({ store: await textThread('estimator@2', 1_000) }).thread('t')
    expect((await thread.context({ level: 'global' })).stats.contextTokens).toBe(3 * (1_000 + 4))
    // Another version's, or none: every part is counted.
    const other = await createMemory({ store: await textThread('estimator@1', 1_000) }).thread('t')
    expect((await other.context({ level: 'global' })).stats.contextTokens).toBeLessThan(3 * 30)
  })

  it("trusts a custom counter's counts without a version under its name, as before versions", async () => {
    const store = await textThread('characters', 1_000)
    expect((await totals(store, characters)).totalTokens).toBe(3 * (1_000 + 4))
    // Another version of the same name is another counter.
    const versioned = { ...characters, version: '2' }
    expect((await totals(store, versioned)).totalTokens).toBeLessThan(3 * 50)
  })

  it("uses a digest only of the same identity (the estimator's before versions as version 2's), a custom counter's too", () => {
    const stored = storedDigest(new ThreadLog(tokenEstimator()).digest())
    expect(stored.counter).toBe('estimator@2')
    expect(parseDigest(stored, tokenEstimator())).toBeDefined()
    expect(parseDigest({ ...stored, counter: 'estimator' }, tokenEstimator())?.counter).toBe('estimator@2')
    expect(
      parseDigest({ ...stored, counter: 'estimator' }, tokenEstimator({ multiplier: 2 })),
    ).toBeUndefined()
    expect(parseDigest({ ...stored, counter: 'estimator@1' }, tokenEstimator())).toBeUndefined()
    expect(parseDigest(stored, tokenEstimator({ multiplier: 2 }))).toBeUndefined()
    const custom = storedDigest(new ThreadLog(characters).digest())
    expect(custom.counter).toBe('characters')
    expect(parseDigest(custom, characters)).toBeDefined()
  })

  it("an open replays a thread whose digest another version stored, and the next write stores this version's; the estimator's before versions is used", async () => {
    const store = inMemoryStore()
    const options = { store, compaction: { budget: { inputTokens: 3_000 } } } as const
    const thread = await createMemory(options).thread('d')
    for (let turn = 1; turn <= 30; turn++) await thread.append(agentTurn(turn))
    await thread.compact({ force: true })
    await thread.settled()
    const archived = (await store.head('d')).archivedCount
    expect(archived).toBeGreaterThan(0)
    const digest = (await store.getSlot('d', DIGEST_SLOT)) as JsonObject
    expect(digest.counter).toBe('estimator@2')
    // As the estimator before versions wrote it: the same digest under its bare name, used as it is.
    await store.setSlot('d', DIGEST_SLOT, { ...digest, counter: 'estimator' })
    const earlier = countingStore(store)
    await createMemory({ ...options, store: earlier.store }).thread('d')
    expect(earlier.reads.archivedItems).toBe(0)
    // Another version's: replayed from the archive.
    await store.setSlot('d', DIGEST_SLOT, { ...digest, counter: 'estimator@1' })
    const old = countingStore(store)
    const reopened = await createMemory({ ...options, store: old.store }).thread('d')
    expect(old.reads.archivedItems).toBe(archived)
    await reopened.append({ role: 'user', content: 'next' })
    expect(((await store.getSlot('d', DIGEST_SLOT)) as JsonObject).counter).toBe('estimator@2')
    const fresh = countingStore(store)
    await createMemory({ ...options, store: fresh.store }).thread('d')
    expect(fresh.reads.archivedItems).toBe(0)
  })
})
