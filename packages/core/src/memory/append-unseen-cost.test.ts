import { describe, expect, it } from 'vitest'
import { unseenMessages } from '../history'
import type { MessageInput } from '../items'
import { createMemory } from './create-memory'

const history = (length: number): MessageInput[] =>
  Array.from({ length }, (_, index) => ({
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: `message ${index}`,
  }))

/** The list with every read of one of its elements counted. */
function counted<T>(list: T[]): { list: T[]; reads: () => number } {
  let reads = 0
  const proxy = new Proxy(list, {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads++
      return Reflect.get(target, key, receiver)
    },
  })
  return { list: proxy, reads: () => reads }
}

describe('appendUnseen on a long re-sent history', () => {
  it('reads the messages near the end of the list, not the whole list per message', async () => {
    const thread = await createMemory().thread('cost')
    const messages = history(4_000)
    await thread.append(messages)
    const { list, reads } = counted([...messages, { role: 'user', content: 'new' } as MessageInput])
    const [stored] = await thread.appendUnseen(list, { history: 'full' })
    expect(stored).toMatchObject({ role: 'user', content: [{ type: 'text', text: 'new' }] })
    // The stored tail is 64 messages: a few hundred reads at most. Looking each compared message up
    // by value (`indexOf`) read the whole list for each of them, hundreds of thousands of reads.
    expect(reads()).toBeLessThan(400)
  })

  it('compares a caller-owned stored item as it is now, even after it changed', () => {
    const stored = [
      {
        id: 'a',
        seq: 1,
        ts: 0,
        level: 'global',
        turnId: 'turn_0001',
        type: 'message' as const,
        role: 'user' as const,
        content: [{ type: 'text' as const, text: 'before' }],
      },
    ]
    expect(
      unseenMessages(stored, [{ role: 'user', content: [{ type: 'text', text: 'before' }] }]).unseen,
    ).toEqual([])
    stored[0]!.content[0]!.text = 'after'
    // Only frozen items (the thread's own) are compared from a cache; a mutable copy is read again.
    expect(
      unseenMessages(stored, [{ role: 'user', content: [{ type: 'text', text: 'before' }] }]).unseen,
    ).toHaveLength(1)
  })
})
