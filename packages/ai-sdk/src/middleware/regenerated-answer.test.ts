import { createMemory, type HistoryMode, type Item, StrataError } from '@strata-memory/core'
import {
  convertToModelMessages,
  generateText,
  type ModelMessage,
  stepCountIs,
  streamText,
  tool,
  type UIMessage,
  wrapLanguageModel,
} from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { TestChat } from '../test-support/chat-client'
import { generated, streamed, toolCall } from '../test-support/model-results'
import { strataMiddleware } from './strata-middleware'

const texts = (items: readonly Item[]) =>
  items.map((item) =>
    item.type === 'message'
      ? `${item.role}: ${item.content.map((part) => (part.type === 'text' ? part.text : part.type)).join('')}`
      : item.type,
  )

/** A useChat client on a route whose model is wrapped with the middleware. */
function chatOn(history: HistoryMode) {
  const memory = createMemory()
  let answer = 0
  const mock = new MockLanguageModelV4({ doStream: async () => streamed(`Answer ${++answer}`) })
  const model = wrapLanguageModel({ model: mock, middleware: strataMiddleware({ memory, history }) })
  const errors: unknown[] = []
  const chat = new TestChat(
    async (request) => {
      const { id, messages } = (await request.json()) as { id: string; messages: UIMessage[] }
      return streamText({
        model,
        messages: await convertToModelMessages(messages),
        providerOptions: { strata: { threadId: id } },
        onError: ({ error }) => {
          errors.push(error)
        },
      }).toUIMessageStreamResponse()
    },
    { id: 'chat' },
  )
  return { memory, mock, chat, errors }
}

describe('a history that does not continue the thread (regenerate, edit)', () => {
  for (const history of ['full', 'auto'] as const) {
    it(`refuses a regenerated answer with a typed error and stores nothing (history: '${history}')`, async () => {
      const { memory, mock, chat, errors } = chatOn(history)
      await chat.sendMessage({ text: 'One' })
      await chat.sendMessage({ text: 'Two' })
      const thread = await memory.thread('chat')
      const before = await thread.items()
      expect(texts(before)).toEqual(['user: One', 'assistant: Answer 1', 'user: Two', 'assistant: Answer 2'])

      await chat.regenerate()
      expect(errors).toHaveLength(1)
      expect(StrataError.isInstance(errors[0], 'STRATA_INVALID_MESSAGE')).toBe(true)
      expect((errors[0] as Error).message).toContain("do not continue thread 'chat'")
      // Without the check the whole history was stored a second time; now nothing is, and the
      // provider was not called.
      expect(await thread.items()).toEqual(before)
      expect(mock.doStreamCalls).toHaveLength(2)
    })
  }

  it('refuses an edited earlier message the same way', async () => {
    const { memory, chat, errors } = chatOn('full')
    await chat.sendMessage({ text: 'One' })
    await chat.sendMessage({ text: 'Two' })
    const before = await (await memory.thread('chat')).items()
    // useChat's edit: keep the messages before the edited one, send the new text.
    chat.messages = chat.messages.slice(0, 2)
    await chat.sendMessage({ text: 'Two, edited' })
    expect(StrataError.isInstance(errors[0], 'STRATA_INVALID_MESSAGE')).toBe(true)
    expect(await (await memory.thread('chat')).items()).toEqual(before)
  })

  it("accepts several new messages at once in 'auto' mode", async () => {
    const memory = createMemory()
    const model = wrapLanguageModel({
      model: new MockLanguageModelV4({ doGenerate: async () => generated('Noted.') }),
      middleware: strataMiddleware({ memory, threadId: 'notes' }),
    })
    await generateText({ model, prompt: 'First note' })
    const batch: ModelMessage[] = [
      { role: 'user', content: 'Second note' },
      { role: 'user', content: 'Third note' },
      { role: 'user', content: 'Fourth note' },
    ]
    await generateText({ model, messages: batch })
    expect(texts(await (await memory.thread('notes')).items())).toEqual([
      'user: First note',
      'assistant: Noted.',
      'user: Second note',
      'user: Third note',
      'user: Fourth note',
      'assistant: Noted.',
    ])
  })

  it('accepts a full history whose last stored message the content channel replaced by a citation', async () => {
    const memory = createMemory({ content: { offloadAboveBytes: 200 } })
    const page = 'lorem ipsum dolor sit amet '.repeat(40)
    let call = 0
    const mock = new MockLanguageModelV4({
      doGenerate: async () => {
        call++
        if (call === 1) return generated([toolCall('fetch-1', 'fetch_page', { url: 'https://example.test' })])
        if (call === 2) throw new Error('provider down')
        return generated('Here is the page.')
      },
    })
    const model = wrapLanguageModel({
      model: mock,
      middleware: strataMiddleware({ memory, threadId: 'offload', history: 'full' }),
    })
    const tools = {
      fetch_page: tool({ inputSchema: z.object({ url: z.string() }), execute: async () => page }),
    }
    const history: ModelMessage[] = [{ role: 'user', content: 'Fetch it' }]
    // The second step fails after the tool ran: the log ends with the (offloaded) tool result.
    let responseMessages: ModelMessage[] = []
    await expect(
      generateText({
        model,
        tools,
        messages: history,
        stopWhen: stepCountIs(3),
        maxRetries: 0,
        onStepFinish: (step) => {
          responseMessages = step.response.messages
        },
      }),
    ).rejects.toThrow('provider down')
    const thread = await memory.thread('offload')
    const stored = await thread.items()
    expect(texts(stored)).toEqual(['user: Fetch it', 'assistant: tool-call', 'tool: tool-result'])
    expect(JSON.stringify(stored.at(-1))).not.toContain(page)

    history.push(...responseMessages, { role: 'user', content: 'Try again' })
    const result = await generateText({ model, tools, messages: history, maxRetries: 0 })
    expect(result.text).toBe('Here is the page.')
    expect(texts(await thread.items())).toEqual([
      'user: Fetch it',
      'assistant: tool-call',
      'tool: tool-result',
      'user: Try again',
      'assistant: Here is the page.',
    ])
  })
})
