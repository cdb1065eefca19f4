import { type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { MemorySaver } from '@langchain/langgraph'
import { createMemory, StrataError } from '@strata-memory/core'
import { createAgent } from 'langchain'
import { describe, expect, it } from 'vitest'
import { strataMiddleware } from '../middleware/strata-middleware'
import { scriptedModel } from '../testing/agent'
import { strataTools } from './strata-tools'

const TEMPLATE = '- Name:\n- Diet:'

const sentText = (messages: readonly BaseMessage[]) => messages.map((message) => message.text).join('\n')

const toolResult = (messages: readonly BaseMessage[], name: string) =>
  JSON.parse(
    messages.find((message) => ToolMessage.isInstance(message) && message.name === name)!.text,
  ) as Record<string, unknown>

describe('strataTools and strataMiddleware with a resource', () => {
  it('adds memory_update_working with a resource or workingMemory: true; its description carries the template', () => {
    const memory = createMemory({ resources: { workingMemory: { template: TEMPLATE } } })
    expect(strataTools(memory).map((t) => t.name)).not.toContain('memory_update_working')
    const tools = strataTools(memory, { resource: 'ana' })
    expect(tools.map((t) => t.name)).toEqual([
      'memory_store',
      'memory_retrieve',
      'memory_query',
      'memory_update_working',
    ])
    expect(tools.at(-1)!.description).toContain(TEMPLATE)
    expect(strataTools(memory, { workingMemory: true }).map((t) => t.name)).toContain('memory_update_working')
    expect(strataTools(memory, { resource: 'ana', workingMemory: false }).map((t) => t.name)).not.toContain(
      'memory_update_working',
    )
    for (const options of [{ resource: '../x' }, { resource: 42 }, { workingMemory: 'yes' }]) {
      let thrown: unknown
      try {
        strataTools(memory, options as never)
      } catch (error) {
        thrown = error
      }
      expect(StrataError.isInstance(thrown), JSON.stringify(options)).toBe(true)
    }
  })

  it("writes the working memory from the model's tool call, the resource per invoke from configurable.resource_id; the next call shows it", async () => {
    const memory = createMemory({ resources: { workingMemory: { template: TEMPLATE } } })
    const model = scriptedModel([
      {
        calls: [
          {
            name: 'memory_update_working',
            args: { content: '- Name: Ana\n- Diet: vegetarian', version: 0 },
            id: 'w1',
          },
        ],
      },
      'Noted: you are vegetarian.',
      'A lentil soup.',
    ])
    const agent = createAgent({
      model,
      tools: strataTools(memory, { workingMemory: true }),
      middleware: [strataMiddleware({ memory })],
      checkpointer: new MemorySaver(),
    })
    const config = { configurable: { thread_id: 'ana.chat-1', resource_id: 'ana' } }
    const first = await agent.invoke({ messages: [new HumanMessage('I am Ana and I eat no meat.')] }, config)
    expect(toolResult(first.messages, 'memory_update_working')).toEqual({ version: 1 })
    expect(sentText(model.calls[0]!.messages)).toContain('[MEMORY:WORKING version=0]')
    const afterWrite = sentText(model.calls[1]!.messages)
    expect(afterWrite).toContain('[MEMORY:WORKING version=1]')
    expect(afterWrite).toContain('Diet: vegetarian')
    expect(await memory.resource('ana').getWorkingMemory()).toMatchObject({ version: 1 })
    // The invoke bound the thread: the resource lists it, and another thread of Ana's sees the memory.
    expect((await memory.resource('ana').listThreads()).threads.map((entry) => entry.threadId)).toEqual([
      'ana.chat-1',
    ])
    await agent.invoke(
      { messages: [new HumanMessage('Dinner idea?')] },
      { configurable: { thread_id: 'ana.chat-2', resource_id: 'ana' } },
    )
    expect(sentText(model.calls[2]!.messages)).toContain('Diet: vegetarian')
    await memory.close()
  })

  it('refuses a stale version with the current version and content, and writes nothing', async () => {
    const memory = createMemory()
    const ana = memory.resource('ana')
    await ana.setWorkingMemory('- Name: Ana', { version: 0 })
    await ana.setWorkingMemory('- Name: Ana\n- City: Porto', { version: 1 })
    const model = scriptedModel([
      {
        calls: [{ name: 'memory_update_working', args: { content: '- Name: Ana B.', version: 1 }, id: 'w1' }],
      },
      'I will merge and retry.',
    ])
    const agent = createAgent({
      model,
      tools: strataTools(memory, { resource: 'ana' }),
      middleware: [strataMiddleware({ memory, resource: 'ana' })],
      checkpointer: new MemorySaver(),
    })
    const result = await agent.invoke(
      { messages: [new HumanMessage('Call me Ana B.')] },
      { configurable: { thread_id: 'ana.chat-1' } },
    )
    expect(toolResult(result.messages, 'memory_update_working')).toMatchObject({
      error: { code: 'STRATA_SEQ_CONFLICT' },
      current: { version: 2, content: '- Name: Ana\n- City: Porto' },
    })
    expect(sentText(model.calls[1]!.messages)).toContain('STRATA_SEQ_CONFLICT')
    expect(await ana.getWorkingMemory()).toMatchObject({ value: '- Name: Ana\n- City: Porto', version: 2 })
    await memory.close()
  })

  it('refuses another resource on a bound thread as core does, before anything is stored', async () => {
    const memory = createMemory()
    const model = scriptedModel(['Hello Ana.', 'Never sent.'])
    const agent = createAgent({ model, middleware: [strataMiddleware({ memory })] })
    await agent.invoke(
      { messages: [new HumanMessage('Hi')] },
      { configurable: { thread_id: 'ana.chat-1', resource_id: 'ana' } },
    )
    let thrown: unknown
    try {
      await agent.invoke(
        { messages: [new HumanMessage('Still me')] },
        { configurable: { thread_id: 'ana.chat-1', resource_id: 'bob' } },
      )
    } catch (error) {
      thrown = error
    }
    const cause = (thrown as { cause?: unknown })?.cause ?? thrown
    expect(StrataError.isInstance(cause, 'STRATA_INVALID_OPTIONS')).toBe(true)
    expect(model.calls).toHaveLength(1)
    expect((await (await memory.thread('ana.chat-1')).items()).length).toBe(2)
    expect((await memory.resource('bob').listThreads()).threads).toEqual([])
    await memory.close()
  })

  it('checks the middleware’s resource, and a run’s configurable.resource_id, as typed errors', async () => {
    const memory = createMemory()
    let thrown: unknown
    try {
      strataMiddleware({ memory, resource: '../x' })
    } catch (error) {
      thrown = error
    }
    expect(StrataError.isInstance(thrown, 'STRATA_INVALID_THREAD_ID')).toBe(true)
    const [store] = strataTools(memory)
    thrown = undefined
    try {
      await store!.invoke({ content: 'x' }, { configurable: { thread_id: 'ana.chat-1', resource_id: 42 } })
    } catch (error) {
      thrown = error
    }
    expect(StrataError.isInstance(thrown, 'STRATA_INVALID_OPTIONS')).toBe(true)
    expect(await memory.listThreads()).toEqual([])
  })
})
