import { AIMessage, HumanMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { MemorySaver } from '@langchain/langgraph'
import { createMemory } from '@strata-memory/core'
import { createAgent, providerStrategy, toolStrategy } from 'langchain'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { storedMessages } from '../testing/agent'
import { strataMiddleware } from './strata-middleware'

const Forecast = z.object({ city: z.string(), sky: z.string() }).describe('Forecast')

describe('responseFormat with strataMiddleware', () => {
  it('a model without usage_metadata reports no usage (absent is not zero)', async () => {
    const memory = createMemory()
    const model = fakeModel().respond(new AIMessage('Hi.'))
    const agent = createAgent({
      model,
      checkpointer: new MemorySaver(),
      middleware: [strataMiddleware({ memory })],
    })
    await agent.invoke({ messages: [new HumanMessage('Hello')] }, { configurable: { thread_id: 'no-usage' } })
    const status = await (await memory.thread('no-usage')).status()
    expect(JSON.stringify(status)).not.toMatch(/"inputTokens":0/)
    expect(await storedMessages(await memory.thread('no-usage'))).toEqual(['user:Hello', 'assistant:Hi.'])
  })

  it('tool strategy: the structured answer is stored once, with its result, over two invokes', async () => {
    const memory = createMemory()
    const strategy = toolStrategy(Forecast)
    const name = strategy[0]!.name
    const model = fakeModel()
      .respond(
        new AIMessage({
          content: '',
          tool_calls: [{ type: 'tool_call', id: 's1', name, args: { city: 'Oslo', sky: 'clear' } }],
        }),
      )
      .respond(
        new AIMessage({
          content: '',
          tool_calls: [{ type: 'tool_call', id: 's2', name, args: { city: 'Rome', sky: 'sunny' } }],
        }),
      )
    const agent = createAgent({
      model,
      responseFormat: strategy,
      checkpointer: new MemorySaver(),
      middleware: [strataMiddleware({ memory })],
    })
    const config = { configurable: { thread_id: 'rf-tool' } }
    const first = await agent.invoke({ messages: [new HumanMessage('Oslo?')] }, config)
    expect(first.structuredResponse).toEqual({ city: 'Oslo', sky: 'clear' })
    await agent.invoke({ messages: [new HumanMessage('Rome?')] }, config)
    const stored = await storedMessages(await memory.thread('rf-tool'))
    expect(stored).toEqual([
      'user:Oslo?',
      `assistant: →${name}#s1`,
      'tool:#s1',
      'assistant:Returning structured response: {"city":"Oslo","sky":"clear"}',
      'user:Rome?',
      `assistant: →${name}#s2`,
      'tool:#s2',
      'assistant:Returning structured response: {"city":"Rome","sky":"sunny"}',
    ])
  })

  it('provider strategy: the JSON answer is stored once per invoke', async () => {
    const memory = createMemory()
    const model = fakeModel()
      .respond(new AIMessage(JSON.stringify({ city: 'Oslo', sky: 'clear' })))
      .respond(new AIMessage(JSON.stringify({ city: 'Rome', sky: 'sunny' })))
    const agent = createAgent({
      model,
      responseFormat: providerStrategy(Forecast),
      checkpointer: new MemorySaver(),
      middleware: [strataMiddleware({ memory })],
    })
    const config = { configurable: { thread_id: 'rf-provider' } }
    const first = await agent.invoke({ messages: [new HumanMessage('Oslo?')] }, config)
    expect(first.structuredResponse).toEqual({ city: 'Oslo', sky: 'clear' })
    await agent.invoke({ messages: [new HumanMessage('Rome?')] }, config)
    expect(await storedMessages(await memory.thread('rf-provider'))).toEqual([
      'user:Oslo?',
      'assistant:{"city":"Oslo","sky":"clear"}',
      'user:Rome?',
      'assistant:{"city":"Rome","sky":"sunny"}',
    ])
  })
})
