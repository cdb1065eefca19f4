import { describe, expect, it } from 'vitest'
import { createMemory } from '../memory'
import { inMemoryStore } from '../stores'
import { testEmbedder } from '../testing/test-embedder'

const concepts = [
  ['buy', 'purchase'],
  ['cheap', 'affordable', 'inexpensive'],
  ['car', 'automobile'],
  ['doctor', 'physician'],
  ['sick', 'unwell', 'ill'],
  ['flight', 'plane'],
  ['dog', 'canine'],
  ['house', 'apartment'],
  ['rent', 'lease'],
  ['lawyer', 'attorney'],
]

/** Each target says in other words what its query asks; each distractor shares a literal word of it. */
const paraphrases = [
  {
    query: 'buy a cheap car',
    target: 'I want to purchase an affordable automobile',
    distractor: 'the car park downtown is full',
  },
  {
    query: 'doctor says sick',
    target: 'my physician told me I am unwell',
    distractor: 'the doctor who series starts again',
  },
  {
    query: 'flight Lisbon',
    target: 'book a plane ticket to the Portuguese capital',
    distractor: 'the flight of the bumblebee plays',
  },
  {
    query: 'walk the dog',
    target: 'the canine needs exercise outside',
    distractor: 'a hot dog stand opened',
  },
  {
    query: 'rent a house',
    target: 'lease an apartment near the park',
    distractor: 'the house of cards show',
  },
  {
    query: 'find a lawyer',
    target: 'we need an attorney for the contract',
    distractor: 'find the remote control',
  },
]

async function resourceWith(embedder?: ReturnType<typeof testEmbedder>) {
  const memory = createMemory({ store: inMemoryStore(), ...(embedder === undefined ? {} : { embedder }) })
  for (const [index, { target, distractor }] of paraphrases.entries()) {
    const thread = await memory.thread(`chat-${index}`, { resource: 'user-1' })
    await thread.append({ role: 'user', content: target })
    await thread.append({ role: 'user', content: distractor })
  }
  await memory.settled()
  return memory
}

/** The share of queries whose target is among the top `k` hits. */
async function recallAt(memory: Awaited<ReturnType<typeof resourceWith>>, k: number) {
  let found = 0
  for (const [index, { query, target }] of paraphrases.entries()) {
    const hits = await memory.resource('user-1').query(query, { limit: k })
    if (hits.some((hit) => hit.threadId === `chat-${index}` && hit.seq === 1 && hit.snippet === target))
      found++
  }
  return found / paraphrases.length
}

describe('hybrid ranking (createMemory({ embedder }))', () => {
  it('beats word ranking on a fixed paraphrase set: targets sharing no word with their query are found', async () => {
    const words = await recallAt(await resourceWith(), 3)
    const hybrid = await recallAt(await resourceWith(testEmbedder({ concepts })), 3)
    expect(words).toBe(0)
    expect(hybrid).toBeGreaterThanOrEqual(5 / 6)
    expect(hybrid).toBeGreaterThan(words)
  })

  it('keeps literal matches: a query with the document’s own words still finds it first', async () => {
    const memory = await resourceWith(testEmbedder({ concepts }))
    const [first] = await memory.resource('user-1').query('attorney contract')
    expect(first).toMatchObject({ threadId: 'chat-5', seq: 1 })
  })

  it('embeds appends in the background beside the thread, so a warm query embeds only itself', async () => {
    const embedder = testEmbedder({ concepts })
    const memory = await resourceWith(embedder)
    const vectors = await memory.store.readVectors!('chat-0', { model: embedder.model })
    expect(vectors.map((record) => record.id)).toEqual(['item:1', 'item:2'])
    const before = embedder.embedded.length
    await memory.resource('user-1').query('buy a cheap car')
    expect(embedder.embedded.slice(before)).toEqual(['buy a cheap car'])
    // Content stored later is embedded by the query that needs it, once.
    const thread = await memory.thread('chat-0')
    await thread.content.put({ content: 'Quote for an inexpensive automobile lease' })
    await memory.resource('user-1').query('cheap car')
    expect(embedder.embedded.slice(before + 1)).toEqual([
      'cheap car',
      'Quote for an inexpensive automobile lease',
    ])
    expect((await memory.store.readVectors!('chat-0')).map((record) => record.id)).toContain(
      `content:${(await thread.content.export()).records[0]!.id}`,
    )
  })

  it('refuses an embedder that is not one', () => {
    expect(() => createMemory({ embedder: { model: '', embed: async () => [] } })).toThrowError(
      /embedder must be/,
    )
    expect(() => createMemory({ embedder: { model: 'm' } as never })).toThrowError(/embedder must be/)
  })
})
