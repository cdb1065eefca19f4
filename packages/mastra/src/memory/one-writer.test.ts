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
    // Paged as Mastra pages: the newest first, older on later pages.
    const { messages: page } = await strata.recall({ threadId: 'imported', perPage: 1, page: 1 })
    expect(page.map((message) => message.role)).toEqual(['user'])
  })

  it('saveMessages keeps ids and stores a message once: an import run again, or messages recall gave, add nothing; an edit is refused', async () => {
    const memory = createMemory()
    const { agent, strata } = strataAgent(memory, [{ text: 'Hello, Ana.' }])
    await strata.saveThread({
      thread: { id: 'again', resourceId: 'ana', createdAt: new Date(), updatedAt: new Date() },
    })
    const message = (id: string, role: 'user' | 'assistant', text: string) => ({
      id,
      role,
      createdAt: new Date(),
      threadId: 'again',
      resourceId: 'ana',
      content: { format: 2 as const, parts: [{ type: 'text' as const, text }] },
    })
    const imported = [message('u1', 'user', 'Old question'), message('a1', 'assistant', 'Old answer')]
    await strata.saveMessages({ messages: imported })
    await strata.saveMessages({ messages: imported })
    await agent.generate('Hi', { memory: { thread: 'again', resource: 'ana' } })
    const recalled = (await strata.recall({ threadId: 'again', perPage: false })).messages
    expect(recalled.map((recalledMessage) => recalledMessage.id).slice(0, 2)).toEqual(['u1', 'a1'])
    expect(recalled).toHaveLength(4)
    const thread = await strata.thread('again')
    const before = await thread.items()
    // Read by recall and saved back, a run's messages included.
    await strata.saveMessages({ messages: recalled })
    expect(await thread.items()).toEqual(before)
    // An edited message under a stored id: Mastra's storages would replace it; an append-only log cannot.
    const edited = {
      ...recalled[1]!,
      content: { ...recalled[1]!.content, parts: [{ type: 'text' as const, text: 'Edited' }] },
    }
    const refused = await strata.saveMessages({ messages: [message('u9', 'user', 'New'), edited] }).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(refused).toMatchObject({
      code: 'STRATA_INVALID_MESSAGE',
      details: { reason: 'already-stored', messageId: 'a1' },
    })
    expect(await thread.items()).toEqual(before)
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
