import { describe, expect, it } from 'vitest'
import { StrataError } from '../errors'
import { inMemoryStore } from '../stores'
import { storedThread } from '../testing/stored-thread'
import { createMemory } from './create-memory'
import { followHistory } from './follow-history'

/**
 * An edited request whose call could not fit the budget (what is sent beside the context leaves no
 * room) was refused only after the rewind it brought had archived the answers it replaced: the refusal
 * left the thread changed.
 */
describe('an edited request whose call cannot fit the budget', () => {
  const setup = async () => {
    const store = inMemoryStore()
    const memory = createMemory({ store, compaction: { budget: { inputTokens: 1_000 } } })
    const thread = await memory.thread('edited')
    await thread.append([
      { role: 'user', content: 'First question' },
      { role: 'assistant', content: 'First answer' },
      { role: 'user', content: 'Second question' },
      { role: 'assistant', content: 'Second answer' },
    ])
    return { store, thread }
  }
  // The client edited its second question: the history leaves the thread after the first answer.
  const edited = (question: string) => [
    { role: 'user' as const, content: 'First question' },
    { role: 'assistant' as const, content: 'First answer' },
    { role: 'user' as const, content: question },
  ]

  it('is refused with STRATA_BUDGET_EXCEEDED before the rewind: nothing archived, nothing stored', async () => {
    const { store, thread } = await setup()
    const before = await storedThread(store, 'edited')
    const error = await followHistory(thread, edited('Second question, edited'), {
      // What the call sends beside the context (tool definitions) leaves no room for the request.
      fit: { system: 'You answer questions.', alongside: 'tool definition '.repeat(400) },
    }).catch((caught: unknown) => caught)
    expect(StrataError.isInstance(error, 'STRATA_BUDGET_EXCEEDED')).toBe(true)
    expect(await storedThread(store, 'edited')).toEqual(before)
  })

  it('that fits rewinds and is stored as before', async () => {
    const { store, thread } = await setup()
    await followHistory(thread, edited('Second question, edited'), {
      fit: { system: 'You answer questions.' },
    })
    const { active, archive } = await storedThread(store, 'edited')
    expect(archive.map((item) => item.type === 'message' && item.content)).toEqual([
      [{ type: 'text', text: 'Second question' }],
      [{ type: 'text', text: 'Second answer' }],
    ])
    expect(active.at(-1)).toMatchObject({
      role: 'user',
      content: [{ type: 'text', text: 'Second question, edited' }],
    })
  })
})
