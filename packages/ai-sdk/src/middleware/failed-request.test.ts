import { APICallError, type LanguageModelV4StreamPart } from '@ai-sdk/provider'
import { createMemory, type HistoryMode, inMemoryStore, type StrataStore } from '@strata-memory/core'
import { expectThreadFree } from '@strata-memory/core/testing'
import { generateText, type ModelMessage, streamText, wrapLanguageModel } from 'ai'
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { generated, streamed, streamParts } from '../testing/model-results'
import { loadUIMessages } from '../ui/load-ui-messages'
import { strataMiddleware } from './strata-middleware'

const overloaded = () =>
  new APICallError({
    message: 'Overloaded',
    url: 'https://provider.test/v1/chat',
    requestBodyValues: {},
    statusCode: 529,
    isRetryable: false,
  })

/** The user messages a store holds for a thread, by text. */
async function userTexts(store: StrataStore, threadId: string) {
  return (await store.read(threadId)).flatMap((item) =>
    item.type === 'message' && item.role === 'user'
      ? [item.content.map((part) => (part.type === 'text' ? part.text : part.type)).join('')]
      : [],
  )
}

/** A provider stream that sends the first parts of an answer, then fails. */
function failingStream() {
  const parts = streamParts('Half an answ')
  const start = parts.slice(0, 3)
  return {
    stream: new ReadableStream<LanguageModelV4StreamPart>({
      start(controller) {
        for (const part of start) controller.enqueue(part)
        controller.error(new Error('Connection reset by the provider'))
      },
    }),
  }
}

