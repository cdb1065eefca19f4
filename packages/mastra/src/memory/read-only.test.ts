import { createMemory } from '@strata-memory/core'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { promptLines, strataAgent } from '../testing/agent-harness'
import { scriptedModel } from '../testing/scripted-model'
import type { StrataMemory } from './strata-memory'

const memoryOf = { thread: 'ana/garden', resource: 'ana' }

/** Everything the store holds of a thread: items, archive, state, counters, and the thread list. */
async function snapshot(strata: StrataMemory, threadId: string) {
  const store = strata.strata.store
  return JSON.stringify({
    items: await store.read(threadId),
    archive: await store.readArchive(threadId),
    state: await store.getState(threadId),
    head: await store.head(threadId),
    threads: await store.listThreads(),
  })
}

describe('readOnly', () => {
  it('per call: the model gets the thread’s context and the new question; nothing is stored', async () => {
    const memory = createMemory()
    const { agent, strata, prompts } = strataAgent(memory, [{ text: 'Plant tomatoes.' }, { text: 'In May.' }])
    await agent.generate('What should I plant?', { memory: memoryOf })
    const thread = await strata.thread(memoryOf.thread)
    const before = await snapshot(strata, thread.id)

    const result = await agent.generate('When?', { memory: { ...memoryOf, options: { readOnly: true } } })

    expect(result.text).toBe('In May.')
    expect(promptLines(prompts[1]!).slice(1)).toEqual([
      'user: What should I plant?',
      'assistant: Plant tomatoes.',
      'user: When?',
    ])
    expect(await snapshot(strata, thread.id)).toBe(before)
    await memory.settled()
    expect(await snapshot(strata, thread.id)).toBe(before)
  })

  it('per agent (StrataMemory({ readOnly: true })): a new thread is not created, nothing is stored', async () => {
    const memory = createMemory()
    const { agent, strata, prompts } = strataAgent(memory, [{ text: 'Hello.' }], { readOnly: true })
    const result = await agent.generate('Hi', { memory: memoryOf })
    expect(result.text).toBe('Hello.')
    expect(promptLines(prompts[0]!).slice(1)).toEqual(['user: Hi'])
    expect(await memory.listThreads()).toEqual([])
    expect(await strata.getThreadById({ threadId: memoryOf.thread })).toBeNull()
  })
})

describe('Mastra’s own read-only calls', () => {
  it('structuredOutput with useAgent: only the user’s exchange is stored, the structuring call sees it once', async () => {
    const memory = createMemory()
    const { agent, strata, prompts } = strataAgent(memory, [{ text: 'Lisbon in May, by tram.' }])
    const structuring = scriptedModel([{ text: '{"city":"Lisbon","month":"May"}' }])
    const result = await agent.generate('Plan my trip', {
      memory: memoryOf,
      structuredOutput: {
        schema: z.object({ city: z.string(), month: z.string() }),
        model: structuring.model,
        useAgent: true,
      },
    })
    expect(result.object).toEqual({ city: 'Lisbon', month: 'May' })
    expect(prompts).toHaveLength(1)
    const thread = await strata.thread(memoryOf.thread)
    const stored = (await thread.items()).filter((item) => item.type === 'message')
    expect(stored.map((item) => item.role)).toEqual(['user', 'assistant'])
    expect(JSON.stringify(stored)).not.toContain('Extract and structure')
    const structuringLines = promptLines(structuring.prompts[0]!).filter(
      (line) => !line.startsWith('system:'),
    )
    expect(structuringLines.filter((line) => line === 'user: Plan my trip')).toHaveLength(1)
    expect(structuringLines.at(-1)).toContain('Extract and structure')
  })
})
