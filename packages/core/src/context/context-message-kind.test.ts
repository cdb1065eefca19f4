import { describe, expect, it } from 'vitest'
import { createMemory } from '../memory'
import { inMemoryStore } from '../stores'
import { fetchMessages, makePage } from '../testing'
import type { ContextMessage } from './context-message'

const kinds = (messages: readonly ContextMessage[]) =>
  messages.map((message) => {
    const first = message.content[0]
    return [first?.type === 'text' ? first.text.slice(0, 14) : first?.type, message.kind]
  })

/** Texts that look like what the context renders for Strata's own messages. */
const LOOKALIKES = ['[SUMMARY]: mine', '[FACT]: mine', '[MEMORY:OMITTED] mine', '[STORED RESULTS] mine']

describe("a context message's kind says what Strata rendered it from, whatever its text", () => {
  it('system prompt, slots, transitions, summaries and scope openings carry it; conversation messages do not', async () => {
    const memory = createMemory()
    const thread = await memory.thread('kinds')
    await thread.append({ role: 'user', content: LOOKALIKES[0]! })
    await thread.enter('project', { title: 'Garden' })
    const inside = await thread.context()
    // The turn's request stays in view inside the scope (a user's own message), beside the opening.
    expect(kinds(inside.messages)).toHaveLength(2)
    expect(kinds(inside.messages)).toContainEqual(['Project: Garde', 'scope'])
    expect(kinds(inside.messages)).toContainEqual(['[SUMMARY]: min', undefined])
    await thread.exit({ outcome: 'complete', summary: 'Trees planted.' })
    for (const text of LOOKALIKES.slice(1)) await thread.append({ role: 'user', content: text })
    const context = await thread.context({ system: 'Be brief.' })
    expect(kinds(context.messages)).toEqual([
      ['Be brief.', 'system'],
      ['[SUMMARY]: min', undefined],
      [expect.any(String), 'transition'],
      ['[SUMMARY]: Tre', 'summary'],
      ['[FACT]: mine', undefined],
      ['[MEMORY:OMITTE', undefined],
      ['[STORED RESULT', undefined],
    ])
  })

  it("the notes a fitted context adds are 'note': left-out steps and grouped-out results", async () => {
    const store = inMemoryStore()
    const writer = await createMemory({ store }).thread('notes')
    await writer.append({ role: 'user', content: 'Fetch the pages.' })
    for (let step = 0; step < 8; step++)
      await writer.append(
        fetchMessages(`c${step}`, `https://example.com/${step}`, makePage(20_000, `p${step}`)),
      )
    const grouped = await createMemory({ store, content: { maxCitations: 2 } }).thread('notes')
    const storedNote = (await grouped.context()).messages.find((message) =>
      message.content.some((part) => part.type === 'text' && part.text.startsWith('[STORED RESULTS]')),
    )
    expect(storedNote?.kind).toBe('note')
    const fitted = await createMemory({ store, compaction: { budget: { inputTokens: 1_500 } } }).thread(
      'notes',
    )
    const omitted = (await fitted.context()).messages.find((message) =>
      message.content.some((part) => part.type === 'text' && part.text.startsWith('[MEMORY:OMITTED]')),
    )
    expect(omitted?.kind).toBe('note')
  })
})
