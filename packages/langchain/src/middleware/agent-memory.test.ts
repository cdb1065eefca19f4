import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { MemorySaver } from '@langchain/langgraph'
import { createMemory, StrataError } from '@strata-memory/core'
import { createAgent, MiddlewareError } from 'langchain'
import { describe, expect, it } from 'vitest'
import { langchainSummarizer } from '../summarizer/langchain-summarizer'
import { brief, scriptedModel, storedMessages } from '../testing/agent'
import { strataTools } from '../tools/strata-tools'
import { strataMiddleware } from './strata-middleware'
import type { MemoryTransitionEvent } from './transitions'

const texts = (messages: readonly BaseMessage[]) => messages.map(brief)

describe('strataMiddleware and the thread’s levels', () => {
  it('a level change between invokes changes what the model receives exactly as the view rule says', async () => {
    const memory = createMemory()
    const thread = await memory.thread('levels-1')
    await thread.enter('project', { title: 'Garden' })
    await thread.enter('task', { title: 'Plant the trees', instructions: 'Three apple trees by the fence.' })
    const model = scriptedModel(['Planted three apple trees.', 'Next: water them.'])
    const agent = createAgent({
      model,
      tools: [],
      checkpointer: new MemorySaver(),
      middleware: [strataMiddleware({ memory })],
    })
    const config = { configurable: { thread_id: 'levels-1' } }

    await agent.invoke({ messages: [new HumanMessage('Plant them.')] }, config)
    // At the task level: the task's opening item, then its own messages.
    expect(texts(model.calls[0]!.messages)).toEqual([
      'human:Task: Plant the trees\n\nThree apple trees by the fence.',
      'human:Plant them.',
    ])
    expect(model.calls[0]!.messages[0]!.additional_kwargs).toEqual({
      memory_level: 'task',
      strata: { kind: 'scope' },
    })

    await thread.exit({ outcome: 'complete', summary: 'Three apple trees planted by the fence.' })
    const result = await agent.invoke({ messages: [new HumanMessage('What next?')] }, config)
    // At the project level: the project's opening, the task's transition and summary in place of its
    // messages, then the new request; the state still holds every message.
    const sent = model.calls[1]!.messages
    expect(texts(sent)).toEqual([
      'human:Project: Garden',
      expect.stringMatching(/^human:\[ACTIONS\]: /),
      'human:[SUMMARY]: Three apple trees planted by the fence.',
      'human:What next?',
    ])
    expect(sent.map((m) => m.additional_kwargs.memory_level)).toEqual([
      'project',
      'project',
      'project',
      'project',
    ])
    expect(sent.map((m) => (m.additional_kwargs.strata as { kind?: string } | undefined)?.kind)).toEqual([
      'scope',
      'transition',
      'summary',
      undefined,
    ])
    expect(texts(result.messages)).toEqual([
      'human:Plant them.',
      'ai:Planted three apple trees.',
      'human:What next?',
      'ai:Next: water them.',
    ])
  })

  it('the level option sends another level’s view', async () => {
    const memory = createMemory()
    const thread = await memory.thread('levels-2')
    await thread.append({ role: 'user', content: 'Plan the garden.' })
    await thread.enter('task', { title: 'Dig' })
    const model = scriptedModel(['Dug.'])
    const agent = createAgent({
      model,
      tools: [],
      middleware: [strataMiddleware({ memory, level: 'global', threadId: 'levels-2' })],
    })
    await agent.invoke({ messages: [new HumanMessage('Dig here.')] })
    // The global view stops at nothing broader and skips the task's items; the turn's request, written
    // inside the task, is in every level's context.
    expect(texts(model.calls[0]!.messages)).toEqual(['human:Plan the garden.', 'human:Dig here.'])
  })
})

describe('strataMiddleware, usage and the token budget', () => {
  it('usage_metadata reaches reportUsage, the compaction it triggers shows in the next request, and summarizer calls are never stored', async () => {
    const summaryModel = fakeModel().structuredResponse({
      decisions: ['Asked about turns 1 and 2'],
      identifiers: ['turn-1'],
      openWork: [],
      facts: [{ text: 'The user counts turns.', tags: ['turns'], confidence: 0.9 }],
    })
    const memory = createMemory({
      compaction: { budget: { inputTokens: 4_000 } },
      summarizer: langchainSummarizer({ model: summaryModel }),
    })
    const answers = Array.from(
      { length: 7 },
      (_, index) =>
        new AIMessage({
          content: `Answer ${index + 1}.`,
          usage_metadata: { input_tokens: index === 5 ? 3_900 : 100, output_tokens: 5, total_tokens: 0 },
        }),
    )
    const model = scriptedModel(answers)
    const agent = createAgent({
      model,
      tools: [],
      checkpointer: new MemorySaver(),
      middleware: [strataMiddleware({ memory })],
    })
    const config = { configurable: { thread_id: 'budget-1' } }
    for (let turn = 1; turn <= 7; turn++)
      await agent.invoke({ messages: [new HumanMessage(`Question ${turn}.`)] }, config)

    const thread = await memory.thread('budget-1')
    const status = await thread.status()
    expect(status.lastUsage).toMatchObject({ inputTokens: 100, outputTokens: 5 })
    expect(status.compaction.summaries.episodic.count).toBeGreaterThanOrEqual(1)
    // The seventh request: the episodic summary and the fact in the system message, the old turns gone.
    const [system, ...rest] = model.calls[6]!.messages
    expect(system!.text).toContain('[MEMORY:EPISODIC]\n1) ## Decisions\n- Asked about turns 1 and 2')
    expect(system!.text).toContain('[MEMORY:SEMANTIC]\n- The user counts turns.')
    expect(texts(rest)).not.toContain('human:Question 1.')
    expect(texts(rest).at(-1)).toBe('human:Question 7.')
    expect(texts(model.calls[5]!.messages)).toContain('human:Question 1.')
    // Nothing of the summarizer's calls was stored: the thread holds the conversation only.
    const stored = await storedMessages(thread)
    expect(stored.every((line) => /^(user:Question|assistant:Answer) \d\.$/.test(line))).toBe(true)
  })
})

