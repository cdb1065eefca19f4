import { AIMessage, HumanMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { MemorySaver } from '@langchain/langgraph'
import { createMemory, type MessageItem } from '@strata-memory/core'
import { createAgent } from 'langchain'
import { describe, expect, it } from 'vitest'
import { strataMiddleware } from './strata-middleware'

/** One turn of a real agent over `answer`, by invoke or by stream; the thread's stored messages and last usage. */
async function turn(answer: AIMessage, how: 'invoke' | 'stream') {
  const memory = createMemory()
  const agent = createAgent({
    model: fakeModel().respond(answer),
    tools: [],
    checkpointer: new MemorySaver(),
    middleware: [strataMiddleware({ memory })],
  })
  const config = { configurable: { thread_id: 'usage-1' } }
  const input = { messages: [new HumanMessage('Hi')] }
  if (how === 'invoke') await agent.invoke(input, config)
  else
    for await (const _chunk of await agent.stream(input, { ...config, streamMode: 'messages' })) void _chunk
  const thread = await memory.thread('usage-1')
  const messages = (await thread.items()).filter(
    (item): item is MessageItem<'global' | 'project' | 'task'> => item.type === 'message',
  )
  const stored = messages.at(-1)!.content[0]!.meta?.langchain as { message?: Record<string, unknown> }
  return { messages, stored: stored.message!, lastUsage: (await thread.status()).lastUsage }
}

describe('strataMiddleware reads usage from the answer, after the model call', () => {
  for (const how of ['invoke', 'stream'] as const) {
    it(`${how}: a model whose answers carry no usage_metadata stores the answer once, without usage, and reports none`, async () => {
      const { messages, stored, lastUsage } = await turn(new AIMessage('Hello.'), how)
      expect(messages.map((item) => item.role)).toEqual(['user', 'assistant'])
      expect(stored).not.toHaveProperty('usage_metadata')
      expect(lastUsage).toBeUndefined()
    })

    it(`${how}: a model that reports zero is told apart from one that reports nothing`, async () => {
      const usage_metadata = { input_tokens: 0, output_tokens: 0, total_tokens: 0 }
      const { stored, lastUsage } = await turn(new AIMessage({ content: 'Hello.', usage_metadata }), how)
      expect(stored.usage_metadata).toEqual(usage_metadata)
      expect(lastUsage).toMatchObject({ inputTokens: 0, outputTokens: 0 })
    })

    it(`${how}: a streamed or whole answer with usage is stored once and reported once`, async () => {
      const usage_metadata = { input_tokens: 120, output_tokens: 5, total_tokens: 125 }
      const { messages, lastUsage } = await turn(new AIMessage({ content: 'Hello.', usage_metadata }), how)
      expect(messages).toHaveLength(2)
      expect(lastUsage).toMatchObject({ inputTokens: 120, outputTokens: 5 })
    })
  }

  it("reads the provider's own usage record when usage_metadata is absent", async () => {
    const anthropic = await turn(
      new AIMessage({ content: 'Hi.', response_metadata: { usage: { input_tokens: 77, output_tokens: 3 } } }),
      'invoke',
    )
    expect(anthropic.lastUsage).toMatchObject({ inputTokens: 77, outputTokens: 3 })
    const openai = await turn(
      new AIMessage({
        content: 'Hi.',
        response_metadata: { tokenUsage: { promptTokens: 88, completionTokens: 4, totalTokens: 92 } },
      }),
      'invoke',
    )
    expect(openai.lastUsage).toMatchObject({ inputTokens: 88, outputTokens: 4 })
    const malformed = await turn(
      new AIMessage({ content: 'Hi.', response_metadata: { usage: { input_tokens: -1 } } }),
      'invoke',
    )
    expect(malformed.lastUsage).toBeUndefined()
  })
})
