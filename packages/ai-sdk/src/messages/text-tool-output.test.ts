import { createMemory } from '@strata-memory/core'
import { generateText, type ModelMessage, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { strataMiddleware } from '../middleware/strata-middleware'
import { generated } from '../testing/model-results'

const page = 'Tomatoes need six to eight hours of direct sun a day and deep, even watering.'

/** A conversation as an app holds it: AI SDK ModelMessages with typed tool outputs. */
const conversation: ModelMessage[] = [
  { role: 'user', content: 'How do I grow tomatoes?' },
  {
    role: 'assistant',
    content: [
      { type: 'tool-call', toolCallId: 'c1', toolName: 'fetch_page', input: { url: 'https://garden.test' } },
      { type: 'tool-call', toolCallId: 'c2', toolName: 'soil', input: {} },
    ],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'c1',
        toolName: 'fetch_page',
        output: { type: 'text', value: page },
      },
      {
        type: 'tool-result',
        toolCallId: 'c2',
        toolName: 'soil',
        output: { type: 'json', value: { ph: 6.5 } },
      },
    ],
  },
]

const toolResults = (prompt: readonly { role: string; content: unknown }[]) =>
  prompt.flatMap((message) =>
    message.role === 'tool' ? (message.content as { type: string; output: unknown }[]) : [],
  )

describe('a ModelMessage with a text tool output', () => {
  it('reaches the provider prompt unchanged, on the first call and when the history is sent again', async () => {
    const memory = createMemory()
    const mock = new MockLanguageModelV4({ doGenerate: async () => generated('Plant them in full sun.') })
    const model = wrapLanguageModel({
      model: mock,
      middleware: strataMiddleware({ memory, threadId: 'garden' }),
    })
    const first = await generateText({ model, messages: conversation })
    const again = await generateText({
      model,
      messages: [
        ...conversation,
        { role: 'assistant', content: first.text },
        { role: 'user', content: 'And how often should I water?' },
      ],
    })
    expect(again.text).toBe('Plant them in full sun.')
    for (const call of mock.doGenerateCalls) {
      expect(toolResults(call.prompt)).toEqual([
        expect.objectContaining({ toolCallId: 'c1', output: { type: 'text', value: page } }),
        expect.objectContaining({ toolCallId: 'c2', output: { type: 'json', value: { ph: 6.5 } } }),
      ])
    }
    // Stored as what the tool returned, not as the AI SDK's wrapper around it.
    const thread = await memory.thread('garden')
    const stored = (await thread.items()).flatMap((item) =>
      item.type === 'message' ? item.content.filter((part) => part.type === 'tool-result') : [],
    )
    expect(stored.map((part) => part.output)).toEqual([page, { ph: 6.5 }])
  })

  it("is stored the same by thread.append(…, { format: 'ai-sdk' }) as by the middleware", async () => {
    const memory = createMemory()
    const mock = new MockLanguageModelV4({ doGenerate: async () => generated('ok') })
    const model = wrapLanguageModel({ model: mock, middleware: strataMiddleware({ memory, threadId: 'm' }) })
    await generateText({ model, messages: conversation })
    const direct = await memory.thread('direct')
    await direct.append(conversation, { format: 'ai-sdk' })
    const parts = async (threadId: string) =>
      (await (await memory.thread(threadId)).items()).flatMap((item) =>
        item.type === 'message' && item.role !== 'assistant' ? item.content : [],
      )
    const viaMiddleware = (await parts('m')).filter((part) => part.type === 'tool-result')
    expect((await parts('direct')).filter((part) => part.type === 'tool-result')).toEqual(viaMiddleware)
  })
})

describe('a provider-executed result that looks like an AI SDK typed output', () => {
  it('is stored by the middleware as the provider gave it (it is core JSON, not an ambiguous input)', async () => {
    const memory = createMemory()
    const mock = new MockLanguageModelV4({
      doGenerate: async () =>
        generated([
          {
            type: 'tool-call',
            toolCallId: 's1',
            toolName: 'web_search',
            input: '{}',
            providerExecuted: true,
          },
          {
            type: 'tool-result',
            toolCallId: 's1',
            toolName: 'web_search',
            result: { type: 'text', value: 'x' },
          },
          { type: 'text', text: 'Found it.' },
        ]),
    })
    const model = wrapLanguageModel({
      model: mock,
      middleware: strataMiddleware({ memory, threadId: 'search' }),
    })
    await generateText({ model, prompt: 'Search.' })
    const stored = (await (await memory.thread('search')).items()).flatMap((item) =>
      item.type === 'message' ? item.content.filter((part) => part.type === 'tool-result') : [],
    )
    expect(stored.map((part) => part.output)).toEqual([{ type: 'text', value: 'x' }])
  })
})
