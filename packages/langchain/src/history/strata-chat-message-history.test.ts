import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { ChatPromptTemplate, MessagesPlaceholder } from '@langchain/core/prompts'
import { RunnableWithMessageHistory } from '@langchain/core/runnables'
import { fakeModel } from '@langchain/core/testing'
import { createMemory, StrataError } from '@strata-memory/core'
import { describe, expect, it } from 'vitest'
import { brief, storedMessages } from '../testing/agent'
import { StrataChatMessageHistory } from './strata-chat-message-history'

describe('StrataChatMessageHistory', () => {
  it('backs RunnableWithMessageHistory: each turn is stored in the thread and the chain reads its context', async () => {
    const memory = createMemory()
    const model = fakeModel().respond(new AIMessage('Hello Ann.')).respond(new AIMessage('You are Ann.'))
    const prompt = ChatPromptTemplate.fromMessages([
      ['system', 'You are brief.'],
      new MessagesPlaceholder('history'),
      ['human', '{input}'],
    ])
    const chain = new RunnableWithMessageHistory({
      runnable: prompt.pipe(model),
      getMessageHistory: (sessionId: string) => new StrataChatMessageHistory({ memory, threadId: sessionId }),
      inputMessagesKey: 'input',
      historyMessagesKey: 'history',
    })
    const config = { configurable: { sessionId: 'chat-1' } }
    await chain.invoke({ input: 'I am Ann.' }, config)
    await chain.invoke({ input: 'Who am I?' }, config)

    expect(await storedMessages(await memory.thread('chat-1'))).toEqual([
      'user:I am Ann.',
      'assistant:Hello Ann.',
      'user:Who am I?',
      'assistant:You are Ann.',
    ])
    expect(model.calls[1]!.messages.map(brief)).toEqual([
      'system:You are brief.',
      'human:I am Ann.',
      'ai:Hello Ann.',
      'human:Who am I?',
    ])
  })

  it('reads the context of a level or every stored message with its level and id, and clears the thread', async () => {
    const memory = createMemory()
    const history = new StrataChatMessageHistory({ memory, threadId: 'chat-2' })
    const thread = await memory.thread('chat-2')
    await history.addMessages([new HumanMessage({ content: 'Plan the garden.', id: 'h1' })])
    await thread.enter('task', { title: 'Dig' })
    await history.addMessages([
      new AIMessage({
        content: '',
        tool_calls: [{ type: 'tool_call', id: 'd1', name: 'dig', args: { depth: 2 } }],
      }),
      new ToolMessage({ content: 'dug', tool_call_id: 'd1', name: 'dig', status: 'success' }),
    ])
    await thread.exit({ outcome: 'complete', summary: 'Dug 2 m.' })

    const context = await history.getMessages()
    expect(context.map(brief)).toEqual([
      'human:Plan the garden.',
      expect.stringMatching(/^human:\[ACTIONS\]: /),
      'human:[SUMMARY]: Dug 2 m.',
    ])
    expect(context[0]!.id).toBe('h1')

    const all = await new StrataChatMessageHistory({
      memory,
      threadId: 'chat-2',
      read: 'messages',
    }).getMessages()
    expect(all.map(brief)).toEqual([
      'human:Plan the garden.',
      'human:Task: Dig',
      'ai: →dig#d1',
      'tool:dug#d1',
    ])
    expect(all.map((m) => m.additional_kwargs.memory_level)).toEqual(['global', 'task', 'task', 'task'])
    expect(all.every((m) => typeof m.additional_kwargs.memory_id === 'string')).toBe(true)
    expect((all[3] as ToolMessage).status).toBe('success')

    await history.clear()
    expect(await history.getMessages()).toEqual([])
  })

  it('puts the system prompt and memory slots in one leading system message, or leaves them out', async () => {
    const memory = createMemory()
    const thread = await memory.thread('chat-slots')
    await thread.append({ role: 'user', content: 'I am Ann.' })
    await thread.append({ role: 'assistant', content: 'Hello Ann.' })
    const merged = await new StrataChatMessageHistory({
      memory,
      threadId: 'chat-slots',
      system: 'You are brief.',
    }).getMessages()
    const context = await thread.context({ system: 'You are brief.' })
    const systemTexts = context.messages.filter((message) => message.role === 'system')
    expect(systemTexts.length).toBeGreaterThan(0)
    expect(merged.map((message) => message.type)).toEqual(['system', 'human', 'ai'])
    expect(merged[0]!.text).toContain('You are brief.')
    const omitted = await new StrataChatMessageHistory({
      memory,
      threadId: 'chat-slots',
      system: 'You are brief.',
      systemMessages: 'omit',
    }).getMessages()
    expect(omitted.map(brief)).toEqual(['human:I am Ann.', 'ai:Hello Ann.'])
  })

  it('refuses malformed options with a StrataError', () => {
    const memory = createMemory()
    for (const options of [
      {},
      { memory, threadId: '' },
      { memory, threadId: 'x', read: 'all' },
      { memory, threadId: 'x', level: 'moon' },
      { memory, threadId: 'x', systemMessages: 'first' },
    ]) {
      expect(() => new StrataChatMessageHistory(options as never)).toThrow(StrataError)
    }
  })
})
