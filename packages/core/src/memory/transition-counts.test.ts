import { describe, expect, it } from 'vitest'
import { inMemoryStore } from '../stores'
import type { TokenCounter } from '../tokens'
import { createMemory } from './create-memory'

describe('the transitions of a context', () => {
  it('are counted once per text: a long thread closes many scopes alike', async () => {
    const store = inMemoryStore()
    const thread = await createMemory({ store }).thread('t')
    await thread.append({ role: 'user', content: 'Build the launch page.' })
    for (const title of ['Hero', 'Pricing', 'Footer']) {
      await thread.enter('task', { title })
      await thread.append({ role: 'assistant', content: `${title} done.` })
      await thread.exit({ outcome: 'complete' })
    }
    const counted = new Map<string, number>()
    const tokenCounter: TokenCounter = {
      name: 'characters',
      count: (text) => {
        counted.set(text, (counted.get(text) ?? 0) + 1)
        return text.length
      },
    }
    const opened = await createMemory({ store, tokenCounter }).thread('t')
    const { messages } = await opened.context()
    const transitions = messages.filter((message) => message.kind === 'transition')
    expect(transitions).toHaveLength(3)
    const texts = new Set(transitions.map((message) => (message.content[0] as { text: string }).text))
    expect([...texts]).toEqual(['[ACTIONS]: <1 task actions filtered for brevity>'])
    expect(counted.get([...texts][0]!)).toBe(1)
  })
})
