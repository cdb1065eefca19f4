import { createMemory } from '@strata-memory/core'
import { describe, expect, it } from 'vitest'
import { strataErrorOf } from '../errors/strata-error-of'
import { promptLines, strataAgent } from '../testing/agent-harness'
import type { ReceivedPrompt } from '../testing/scripted-model'

const systemText = (prompt: ReceivedPrompt) =>
  promptLines(prompt)
    .filter((line) => line.startsWith('system:'))
    .join('\n')

const steps = [
  { text: 'Rex sounds lovely.' },
  { text: 'Nursing is demanding.' },
  { text: 'Bob’s dog Fido is noted.' },
  { text: 'Your dog is Rex.' },
]

/** Ana tells one thread about her dog and her work; Bob, another resource, tells his about his dog. */
async function seeded(options: Parameters<typeof strataAgent>[2] = {}) {
  const memory = createMemory()
  const harness = strataAgent(memory, steps, options)
  const { agent } = harness
  await agent.generate('My dog is called Rex and he loves the beach.', {
    memory: { thread: 'ana/one', resource: 'ana' },
  })
  await agent.generate('I work as a nurse at night.', { memory: { thread: 'ana/one', resource: 'ana' } })
  await agent.generate('My dog is called Fido.', { memory: { thread: 'bob/one', resource: 'bob' } })
  return { memory, ...harness }
}

describe('semanticRecall', () => {
  it('scope resource (per call): a new thread’s prompt shows the best match from the resource’s other thread, with its neighbour', async () => {
    const { agent, prompts } = await seeded()
    await agent.generate('What is my dog called?', {
      memory: {
        thread: 'ana/two',
        resource: 'ana',
        options: { semanticRecall: { topK: 1, messageRange: { before: 0, after: 1 } } },
      },
    })
    const system = systemText(prompts[3]!)
    expect(system).toContain('[MEMORY:RECALLED]')
    expect(system).toContain(
      '— conversation "ana/one" —\nuser: My dog is called Rex and he loves the beach.\nassistant: Rex sounds lovely.',
    )
    // topK 1, one message after: nothing else of Ana's thread, nothing of Bob's.
    expect(system).not.toContain('nurse')
    expect(system).not.toContain('Fido')
  })

  it('off unless asked: a run recalls nothing, though the merged config reports recall on for Mastra’s search route', async () => {
    const { agent, prompts, strata } = await seeded()
    expect(strata.getMergedThreadConfig({}).semanticRecall).toEqual({
      topK: 4,
      messageRange: { before: 1, after: 1 },
      scope: 'resource',
    })
    expect(strata.getMergedThreadConfig({ semanticRecall: false }).semanticRecall).toBe(false)
    await agent.generate('What is my dog called?', { memory: { thread: 'ana/two', resource: 'ana' } })
    expect(systemText(prompts[3]!)).not.toContain('MEMORY:RECALLED')
    // Mastra's search (recall with vectorSearchString) finds it, across the resource's threads.
    const { messages } = await strata.recall({
      threadId: 'ana/two',
      resourceId: 'ana',
      vectorSearchString: 'dog Rex beach',
    })
    expect(messages[0]).toMatchObject({ threadId: 'ana/one', role: 'user' })
    expect(messages.every((message) => message.resourceId === 'ana')).toBe(true)
    expect(JSON.stringify(messages)).not.toContain('Fido')
  })

  it('on the memory (semanticRecall: true): the default range shows the neighbours on both sides', async () => {
    const { agent, prompts } = await seeded({ options: { semanticRecall: true } })
    // The seeding calls recalled too: Bob's first prompt saw nothing of Ana's.
    expect(systemText(prompts[2]!)).not.toContain('Rex')
    await agent.generate('Remind me what I do at night, I work as what?', {
      memory: { thread: 'ana/two', resource: 'ana' },
    })
    const system = systemText(prompts[3]!)
    expect(system).toContain(
      'assistant: Rex sounds lovely.\nuser: I work as a nurse at night.\nassistant: Nursing is demanding.',
    )
  })

  it('scope thread: other threads are not searched; what the context shows is not repeated', async () => {
    const { agent, prompts } = await seeded({
      options: { semanticRecall: { topK: 3, messageRange: 1, scope: 'thread' } },
    })
    await agent.generate('What is my dog called?', { memory: { thread: 'ana/two', resource: 'ana' } })
    expect(systemText(prompts[3]!)).not.toContain('MEMORY:RECALLED')
  })

  it('a vector store’s options are refused, naming Strata’s index; nothing is stored', async () => {
    const memory = createMemory()
    const { agent, prompts } = strataAgent(memory, steps)
    const error = await agent
      .generate('Hi', {
        memory: {
          thread: 'ana/one',
          resource: 'ana',
          options: { semanticRecall: { topK: 2, messageRange: 1, threshold: 0.7 } },
        },
      })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      )
    expect(strataErrorOf(error)?.code).toBe('STRATA_INVALID_OPTIONS')
    expect(strataErrorOf(error)?.message).toMatch(/semanticRecall\.threshold.*own index/)
    expect(prompts).toHaveLength(0)
    expect(await memory.listThreads()).toEqual([])
  })
})

