import { describe, expect, it } from 'vitest'
import { inMemoryStore } from '../stores'
import type { Summarizer } from '../summarizers'
import { createMemory } from './create-memory'

// Facts written by the pattern summarizer before issue 24, in its old wording.
const OLD_FACTS = ['User said: "I prefer aisle seats."', 'orderId (lookup_order): A-1234']

/** The summarizer of an older release, standing in for the facts it wrote. */
const oldSummarizer: Summarizer = {
  name: 'pattern',
  summarize: async () => ({
    summary: 'Earlier turns.',
    facts: OLD_FACTS.map((text) => ({ text, confidence: 0.9 })),
  }),
}

const budget = { maxOutputTokens: 1_000, rawTailTurns: 1 }

describe('a thread with facts in the old wording', () => {
  it('keeps showing them as they are, and the new rules do not store a sentence they quote again', async () => {
    const store = inMemoryStore()
    const before = createMemory({ store, summarizer: oldSummarizer, compaction: { budget } })
    const old = await before.thread('old-facts')
    for (const text of ['Where is my order A-1234?', 'I prefer aisle seats.']) {
      await old.append({ role: 'user', content: text })
      await old.append({ role: 'assistant', content: 'Noted.' })
    }
    await old.append({ role: 'user', content: 'Thanks.' })
    await old.compact({ force: true })

    // The same store opened with today's default summarizer: nothing is rewritten.
    const after = createMemory({ store, compaction: { budget } })
    const thread = await after.thread('old-facts')
    for (const text of ['I prefer aisle seats.', 'My budget is 900 EUR.', 'Fine.']) {
      await thread.append({ role: 'user', content: text })
      await thread.append({ role: 'assistant', content: 'Noted.' })
    }
    await thread.append({ role: 'user', content: 'Book it.' })
    await thread.compact({ force: true })

    const items = [...(await thread.items()), ...(await store.readArchive('old-facts'))]
    const facts = items.flatMap((item) => (item.type === 'fact' ? [item.text] : []))
    expect(facts.slice(0, 2)).toEqual(OLD_FACTS)
    expect(facts).toContain("User's budget is 900 EUR")
    expect(facts).not.toContain('User prefers aisle seats')
    const { messages } = await thread.context()
    const semantic = messages
      .flatMap((message) => message.content)
      .find((part) => part.type === 'text' && part.text.startsWith('[MEMORY:SEMANTIC]'))
    expect(semantic).toBeDefined()
    for (const fact of OLD_FACTS) expect((semantic as { text: string }).text).toContain(fact)
  })
})
