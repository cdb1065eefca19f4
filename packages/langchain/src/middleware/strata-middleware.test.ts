import { AIMessage, HumanMessage, SystemMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { MemorySaver } from '@langchain/langgraph'
import { createMemory, StrataError } from '@strata-memory/core'
import { createAgent, MiddlewareError, modelRetryMiddleware } from 'langchain'
import { describe, expect, it } from 'vitest'
import { brief, scriptedModel, storedMessages, weather } from '../testing/agent'
import { strataMiddleware } from './strata-middleware'

describe('strataMiddleware in a createAgent tool loop', () => {
  it('stores every call and result once, in order, paired; the model receives the context; the state keeps its history', async () => {
    const memory = createMemory()
    const model = scriptedModel([
      { calls: [{ name: 'weather', args: { city: 'Paris' }, id: 'c1' }] },
      { calls: [{ name: 'weather', args: { city: 'Oslo' }, id: 'c2' }] },
      'Paris is sunny, and so is Oslo.',
    ])
    const agent = createAgent({
      model,
      tools: [weather],
      systemPrompt: 'You are brief.',
      middleware: [strataMiddleware({ memory, system: 'Strata system.' })],
    })
    const input = new HumanMessage('Weather in Paris and Oslo?')
    const result = await agent.invoke({ messages: [input] }, { configurable: { thread_id: 'loop-1' } })

    const thread = await memory.thread('loop-1')
    expect(await storedMessages(thread)).toEqual([
      'user:Weather in Paris and Oslo?',
      'assistant: →weather#c1',
      'tool:#c1',
      'assistant: →weather#c2',
      'tool:#c2',
      'assistant:Paris is sunny, and so is Oslo.',
    ])
    // The state's messages are LangChain's own: the whole history, none of Strata's kwargs.
    expect(result.messages.map(brief)).toEqual([
      'human:Weather in Paris and Oslo?',
      'ai: →weather#c1',
      'tool:{"city":"Paris","forecast":"Sunny in Paris"}#c1',
      'ai: →weather#c2',
      'tool:{"city":"Oslo","forecast":"Sunny in Oslo"}#c2',
      'ai:Paris is sunny, and so is Oslo.',
    ])
    expect(result.messages[0]).toBe(input)
    for (const message of result.messages)
      expect(message.additional_kwargs).not.toHaveProperty('memory_level')

    // Each call received the thread's context: the agent's system prompt with the thread's, then the
    // thread's messages tagged with their level.
    expect(model.calls).toHaveLength(3)
    const last = model.calls[2]!.messages
    expect(last.map(brief)).toEqual([
      'system:You are brief.\n\nStrata system.',
      'human:Weather in Paris and Oslo?',
      'ai: →weather#c1',
      'tool:{"city":"Paris","forecast":"Sunny in Paris"}#c1',
      'ai: →weather#c2',
      'tool:{"city":"Oslo","forecast":"Sunny in Oslo"}#c2',
    ])
    expect(last.slice(1).map((message) => message.additional_kwargs.memory_level)).toEqual(
      Array(5).fill('global'),
    )
    expect(model.calls[0]!.messages.map(brief)).toEqual([
      'system:You are brief.\n\nStrata system.',
      'human:Weather in Paris and Oslo?',
    ])
  })

  it('with MemorySaver, a second invoke re-sends the state and nothing is stored twice', async () => {
    const memory = createMemory()
    const model = scriptedModel([
      { calls: [{ name: 'weather', args: { city: 'Rome' }, id: 'r1' }] },
      'Rome is sunny.',
      'You are welcome.',
    ])
    const agent = createAgent({
      model,
      tools: [weather],
      checkpointer: new MemorySaver(),
      middleware: [strataMiddleware({ memory })],
    })
    const config = { configurable: { thread_id: 'saver-1' } }
    await agent.invoke({ messages: [new HumanMessage('Weather in Rome?')] }, config)
    const second = await agent.invoke({ messages: [new HumanMessage('Thanks!')] }, config)

    expect(second.messages).toHaveLength(6)
    expect(await storedMessages(await memory.thread('saver-1'))).toEqual([
      'user:Weather in Rome?',
      'assistant: →weather#r1',
      'tool:#r1',
      'assistant:Rome is sunny.',
      'user:Thanks!',
      'assistant:You are welcome.',
    ])
    expect(model.calls[2]!.messages.map(brief)).toEqual([
      'human:Weather in Rome?',
      'ai: →weather#r1',
      'tool:{"city":"Rome","forecast":"Sunny in Rome"}#r1',
      'ai:Rome is sunny.',
      'human:Thanks!',
    ])
  })

  it('stores parallel tool results as one tool message with both results, and recognises them when re-sent', async () => {
    const memory = createMemory()
    const model = scriptedModel([
      {
        calls: [
          { name: 'weather', args: { city: 'Paris' }, id: 'p1' },
          { name: 'weather', args: { city: 'Oslo' }, id: 'p2' },
        ],
      },
      'Both sunny.',
      'Bye.',
    ])
    const agent = createAgent({
      model,
      tools: [weather],
      checkpointer: new MemorySaver(),
      middleware: [strataMiddleware({ memory })],
    })
    const config = { configurable: { thread_id: 'parallel-1' } }
    await agent.invoke({ messages: [new HumanMessage('Paris and Oslo?')] }, config)
    await agent.invoke({ messages: [new HumanMessage('Thanks.')] }, config)
    expect(await storedMessages(await memory.thread('parallel-1'))).toEqual([
      'user:Paris and Oslo?',
      'assistant: →weather#p1 →weather#p2',
      'tool:#p1#p2',
      'assistant:Both sunny.',
      'user:Thanks.',
      'assistant:Bye.',
    ])
    // The model gets one ToolMessage per result, each with its own status and name.
    const sent = model.calls[2]!.messages
    expect(sent.map(brief)).toEqual([
      'human:Paris and Oslo?',
      'ai: →weather#p1 →weather#p2',
      'tool:{"city":"Paris","forecast":"Sunny in Paris"}#p1',
      'tool:{"city":"Oslo","forecast":"Sunny in Oslo"}#p2',
      'ai:Both sunny.',
      'human:Thanks.',
    ])
    expect(
      sent.filter((m) => m.type === 'tool').map((m) => [m.name, (m as { status?: string }).status]),
    ).toEqual([
      ['weather', 'success'],
      ['weather', 'success'],
    ])
  })

  it('without a checkpointer, invokes that send only the new message continue the thread', async () => {
    const memory = createMemory()
    const model = scriptedModel(['Hello Ann.', 'Your name is Ann.'])
    const agent = createAgent({
      model,
      tools: [],
      middleware: [strataMiddleware({ memory, threadId: 'new-only' })],
    })
    await agent.invoke({ messages: [new HumanMessage('I am Ann.')] })
    await agent.invoke({ messages: [new HumanMessage('What is my name?')] })
    expect(model.calls[1]!.messages.map(brief)).toEqual([
      'human:I am Ann.',
      'ai:Hello Ann.',
      'human:What is my name?',
    ])
    expect(await storedMessages(await memory.thread('new-only'))).toHaveLength(4)
  })
})

describe('strataMiddleware and retries', () => {
  it("stores a retried call's messages and answer once, also with history: 'new'", async () => {
    for (const history of ['new', 'auto'] as const) {
      const memory = createMemory()
      const model = fakeModel().respond(new Error('overloaded')).respond(new AIMessage('Hello.'))
      const agent = createAgent({
        model,
        tools: [],
        middleware: [
          modelRetryMiddleware({ maxRetries: 1, initialDelayMs: 0, jitter: false }),
          strataMiddleware({ memory, threadId: `retry-${history}`, history }),
        ],
      })
      await agent.invoke({ messages: [new HumanMessage('Hi')] })
      expect(model.callCount, history).toBe(2)
      expect(await storedMessages(await memory.thread(`retry-${history}`)), history).toEqual([
        'user:Hi',
        'assistant:Hello.',
      ])
    }
  })
})

describe('strataMiddleware and the request it is given', () => {
  it('never changes request.messages (the graph state): the handler gets a copy', async () => {
    const memory = createMemory()
    const middleware = strataMiddleware({ memory, threadId: 'frozen-1' })
    const first = new HumanMessage({ content: 'Hi', id: 'h1' })
    const messages = Object.freeze([first]) as unknown as HumanMessage[]
    const systemMessage = new SystemMessage('Be kind.')
    const request = {
      messages,
      systemMessage,
      systemPrompt: 'Be kind.',
      tools: [],
      state: { messages },
      runtime: {},
    }
    let received: unknown
    const wrap = middleware.wrapModelCall as unknown as (
      request: unknown,
      handler: (request: { messages: unknown; systemMessage: SystemMessage }) => Promise<AIMessage>,
    ) => Promise<AIMessage>
    await wrap(request, async (copy) => {
      received = copy
      return new AIMessage('Hello.')
    })
    expect(received).not.toBe(request)
    expect((received as { messages: unknown }).messages).not.toBe(messages)
    expect(request.messages).toBe(messages)
    expect(messages).toEqual([first])
    expect(first.additional_kwargs).toEqual({})
    expect(request.systemMessage).toBe(systemMessage)
    expect(systemMessage.text).toBe('Be kind.')
  })
})

describe('strataMiddleware options and errors', () => {
  it('refuses malformed options when it is created, with a StrataError', () => {
    const memory = createMemory()
    const attempts = [
      () => strataMiddleware({} as never),
      () => strataMiddleware({ memory, threadId: '' }),
      () => strataMiddleware({ memory, history: 'sometimes' as never }),
      () => strataMiddleware({ memory, onDivergence: 'ignore' as never }),
      () => strataMiddleware({ memory, level: 'galaxy' as never }),
      () => strataMiddleware({ memory, system: 42 as never }),
    ]
    for (const attempt of attempts) {
      let error: unknown
      try {
        attempt()
      } catch (caught) {
        error = caught
      }
      expect(StrataError.isInstance(error)).toBe(true)
      expect((error as StrataError).code).toMatch(/^STRATA_INVALID_(OPTIONS|THREAD_ID|LEVEL)$/)
    }
  })

  it('without a thread id the first call fails with STRATA_INVALID_OPTIONS as the MiddlewareError cause, storing nothing', async () => {
    const memory = createMemory()
    const model = scriptedModel(['never'])
    const agent = createAgent({ model, tools: [], middleware: [strataMiddleware({ memory })] })
    const error = await agent
      .invoke({ messages: [new HumanMessage('Hi')] })
      .catch((caught: unknown) => caught)
    expect(MiddlewareError.isInstance(error)).toBe(true)
    expect(StrataError.isInstance((error as Error).cause, 'STRATA_INVALID_OPTIONS')).toBe(true)
    expect(model.calls).toHaveLength(0)
  })
})