describe('semanticRecall, scope thread', () => {
  it('recalls what left the thread’s context (archived by a rewind), marked as earlier in this conversation; what is shown is not repeated', async () => {
    const memory = createMemory()
    const { agent, strata, prompts } = strataAgent(
      memory,
      [
        { text: 'Rex sounds lovely.' },
        { text: 'Nursing is demanding.' },
        { text: 'Your dog is Rex.' },
        { text: 'Rex.' },
      ],
      { options: { semanticRecall: { topK: 3, messageRange: 0, scope: 'thread' } } },
    )
    const chat = { thread: 'ana/one', resource: 'ana' }
    await agent.generate('My dog is called Rex.', { memory: chat })
    await agent.generate('I work as a nurse.', { memory: chat })
    await agent.generate('What is my dog called?', { memory: chat })
    // Rex is in the active log, shown already: not recalled.
    expect(systemText(prompts[2]!)).not.toContain('MEMORY:RECALLED')
    const thread = await strata.thread(chat.thread)
    await thread.rewind({ afterSeq: 0 })
    await agent.generate('Tell me my dog’s name again.', { memory: chat })
    expect(systemText(prompts[3]!)).toContain('— earlier in this conversation —')
    expect(systemText(prompts[3]!)).toContain('user: My dog is called Rex.')
    expect(systemText(prompts[3]!)).not.toContain('nurse')
  })
})

describe('semanticRecall, what left the context', () => {
  it('recalls a message of a scope closed since (still in the active log, no longer in the view); the view is not repeated', async () => {
    const memory = createMemory()
    const { agent, strata, prompts } = strataAgent(
      memory,
      [{ text: 'Rex sounds lovely.' }, { text: 'In May.' }],
      { options: { semanticRecall: { topK: 3, messageRange: 0, scope: 'thread' } } },
    )
    const chat = { thread: 'ana/one', resource: 'ana' }
    await agent.generate('My dog is called Rex.', { memory: chat })
    // A task the app ran in the thread: its messages stay in the active log, out of the global view.
    const thread = await strata.thread(chat.thread)
    await thread.enter('task', { title: 'Vet visit' })
    await thread.append([
      { role: 'user', content: 'The vet says the booster shot is due in May.' },
      { role: 'assistant', content: 'Noted.' },
    ])
    await thread.exit({ summary: 'Vet visit noted.' })
    expect((await thread.items()).some((item) => item.type === 'message' && item.level === 'task')).toBe(true)
    await agent.generate('When is the booster shot due?', { memory: chat })
    const system = systemText(prompts[1]!)
    expect(system).toContain('user: The vet says the booster shot is due in May.')
    expect(system).not.toContain('user: My dog is called Rex.')
  })
})

describe('semanticRecall of a scope the model opened', () => {
  it('shows the scope’s opening once, not again where the thread restated it after the tool result', async () => {
    const memory = createMemory()
    const { agent, strata, prompts } = strataAgent(
      memory,
      [
        {
          toolCalls: [
            { id: 's1', name: 'enter_scope', input: { level: 'task', title: 'Measure the kitchen' } },
          ],
        },
        { toolCalls: [{ id: 'w1', name: 'weather', input: { city: 'Lisbon' } }] },
        { toolCalls: [{ id: 's2', name: 'exit_scope', input: { summary: 'Measured.' } }] },
        { text: 'Done.' },
        { text: 'It was measured.' },
      ],
      { tools: { scopes: true }, options: { semanticRecall: { topK: 3, messageRange: 2, scope: 'thread' } } },
    )
    const chat = { thread: 'hal/reno', resource: 'hal' }
    await agent.generate('Measure the kitchen as a task.', { memory: chat })
    const openings = (await (await strata.thread(chat.thread)).items()).filter(
      (item) => item.type === 'message' && item.scope !== undefined,
    )
    // The thread holds the opening twice: once where the scope opened, once after the tool result.
    expect(
      openings.map((item) => item.type === 'message' && item.scope?.continuedFrom !== undefined),
    ).toEqual([false, true])
    await agent.generate('Did you measure the kitchen?', { memory: chat })
    const system = systemText(prompts.at(-1)!)
    expect(system).toContain('[MEMORY:RECALLED]')
    expect(system.split('Task: Measure the kitchen').length - 1).toBe(1)
  })
})

