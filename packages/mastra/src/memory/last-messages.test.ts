import { createMemory } from '@strata-memory/core'
import { describe, expect, it } from 'vitest'
import { strataErrorOf } from '../errors/strata-error-of'
import { promptLines, strataAgent } from '../testing/agent-harness'

const chat = { thread: 'ana/garden', resource: 'ana' }

describe('lastMessages', () => {
  it('caps the history shown before the request (per call); everything stays stored', async () => {
    const memory = createMemory()
    const { agent, strata, prompts } = strataAgent(memory, [
      { text: 'A1' },
      { text: 'A2' },
      { text: 'A3' },
      { text: 'A4' },
    ])
    for (const question of ['Q1', 'Q2', 'Q3']) await agent.generate(question, { memory: chat })
    await agent.generate('Q4', { memory: { ...chat, options: { lastMessages: 2 } } })
    expect(promptLines(prompts[3]!).slice(1)).toEqual([
      'system: [4 earlier messages are not shown (lastMessages: 2); memory_query finds them.]',
      'user: Q3',
      'assistant: A3',
      'user: Q4',
    ])
    const thread = await strata.thread(chat.thread)
    expect((await thread.items()).filter((item) => item.type === 'message')).toHaveLength(8)
  })

  it('on the memory: a cut never separates a tool result from its call; the request’s own steps are always shown', async () => {
    const memory = createMemory()
    const { agent, prompts } = strataAgent(
      memory,
      [
        { text: 'A1' },
        { toolCalls: [{ id: 'c1', name: 'weather', input: { city: 'Lisbon' } }] },
        { text: 'Sunny.' },
        { toolCalls: [{ id: 'c2', name: 'weather', input: { city: 'Porto' } }] },
        { text: 'Also sunny.' },
      ],
      { options: { lastMessages: 2 } },
    )
    await agent.generate('Q1', { memory: chat })
    await agent.generate('Weather in Lisbon?', { memory: chat })
    await agent.generate('And Porto?', { memory: chat })
    // Two messages back is a tool result: the cut moves back to its call.
    const lines = promptLines(prompts[4]!).slice(1)
    expect(lines).toEqual([
      'system: [3 earlier messages are not shown (lastMessages: 2); memory_query finds them.]',
      'assistant: call weather c1',
      'tool: result weather c1',
      'assistant: Sunny.',
      'user: And Porto?',
      'assistant: call weather c2',
      'tool: result weather c2',
    ])
  })

  it('false turns history off, as in Mastra: the request and its own steps only; everything stays stored', async () => {
    const memory = createMemory()
    const { agent, strata, prompts } = strataAgent(memory, [
      { text: 'A1' },
      { toolCalls: [{ id: 'c1', name: 'weather', input: { city: 'Lisbon' } }] },
      { text: 'Sunny.' },
      { text: 'A3' },
    ])
    await agent.generate('Q1', { memory: chat })
    await agent.generate('Weather in Lisbon?', { memory: { ...chat, options: { lastMessages: false } } })
    expect(promptLines(prompts[1]!).slice(1)).toEqual([
      'system: [2 earlier messages are not shown (lastMessages: 0); memory_query finds them.]',
      'user: Weather in Lisbon?',
    ])
    // The request's own steps are shown: the call and its result, within the run.
    expect(promptLines(prompts[2]!).slice(1)).toEqual([
      'system: [2 earlier messages are not shown (lastMessages: 0); memory_query finds them.]',
      'user: Weather in Lisbon?',
      'assistant: call weather c1',
      'tool: result weather c1',
    ])
    // Without it, the next run shows the whole conversation again: nothing was lost.
    await agent.generate('Q3', { memory: chat })
    expect(promptLines(prompts[3]!).slice(1)).toEqual([
      'user: Q1',
      'assistant: A1',
      'user: Weather in Lisbon?',
      'assistant: call weather c1',
      'tool: result weather c1',
      'assistant: Sunny.',
      'user: Q3',
    ])
    const thread = await strata.thread(chat.thread)
    expect((await thread.items()).filter((item) => item.type === 'message')).toHaveLength(8)
  })

  it('on the memory, false turns history off for every run; a call’s number overrides it', async () => {
    const memory = createMemory()
    const { agent, prompts } = strataAgent(memory, [{ text: 'A1' }, { text: 'A2' }, { text: 'A3' }], {
      options: { lastMessages: false },
    })
    await agent.generate('Q1', { memory: chat })
    await agent.generate('Q2', { memory: chat })
    expect(promptLines(prompts[1]!).slice(1)).toEqual([
      'system: [2 earlier messages are not shown (lastMessages: 0); memory_query finds them.]',
      'user: Q2',
    ])
    await agent.generate('Q3', { memory: { ...chat, options: { lastMessages: 2 } } })
    expect(promptLines(prompts[2]!).slice(1)).toEqual([
      'system: [2 earlier messages are not shown (lastMessages: 2); memory_query finds them.]',
      'user: Q2',
      'assistant: A2',
      'user: Q3',
    ])
  })

  it('a malformed lastMessages is refused', async () => {
    expect(() => strataAgent(createMemory(), [], { options: { lastMessages: -1 } })).toThrow(/lastMessages/)
    const memory = createMemory()
    const { agent } = strataAgent(memory, [{ text: 'A1' }, { text: 'A2' }])
    await agent.generate('Q1', { memory: chat })
    const error = await agent.generate('Q3', { memory: { ...chat, options: { lastMessages: 1.5 } } }).then(
      () => undefined,
      (caught: unknown) => caught,
    )
    expect(strataErrorOf(error)?.code).toBe('STRATA_INVALID_OPTIONS')
  })
})
