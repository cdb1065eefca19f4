import { HumanMessage, ToolMessage } from '@langchain/core/messages'
import { MemorySaver } from '@langchain/langgraph'
import { createMemory } from '@strata-memory/core'
import { createAgent } from 'langchain'
import { describe, expect, it } from 'vitest'
import { scriptedModel } from '../testing/agent'
import { strataTools } from './strata-tools'

describe('strataTools’ memory_query with scope "resource"', () => {
  it('finds what another thread of the same user holds, and nothing of another user', async () => {
    const memory = createMemory()
    const earlier = await memory.thread('user-42.chat-1', { resource: 'user-42' })
    await earlier.append({ role: 'user', content: 'I am vegetarian and allergic to walnuts.' })
    const stranger = await memory.thread('user-7.chat-1', { resource: 'user-7' })
    await stranger.append({ role: 'user', content: 'I am allergic to walnuts too.' })
    await memory.thread('user-42.chat-2', { resource: 'user-42' })
    const model = scriptedModel([
      { calls: [{ name: 'memory_query', args: { text: 'allergic walnuts', scope: 'resource' }, id: 'q1' }] },
      'No walnuts in the salad, then.',
    ])
    const agent = createAgent({ model, tools: strataTools(memory), checkpointer: new MemorySaver() })

    const result = await agent.invoke(
      { messages: [new HumanMessage('Suggest a salad.')] },
      { configurable: { thread_id: 'user-42.chat-2' } },
    )
    const answer = result.messages.find((message) => ToolMessage.isInstance(message))!
    const { results } = JSON.parse(answer.text) as { results: { threadId: string; seq: number }[] }
    expect(results.map(({ threadId, seq }) => ({ threadId, seq }))).toEqual([
      { threadId: 'user-42.chat-1', seq: 1 },
    ])
    await memory.close()
  })
})
