import { Mastra } from '@mastra/core/mastra'
import { InMemoryStore } from '@mastra/core/storage'
import { createMemory, type Item, type MessageItem } from '@strata-memory/core'
import { describe, expect, it } from 'vitest'
import { promptLines, strataAgent } from '../testing/agent-harness'

const THREAD = 'ana@example.com/trip 1'
const call = { memory: { thread: THREAD, resource: 'ana' } }

const messages = (items: Item[]) => items.filter((item): item is MessageItem => item.type === 'message')

/** Each stored message as `role: text`, tool parts by name and call id. */
const storedLines = (items: Item[]) =>
  messages(items).map(
    (item) =>
      `${item.role}: ${item.content
        .map((part) =>
          part.type === 'text'
            ? part.text
            : part.type === 'tool-call'
              ? `call ${part.toolName} ${part.toolCallId}`
              : part.type === 'tool-result'
                ? `result ${part.toolName} ${part.toolCallId}`
                : `[${part.type}]`,
        )
        .join(' ')}`,
  )

describe('StrataMemory on a Mastra agent', () => {
  it('agent.generate: the model receives the thread context, and the input and answer are stored once', async () => {
    const memory = createMemory()
    const { agent, prompts, strata } = strataAgent(
      memory,
      [{ text: 'Hello Ana.' }, { text: 'You asked about Lisbon.' }],
      { system: 'You remember trips.' },
    )
    const first = await agent.generate('Hi, I plan a trip to Lisbon.', call)
    expect(first.text).toBe('Hello Ana.')
    await agent.generate('What did I ask?', call)
    // The thread's context, with its system prompt after the agent's instructions.
    expect(promptLines(prompts[1]!)).toEqual([
      'system: Be brief.',
      'system: You remember trips.',
      'user: Hi, I plan a trip to Lisbon.',
      'assistant: Hello Ana.',
      'user: What did I ask?',
    ])
    const thread = await strata.thread(THREAD)
    expect(storedLines(await thread.items())).toEqual([
      'user: Hi, I plan a trip to Lisbon.',
      'assistant: Hello Ana.',
      'user: What did I ask?',
      'assistant: You asked about Lisbon.',
    ])
  })

  it('agent.stream: the same, the answer stored once when the stream ends', async () => {
    const memory = createMemory()
    const { agent, prompts, strata } = strataAgent(memory, [{ text: 'Streamed hello.' }, { text: 'Again.' }])
    const stream = await agent.stream('Hi there', call)
    expect(await stream.text).toBe('Streamed hello.')
    const again = await agent.stream('One more', call)
    await again.consumeStream()
    expect(promptLines(prompts[1]!)).toEqual([
      'system: Be brief.',
      'user: Hi there',
      'assistant: Streamed hello.',
      'user: One more',
    ])
    const thread = await strata.thread(THREAD)
    expect(storedLines(await thread.items())).toEqual([
      'user: Hi there',
      'assistant: Streamed hello.',
      'user: One more',
      'assistant: Again.',
    ])
  })

  it('a multi-step tool loop stores every call and result once, in order, paired', async () => {
    const memory = createMemory()
    const { agent, prompts, strata } = strataAgent(memory, [
      { toolCalls: [{ id: 'c1', name: 'weather', input: { city: 'Lisbon' } }] },
      {
        toolCalls: [
          { id: 'c2', name: 'weather', input: { city: 'Porto' } },
          { id: 'c3', name: 'weather', input: { city: 'Faro' } },
        ],
      },
      { text: 'Sunny everywhere.' },
    ])
    const result = await agent.generate('Weather in Lisbon, Porto and Faro?', { ...call, maxSteps: 5 })
    expect(result.text).toBe('Sunny everywhere.')
    const thread = await strata.thread(THREAD)
    const stored = storedLines(await thread.items())
    expect(stored).toEqual([
      'user: Weather in Lisbon, Porto and Faro?',
      'assistant: call weather c1',
      'tool: result weather c1',
      'assistant: call weather c2 call weather c3',
      'tool: result weather c2 result weather c3',
      'assistant: Sunny everywhere.',
    ])
    // Each step's prompt is the thread's context: every earlier call with its result, once.
    expect(promptLines(prompts[2]!).slice(1)).toEqual(stored.slice(0, 5))
    const interactions = await thread.toolInteractions()
    expect(interactions.map((pair) => [pair.toolCallId, pair.status])).toEqual([
      ['c1', 'success'],
      ['c2', 'success'],
      ['c3', 'success'],
    ])
  })

  it('agent.stream runs a tool loop the same way: each call and result stored once, in order', async () => {
    const memory = createMemory()
    const { agent, prompts, strata } = strataAgent(memory, [
      { toolCalls: [{ id: 's1', name: 'weather', input: { city: 'Braga' } }], inputTokens: 90 },
      { text: 'Braga is sunny.', inputTokens: 95 },
    ])
    const stream = await agent.stream('Weather in Braga?', { ...call, maxSteps: 3 })
    expect(await stream.text).toBe('Braga is sunny.')
    const thread = await strata.thread(THREAD)
    const stored = storedLines(await thread.items())
    expect(stored).toEqual([
      'user: Weather in Braga?',
      'assistant: call weather s1',
      'tool: result weather s1',
      'assistant: Braga is sunny.',
    ])
    expect(promptLines(prompts[1]!).slice(1)).toEqual(stored.slice(0, 3))
    expect((await thread.status()).lastUsage).toMatchObject({ inputTokens: 95 })
  })

  it('stores nothing in any Mastra storage; Mastra’s memory API answers from Strata', async () => {
    const storage = new InMemoryStore()
    const memory = createMemory()
    const { agent, strata } = strataAgent(memory, [
      { toolCalls: [{ id: 'c1', name: 'weather', input: { city: 'Lisbon' } }] },
      { text: 'Sunny.' },
    ])
    const mastra = new Mastra({ agents: { helper: agent }, storage, logger: false })
    await mastra.getAgent('helper').generate('Weather?', { ...call, maxSteps: 3 })
    const mastraMemory = await storage.getStore('memory')
    const stored = await mastraMemory!.listThreads({ perPage: false })
    expect(stored.threads).toEqual([])

    const thread = await strata.getThreadById({ threadId: THREAD })
    expect(thread).toMatchObject({ id: THREAD, resourceId: 'ana' })
    const byResource = await strata.listThreads({ filter: { resourceId: 'ana' } })
    expect(byResource.threads.map((found) => found.id)).toEqual([THREAD])
    const { messages: recalled } = await strata.recall({ threadId: THREAD, perPage: false })
    expect(recalled.map((message) => message.role)).toEqual(['user', 'assistant', 'assistant'])
    const [, toolStep, answer] = recalled
    expect(toolStep!.content.parts).toEqual([
      {
        type: 'tool-invocation',
        toolInvocation: {
          state: 'result',
          toolCallId: 'c1',
          toolName: 'weather',
          args: { city: 'Lisbon' },
          result: { city: 'Lisbon', sky: 'sunny' },
        },
      },
    ])
    expect(answer!.content.parts).toEqual([{ type: 'text', text: 'Sunny.' }])
    expect(answer!.content.metadata).toMatchObject({ strata: { level: 'global', turnId: 'turn_0001' } })
    expect(recalled.every((message) => message.threadId === THREAD && message.resourceId === 'ana')).toBe(
      true,
    )

    await strata.deleteThread(THREAD)
    expect(await strata.getThreadById({ threadId: THREAD })).toBeNull()
    expect(await memory.listThreads()).toEqual([])
  })

  it('two resources and two threads stay apart', async () => {
    const memory = createMemory()
    const { agent, prompts, strata } = strataAgent(memory, [
      { text: 'Hi Ana.' },
      { text: 'Hi Bob.' },
      { text: 'Ana again.' },
    ])
    await agent.generate('I am Ana', { memory: { thread: 'chat/ana', resource: 'ana' } })
    await agent.generate('I am Bob', { memory: { thread: 'chat/bob', resource: 'bob' } })
    await agent.generate('Who am I?', { memory: { thread: 'chat/ana', resource: 'ana' } })
    expect(promptLines(prompts[1]!)).toEqual(['system: Be brief.', 'user: I am Bob'])
    expect(promptLines(prompts[2]!)).toEqual([
      'system: Be brief.',
      'user: I am Ana',
      'assistant: Hi Ana.',
      'user: Who am I?',
    ])
    const ana = await strata.listThreads({ filter: { resourceId: 'ana' } })
    const bob = await strata.listThreads({ filter: { resourceId: 'bob' } })
    expect(ana.threads.map((thread) => thread.id)).toEqual(['chat/ana'])
    expect(bob.threads.map((thread) => thread.id)).toEqual(['chat/bob'])
    // Mastra refuses a thread another resource owns, before anything is stored.
    await expect(
      agent.generate('Let me in', { memory: { thread: 'chat/ana', resource: 'bob' } }),
    ).rejects.toThrow()
    const { messages: anaMessages } = await strata.recall({ threadId: 'chat/ana', perPage: false })
    expect(anaMessages).toHaveLength(4)
  })

  it('a level change between calls changes what the model receives, as the view rule says', async () => {
    const memory = createMemory()
    const { agent, prompts, strata } = strataAgent(memory, [
      { text: 'Garden project noted.' },
      { text: 'Planting now.' },
      { text: 'The trees are planted.' },
    ])
    await agent.generate('We start the garden project.', call)
    const thread = await strata.thread(THREAD)
    await thread.enter('task', { title: 'Plant the trees', instructions: 'Three apple trees.' })
    await agent.generate('Go ahead.', call)
    // The task's view: its opening and its own messages, nothing broader.
    const task = promptLines(prompts[1]!)
    expect(task[0]).toBe('system: Be brief.')
    expect(task.slice(1).join('\n')).not.toContain('garden project')
    expect(task.at(-1)).toBe('user: Go ahead.')
    expect(task.join('\n')).toContain('Plant the trees')
    await thread.exit({ summary: 'Three apple trees planted by the fence.' })
    await agent.generate('Status?', call)
    const global = promptLines(prompts[2]!).join('\n')
    expect(global).toContain('user: We start the garden project.')
    expect(global).toContain('Three apple trees planted by the fence.')
    expect(global).not.toContain('Go ahead.')
    // Stored at the level current when they came in, and the level travels in content.metadata.
    const levels = messages(await thread.items()).map((item) => [item.role, item.level])
    expect(levels).toEqual([
      ['user', 'global'],
      ['assistant', 'global'],
      ['user', 'task'],
      ['user', 'task'],
      ['assistant', 'task'],
      ['user', 'global'],
      ['assistant', 'global'],
    ])
    const { messages: recalled } = await strata.recall({ threadId: THREAD, perPage: false })
    const transition = recalled.find((message) =>
      message.content.parts.some((part) => part.type === 'data-memory-transition'),
    )
    expect(transition?.content.parts[0]).toMatchObject({
      type: 'data-memory-transition',
      data: { fromLevel: 'task', level: 'global', reason: 'task-complete' },
    })
    expect(
      recalled.map((message) => (message.content.metadata?.strata as { level?: string } | undefined)?.level),
    ).toContain('task')
  })
})