describe('strataMiddleware and forks', () => {
  type Hook = (thread: Awaited<ReturnType<ReturnType<typeof createMemory>['thread']>>) => Promise<void>
  async function twoTurns(threadId: string, hooks: { before?: Hook; after?: Hook } = {}) {
    const memory = createMemory()
    const model = scriptedModel(['A1', 'A2', 'A2 again'])
    const agent = createAgent({
      model,
      tools: [],
      checkpointer: new MemorySaver(),
      middleware: [strataMiddleware({ memory })],
    })
    const config = { configurable: { thread_id: threadId } }
    await agent.invoke({ messages: [new HumanMessage('Q1')] }, config)
    const thread = await memory.thread(threadId)
    await hooks.before?.(thread)
    await agent.invoke({ messages: [new HumanMessage('Q2')] }, config)
    await hooks.after?.(thread)
    // The checkpoint where the first turn ended.
    let fork: Parameters<typeof agent.invoke>[1] | undefined
    for await (const snapshot of agent.graph.getStateHistory(config)) {
      const messages = (snapshot.values as { messages: BaseMessage[] }).messages
      if (messages.length === 2 && snapshot.next.length === 0) fork = snapshot.config as never
    }
    expect(fork).toBeDefined()
    return { memory, model, agent, thread, fork: fork! }
  }

  it('a fork from an earlier checkpoint rewinds the thread to it', async () => {
    const { model, agent, thread, fork } = await twoTurns('fork-1')
    const result = await agent.invoke({ messages: [new HumanMessage('Q2 edited')] }, fork)
    expect(texts(result.messages)).toEqual(['human:Q1', 'ai:A1', 'human:Q2 edited', 'ai:A2 again'])
    expect(texts(model.calls[2]!.messages)).toEqual(['human:Q1', 'ai:A1', 'human:Q2 edited'])
    expect(await storedMessages(thread)).toEqual([
      'user:Q1',
      'assistant:A1',
      'user:Q2 edited',
      'assistant:A2 again',
    ])
    expect((await thread.status()).items.archived).toBe(2)
  })

  it('an unsafe fork (a scope closed after its point) is refused with a typed error and stores nothing', async () => {
    const { model, agent, thread, fork } = await twoTurns('fork-2', {
      before: async (thread) => {
        await thread.enter('task', { title: 'Second question' })
      },
      after: async (thread) => {
        await thread.exit({ outcome: 'complete', summary: 'Answered Q2.' })
      },
    })
    const before = await thread.items()
    const error = await agent
      .invoke({ messages: [new HumanMessage('Q2 edited')] }, fork)
      .catch((caught: unknown) => caught)
    expect(MiddlewareError.isInstance(error)).toBe(true)
    const cause = (error as Error).cause
    expect(StrataError.isInstance(cause, 'STRATA_INVALID_MESSAGE')).toBe(true)
    expect((cause as StrataError).details).toMatchObject({ reason: 'scope-changed' })
    expect(await thread.items()).toEqual(before)
    expect(model.calls).toHaveLength(2)
  })
})

describe('strataMiddleware with agent.stream', () => {
  it('stores a streamed answer once and writes transitions as custom events', async () => {
    const memory = createMemory()
    const model = scriptedModel([
      { calls: [{ name: 'enter_scope', args: { level: 'task', title: 'Count to three' }, id: 's1' }] },
      { calls: [{ name: 'exit_scope', args: { summary: 'Counted: 1, 2, 3.' }, id: 's2' }] },
      'Done: 1, 2, 3.',
    ])
    const agent = createAgent({
      model,
      tools: strataTools(memory, { scopes: true }),
      checkpointer: new MemorySaver(),
      middleware: [strataMiddleware({ memory })],
    })
    const custom: MemoryTransitionEvent[] = []
    const tokens: string[] = []
    const stream = await agent.stream(
      { messages: [new HumanMessage('Count to three in a task.')] },
      { configurable: { thread_id: 'stream-1' }, streamMode: ['messages', 'custom'] },
    )
    for await (const [mode, chunk] of stream as AsyncIterable<[string, unknown]>) {
      if (mode === 'custom') custom.push(chunk as MemoryTransitionEvent)
      if (mode === 'messages') tokens.push((chunk as [BaseMessage])[0].text)
    }
    expect(custom).toEqual([
      expect.objectContaining({
        type: 'memory-transition',
        threadId: 'stream-1',
        fromLevel: 'task',
        level: 'global',
        reason: 'task-complete',
        title: 'Count to three',
        summary: 'Counted: 1, 2, 3.',
      }),
    ])
    expect(tokens.join('')).toContain('Done: 1, 2, 3.')
    const stored = await storedMessages(await memory.thread('stream-1'))
    expect(stored.filter((line) => line === 'assistant:Done: 1, 2, 3.')).toHaveLength(1)
    // After exit_scope the model saw the transition and summary in place of the task's steps.
    expect(texts(model.calls[2]!.messages)).toEqual([
      'human:Count to three in a task.',
      'ai: →enter_scope#s1',
      expect.stringMatching(/^tool:.*#s1$/),
      expect.stringMatching(/^human:\[ACTIONS\]: /),
      'human:[SUMMARY]: Counted: 1, 2, 3.',
    ])
  })
})
