import { APICallError } from '@ai-sdk/provider'
import { createMemory, type HistoryMode, type Item } from '@strata-memory/core'
import { generateText, type ModelMessage, streamText, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { generated, streamed } from '../testing/model-results'
import { strataMiddleware } from './strata-middleware'

/** An overloaded provider: the SDK retries it, at once thanks to the retry-after header. */
const overloaded = () =>
  new APICallError({
    message: 'Overloaded',
    url: 'https://provider.test/v1/chat',
    requestBodyValues: {},
    statusCode: 529,
    responseHeaders: { 'retry-after-ms': '0' },
    isRetryable: true,
  })

const texts = (items: readonly Item[]) =>
  items.map((item) =>
    item.type === 'message'
      ? `${item.role}: ${item.content.map((part) => (part.type === 'text' ? part.text : part.type)).join('')}`
      : item.type,
  )

describe('a call the AI SDK retries', () => {
  for (const history of ['auto', 'full', 'new'] as const satisfies readonly HistoryMode[]) {
    it(`stores the message and the response once (history: '${history}')`, async () => {
      const memory = createMemory()
      let attempt = 0
      // The first attempt of each call fails; the SDK's retry succeeds.
      const mock = new MockLanguageModelV4({
        doGenerate: async () => {
          if (attempt++ % 2 === 0) throw overloaded()
          return generated('Hello!')
        },
        doStream: async () => {
          if (attempt++ % 2 === 0) throw overloaded()
          return streamed('Hello again!')
        },
      })
      const model = wrapLanguageModel({
        model: mock,
        middleware: strataMiddleware({ memory, threadId: 'retry', history }),
      })
      const history_: ModelMessage[] = [{ role: 'user', content: 'Hi' }]
      const first = await generateText({ model, messages: history_, maxRetries: 2 })
      history_.push(...first.responseMessages, { role: 'user', content: 'Hi' })
      const second = streamText({
        model,
        messages: history === 'new' ? history_.slice(-1) : history_,
        maxRetries: 2,
      })
      await second.consumeStream()

      expect(attempt).toBe(4)
      expect(mock.doGenerateCalls).toHaveLength(2)
      expect(texts(await (await memory.thread('retry')).items())).toEqual([
        'user: Hi',
        'assistant: Hello!',
        'user: Hi',
        'assistant: Hello again!',
      ])
    })
  }

  it("still stores a repeated message in 'new' mode once the failed call is behind", async () => {
    const memory = createMemory()
    let fail = true
    const mock = new MockLanguageModelV4({
      doGenerate: async () => {
        if (fail) {
          fail = false
          throw new Error('network down')
        }
        return generated('Done.')
      },
    })
    const model = wrapLanguageModel({
      model: mock,
      middleware: strataMiddleware({ memory, threadId: 'repeat', history: 'new' }),
    })
    // The call fails for good (no retries); the user sends the same message again: a re-send.
    await expect(generateText({ model, prompt: 'Again', maxRetries: 0 })).rejects.toThrow('network down')
    await generateText({ model, prompt: 'Again', maxRetries: 0 })
    // After an answer, the same words are a new message.
    await generateText({ model, prompt: 'Again', maxRetries: 0 })
    expect(texts(await (await memory.thread('repeat')).items())).toEqual([
      'user: Again',
      'assistant: Done.',
      'user: Again',
      'assistant: Done.',
    ])
  })
})