describe('a provider failure after the request was stored', () => {
  it('generateText: the message stays, marked failed in the store; the thread is free; a retry stores it once and clears the mark', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ store })
    let fail = true
    const model = wrapLanguageModel({
      model: new MockLanguageModelV4({
        doGenerate: async () => {
          if (fail) throw overloaded()
          return generated('Here is the summary.')
        },
      }),
      middleware: strataMiddleware({ memory, threadId: 'failed-generate', history: 'full' }),
    })
    const history: ModelMessage[] = [{ role: 'user', content: 'Summarize the ledger' }]
    await expect(generateText({ model, messages: history, maxRetries: 0 })).rejects.toThrow('Overloaded')

    expect(await userTexts(store, 'failed-generate')).toEqual(['Summarize the ledger'])
    // Another process reads the mark from the store.
    const other = await createMemory({ store }).thread('failed-generate')
    const [mark] = await other.failures()
    expect(mark).toMatchObject({ reason: 'Overloaded', code: '529' })
    await expectThreadFree(store, 'failed-generate')
    // A reloaded chat shows it on the user message.
    const reloaded = await loadUIMessages(createMemory({ store }), 'failed-generate')
    expect(reloaded).toHaveLength(1)
    expect(reloaded[0]!.id).toBe(mark!.itemId)
    expect(reloaded[0]!.metadata?.strata?.failed).toEqual({ reason: 'Overloaded', code: '529', ts: mark!.ts })

    fail = false
    await generateText({ model, messages: history, maxRetries: 0 })
    expect(await userTexts(store, 'failed-generate')).toEqual(['Summarize the ledger'])
    expect(await other.failures()).toEqual([])
    const after = await loadUIMessages(createMemory({ store }), 'failed-generate')
    expect(after.map((message) => [message.role, message.metadata?.strata?.failed])).toEqual([
      ['user', undefined],
      ['assistant', undefined],
    ])
  })

  it('streamText: a stream that fails midway marks the request; the thread is free; the retry answers it', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ store })
    let fail = true
    const model = wrapLanguageModel({
      model: new MockLanguageModelV4({
        doStream: async () => (fail ? failingStream() : streamed('The whole answer.')),
      }),
      middleware: strataMiddleware({ memory, threadId: 'failed-stream' }),
    })
    await streamText({
      model,
      prompt: 'Tell me everything',
      maxRetries: 0,
      onError: () => {},
    }).consumeStream()
    const other = await createMemory({ store }).thread('failed-stream')
    expect((await other.failures()).map((mark) => mark.reason)).toEqual(['Connection reset by the provider'])
    expect(await userTexts(store, 'failed-stream')).toEqual(['Tell me everything'])
    await expectThreadFree(store, 'failed-stream')

    fail = false
    await streamText({ model, prompt: 'Tell me everything', maxRetries: 0 }).consumeStream()
    expect(await userTexts(store, 'failed-stream')).toEqual(['Tell me everything'])
    expect(await other.failures()).toEqual([])
  })

  it('a stream that ends without finish (cut off) is marked too', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ store })
    const model = wrapLanguageModel({
      model: new MockLanguageModelV4({
        doStream: async () => ({
          stream: convertArrayToReadableStream(streamParts('Cut').filter((part) => part.type !== 'finish')),
        }),
      }),
      middleware: strataMiddleware({ memory, threadId: 'failed-cut' }),
    })
    await streamText({ model, prompt: 'Hello', maxRetries: 0, onError: () => {} }).consumeStream()
    const marks = await (await createMemory({ store }).thread('failed-cut')).failures()
    expect(marks.map((mark) => mark.reason)).toEqual([expect.stringContaining('without a finish part')])
    await expectThreadFree(store, 'failed-cut')
  })

  it('a request the user stops (abortSignal) is not marked failed', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ store })
    const parts = streamParts('The first half and the second half.')
    const model = wrapLanguageModel({
      model: new MockLanguageModelV4({
        doStream: async ({ abortSignal }) => ({
          // Sends the start of an answer, then, as a provider's fetch does when the request is
          // aborted, fails with an AbortError.
          stream: new ReadableStream<LanguageModelV4StreamPart>({
            start(controller) {
              for (const part of parts.slice(0, 4)) controller.enqueue(part)
              abortSignal?.addEventListener(
                'abort',
                () => controller.error(new DOMException('This operation was aborted', 'AbortError')),
                { once: true },
              )
            },
          }),
        }),
      }),
      middleware: strataMiddleware({ memory, threadId: 'stopped' }),
    })
    const controller = new AbortController()
    const result = streamText({ model, prompt: 'Tell me everything', abortSignal: controller.signal })
    for await (const part of result.fullStream) {
      if (part.type === 'text-delta') controller.abort()
    }
    expect(await userTexts(store, 'stopped')).toEqual(['Tell me everything'])
    expect(await (await createMemory({ store }).thread('stopped')).failures()).toEqual([])
    await expectThreadFree(store, 'stopped')
  })

  // 'new' needs the stored mark to tell the retry from a new message; 'auto' tells it by position
  // without the mark, and is the control.
  for (const history of ['new', 'auto'] as const satisfies readonly HistoryMode[]) {
    it(`a retry handled by another process stores the message once (history: '${history}')`, async () => {
      const store = inMemoryStore()
      const failing = wrapLanguageModel({
        model: new MockLanguageModelV4({
          doGenerate: async () => {
            throw overloaded()
          },
        }),
        middleware: strataMiddleware({
          memory: createMemory({ store }),
          threadId: 'failed-elsewhere',
          history,
        }),
      })
      await expect(generateText({ model: failing, prompt: 'Again', maxRetries: 0 })).rejects.toThrow()
      // The retry reaches another process: its middleware never saw the failure, the store did.
      const answering = wrapLanguageModel({
        model: new MockLanguageModelV4({ doGenerate: async () => generated('Done.') }),
        middleware: strataMiddleware({
          memory: createMemory({ store }),
          threadId: 'failed-elsewhere',
          history,
        }),
      })
      await generateText({ model: answering, prompt: 'Again', maxRetries: 0 })
      expect(await userTexts(store, 'failed-elsewhere')).toEqual(['Again'])
      // Answered, the same words are a new message again.
      await generateText({ model: answering, prompt: 'Again', maxRetries: 0 })
      expect(await userTexts(store, 'failed-elsewhere')).toEqual(['Again', 'Again'])
    })
  }
})
