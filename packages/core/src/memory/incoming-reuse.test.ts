import { describe, expect, it } from 'vitest'
import type { MessageInput } from '../items'
import { createMemory } from './create-memory'

/** A framework's message, mapped by `toMessage`, which counts its calls. */
type Framework = { role: 'user' | 'assistant'; text: string }

function counting() {
  const calls: string[] = []
  const toMessage = (message: Framework): MessageInput => {
    calls.push(message.text)
    return { role: message.role, content: message.text }
  }
  return { calls, toMessage }
}

describe('divergence() then appendUnseen() on one list', () => {
  it('maps each message of the list once, and stores only the new one', async () => {
    const thread = await createMemory().thread('reuse')
    const history: Framework[] = [
      { role: 'user', text: 'Hi' },
      { role: 'assistant', text: 'Hello' },
    ]
    await thread.appendUnseen(history, {
      history: 'full',
      toMessage: (m) => ({ role: m.role, content: m.text }),
    })
    const list = [...history, { role: 'user' as const, text: 'Draw a house' }]
    const { calls, toMessage } = counting()
    expect(await thread.divergence(list, { history: 'full', toMessage })).toBeUndefined()
    const mappedByDivergence = calls.length
    expect(mappedByDivergence).toBeGreaterThan(0)
    const stored = await thread.appendUnseen(list, { history: 'full', toMessage })
    expect(stored.map((item) => item.content)).toEqual([[{ type: 'text', text: 'Draw a house' }]])
    // Nothing the divergence mapped was mapped again; each message at most once in all.
    expect(new Set(calls).size).toBe(calls.length)
  })

  it('maps a list again when it changed (a message pushed) or is another list', async () => {
    const thread = await createMemory().thread('changed')
    const list: Framework[] = [{ role: 'user', text: 'Hi' }]
    const { calls, toMessage } = counting()
    await thread.divergence(list, { history: 'full', toMessage })
    list.push({ role: 'assistant', text: 'Hello' })
    const stored = await thread.appendUnseen(list, { history: 'full', toMessage })
    expect(stored.map((item) => item.role)).toEqual(['user', 'assistant'])
    expect(calls.filter((text) => text === 'Hello')).toHaveLength(1)
    const again = [...list, { role: 'user' as const, text: 'Bye' }]
    await thread.divergence(again, { history: 'full', toMessage })
    const before = calls.length
    await thread.appendUnseen([...again], { history: 'full', toMessage })
    // Another array (a copy): its messages are mapped anew, the stored ones it is aligned by included.
    expect(calls.slice(before)).toContain('Hello')
    expect((await thread.items()).map((item) => item.type === 'message' && item.content)).toHaveLength(3)
  })
})
