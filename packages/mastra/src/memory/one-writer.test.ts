import { createMemory, type Item } from '@strata-memory/core'
import { describe, expect, it } from 'vitest'
import { strataAgent } from '../testing/agent-harness'

const messageCount = (items: Item[]) => items.filter((item) => item.type === 'message').length

describe('one writer', () => {
  it('with savePerStep, Mastra’s own saves during the run store nothing twice', async () => {
    const memory = createMemory()
    const { agent, strata } = strataAgent(memory, [
      { toolCalls: [{ id: 'c1', name: 'weather', input: { city: 'Lisbon' } }] },
      { text: 'Sunny.' },
    ])
    let saves = 0
    const save = strata.saveMessages.bind(strata)
    strata.saveMessages = (args) => {
      saves++
      return save(args)
    }
    await agent.generate('Weather?', {
      memory: { thread: 'per/step', resource: 'ana' },
      savePerStep: true,
      maxSteps: 3,
    })
    const thread = await strata.thread('per/step')
    expect(saves).toBeGreaterThan(0)
    expect(messageCount(await thread.items())).toBe(4)
  })

  it('saveMessages outside a run stores the messages (an import), and recall reads them back', async () => {
    const memory = createMemory()
    const { strata } = strataAgent(memory, [])
    await strata.saveThread({
      thread: { id: 'imported', resourceId: 'ana', createdAt: new Date(), updatedAt: new Date() },
    })
    const at = new Date()
    await strata.saveMessages({
      messages: [
        {
          id: 'u1',
          role: 'user',
          createdAt: at,
          threadId: 'imported',
          resourceId: 'ana',
          content: { format: 2, parts: [{ type: 'text', text: 'Old question' }] },
        },
        {
          id: 'a1',
          role: 'assistant',
          createdAt: at,
          threadId: 'imported',
          resourceId: 'ana',
          content: { format: 2, parts: [{ type: 'text', text: 'Old answer' }] },
        },
      ],
    })
    const { messages } = await strata.recall({ threadId: 'imported', perPage: false })
    expect(messages.map((message) => [message.role, message.content.parts])).toEqual([
      ['user', [{ type: 'text', text: 'Old question' }]],
      ['assistant', [{ type: 'text', text: 'Old answer' }]],
    ])
    const { messages: page } = await strata.recall({ threadId: 'imported', perPage: 1, page: 1 })
    expect(page.map((message) => message.role)).toEqual(['assistant'])
  })

  it("with history: 'full', an app that re-sends the whole conversation stores each message once", async () => {
    const memory = createMemory()
    const { agent, prompts, strata } = strataAgent(
      memory,
      [{ text: 'First answer.' }, { text: 'Second answer.' }],
      {
        history: 'full',
      },
    )
    const resend = { memory: { thread: 'resend', resource: 'ana' } }
    await agent.generate([{ role: 'user', content: 'First question' }], resend)
    await agent.generate(
      [
        { role: 'user', content: 'First question' },
        { role: 'assistant', content: 'First answer.' },
        { role: 'user', content: 'Second question' },
      ],
      resend,
    )
    const thread = await strata.thread('resend')
    expect(messageCount(await thread.items())).toBe(4)
    expect(prompts[1]!.filter((message) => message.role !== 'system')).toHaveLength(3)
  })
})