describe('semanticRecall on a long thread', () => {
  it('recalls another thread’s match when more than a query’s hits match in the prompt already', async () => {
    const memory = createMemory()
    const { agent, strata, prompts } = strataAgent(
      memory,
      ['Lovely.', 'Hello.', 'Seagull.'].map((text) => ({ text })),
      { options: { semanticRecall: { topK: 2, messageRange: 0, scope: 'resource' } } },
    )
    await agent.generate('My boat is named Seagull.', { memory: { thread: 'gus/old', resource: 'gus' } })
    const chat = { thread: 'gus/new', resource: 'gus' }
    await agent.generate('Hello.', { memory: chat })
    // 120 messages in view, each a closer match than the other thread's: a query gives at most 100 hits.
    const thread = await strata.thread(chat.thread)
    await thread.append(
      Array.from({ length: 120 }, (_, index) => ({
        role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
        content: `boat boat named boat ${index}`,
      })),
    )
    await agent.generate('What is my boat named?', { memory: chat })
    const system = systemText(prompts[2]!)
    expect(system).toContain('user: My boat is named Seagull.')
    expect(system).not.toContain('boat boat named boat')
  })
})

describe('semanticRecall beside lastMessages', () => {
  it('recalls a message the lastMessages cap cut from the prompt; the messages the prompt shows are not repeated', async () => {
    const memory = createMemory()
    const { agent, prompts } = strataAgent(
      memory,
      ['Noted.', 'Nice.', 'Tasty.', 'Teal.'].map((text) => ({ text })),
      { options: { lastMessages: 2, semanticRecall: { topK: 2, messageRange: 0, scope: 'thread' } } },
    )
    const chat = { thread: 'ana/one', resource: 'ana' }
    for (const text of [
      'My favourite colour is teal.',
      'I like hiking with my colour scheme.',
      'I had pasta.',
    ])
      await agent.generate(text, { memory: chat })
    await agent.generate('What is my favourite colour?', { memory: chat })
    const lines = promptLines(prompts[3]!)
    // The cap shows the two messages before the request; the colour was said before them.
    expect(lines.filter((line) => line.startsWith('user: ') || line.startsWith('assistant: '))).toEqual([
      'user: I had pasta.',
      'assistant: Tasty.',
      'user: What is my favourite colour?',
    ])
    const system = systemText(prompts[3]!)
    expect(system).toContain('user: My favourite colour is teal.')
    expect(system).not.toContain('I had pasta.')
  })

  it('counts the transitions and summaries the prompt shows among the lastMessages: a message they push out is recalled', async () => {
    const memory = createMemory()
    const { agent, strata, prompts } = strataAgent(
      memory,
      ['Noted.', 'Tasty.', 'Yes.'].map((text) => ({ text })),
      { options: { lastMessages: 2, semanticRecall: { topK: 2, messageRange: 0, scope: 'thread' } } },
    )
    const chat = { thread: 'ana/one', resource: 'ana' }
    for (const text of ['My favourite colour is teal.', 'I had pasta for lunch.'])
      await agent.generate(text, { memory: chat })
    // A task the app ran after them: its transition and summary are messages of the prompt, after the pasta.
    const thread = await strata.thread(chat.thread)
    await thread.enter('task', { title: 'Tidy the notes' })
    await thread.append({ role: 'assistant', content: 'Tidied.' })
    await thread.exit({ outcome: 'complete' })
    await agent.generate('Did I have pasta for lunch?', { memory: chat })
    const conversation = promptLines(prompts[2]!).filter((line) => !line.startsWith('system: '))
    expect(conversation).toHaveLength(3)
    // The transition and the scope's summary are the two messages before the request.
    expect(conversation[0]).toMatch(/^user: \[ACTIONS\]/)
    expect(conversation[1]).toMatch(/^user: \[SUMMARY\]/)
    expect(conversation.some((line) => line.includes('pasta for lunch.') || line.includes('Tasty.'))).toBe(
      false,
    )
    expect(systemText(prompts[2]!)).toContain('user: I had pasta for lunch.')
  })
})

describe('semanticRecall beside working memory', () => {
  it('the agent’s updateWorkingMemory steps are not recalled as neighbours', async () => {
    const memory = createMemory()
    const { agent, prompts } = strataAgent(
      memory,
      [
        { toolCalls: [{ id: 'w1', name: 'updateWorkingMemory', input: { memory: 'Dog: Rex' } }] },
        { text: 'Rex sounds lovely.' },
        { text: 'He likes the beach.' },
      ],
      { options: { workingMemory: { enabled: true }, semanticRecall: { topK: 1, messageRange: 2 } } },
    )
    await agent.generate('My dog Rex loves the beach.', { memory: { thread: 'ana/one', resource: 'ana' } })
    await agent.generate('Where does my dog like to go?', { memory: { thread: 'ana/two', resource: 'ana' } })
    const system = systemText(prompts[2]!)
    expect(system).toContain('user: My dog Rex loves the beach.\nassistant: Rex sounds lovely.')
    expect(system).not.toContain('[called updateWorkingMemory]')
  })
})
