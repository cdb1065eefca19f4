import type { LanguageModelV4StreamPart } from '@ai-sdk/provider'
import { createMemory, type Item } from '@strata-memory/core'
import { type ModelMessage, streamText, wrapLanguageModel } from 'ai'
import { convertArrayToReadableStream, convertReadableStreamToArray, MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { streamed, streamParts } from '../testing/model-results'
import { strataMiddleware } from './strata-middleware'

const texts = (items: readonly Item[]) =>
  items.map((item) =>
    item.type === 'message'
      ? `${item.role}: ${item.content.map((part) => (part.type === 'text' ? part.text : part.type)).join('')}`
      : item.type,
  )

/** A provider stream that stops after `parts` until released, then sends the rest or fails. */
function heldStream(all: LanguageModelV4StreamPart[], parts: number) {
  let release!: (outcome: 'continue' | Error) => void
  const held = new Promise<'continue' | Error>((resolve) => {
    release = resolve
  })
  let cancelled = false
  const stream = new ReadableStream<LanguageModelV4StreamPart>({
    async start(controller) {
      all.slice(0, parts).forEach((part) => {
        controller.enqueue(part)
      })
      const outcome = await held
      if (cancelled) return
      if (outcome instanceof Error) {
        controller.error(outcome)
        return
      }
      all.slice(parts).forEach((part) => {
        controller.enqueue(part)
      })
      controller.close()
    },
    cancel() {
      cancelled = true
    },
  })
  return { stream, release, wasCancelled: () => cancelled }
}

describe('a streamed response that does not finish', () => {
  it('stores nothing of an aborted response, and the next request goes on from the stored messages', async () => {
    const memory = createMemory()
    const thread = await memory.thread('abort')
    const held = heldStream(streamParts('The first half and the second half.'), 5)
    let call = 0
    const mock = new MockLanguageModelV4({
      doStream: async () => (call++ === 0 ? { stream: held.stream } : streamed('Short answer.')),
    })
    const model = wrapLanguageModel({
      model: mock,
      middleware: strataMiddleware({ memory, threadId: 'abort' }),
    })
    const controller = new AbortController()
    const history: ModelMessage[] = [{ role: 'user', content: 'Tell me everything' }]
    const result = streamText({ model, messages: history, abortSignal: controller.signal })
    const seen: string[] = []
    for await (const part of result.fullStream) {
      seen.push(part.type)
      // The user presses stop while the answer streams.
      if (part.type === 'text-delta') controller.abort()
    }
    held.release('continue')
    expect(seen).toContain('abort')
    expect(held.wasCancelled()).toBe(true)
    expect(texts(await thread.items())).toEqual(['user: Tell me everything'])

    // useChat keeps the partial answer and re-sends it with the next message: it is stored then.
    history.push({ role: 'assistant', content: 'The first ' }, { role: 'user', content: 'Shorter, please' })
    await streamText({ model, messages: history }).consumeStream()
    expect(texts(await thread.items())).toEqual([
      'user: Tell me everything',
      'assistant: The first ',
      'user: Shorter, please',
      'assistant: Short answer.',
    ])
  })

  it('stores nothing of a response whose stream fails or ends without its finish part', async () => {
    const memory = createMemory()
    const thread = await memory.thread('cut')
    const failing = heldStream(streamParts('Never finished'), 4)
    const cutOff = streamParts('Cut off').filter((part) => part.type !== 'finish')
    let call = 0
    const mock = new MockLanguageModelV4({
      doStream: async () =>
        call++ === 0 ? { stream: failing.stream } : { stream: convertArrayToReadableStream(cutOff) },
    })
    const model = wrapLanguageModel({
      model: mock,
      middleware: strataMiddleware({ memory, threadId: 'cut' }),
    })
    const first = streamText({ model, prompt: 'One' })
    const reading = (async () => {
      for await (const part of first.fullStream) {
        if (part.type === 'text-start') failing.release(new Error('connection reset'))
      }
    })()
    await expect(reading).rejects.toThrow('connection reset')
    await streamText({ model, prompt: 'Two' }).consumeStream()
    expect(texts(await thread.items())).toEqual(['user: One', 'user: Two'])
    expect((await thread.status()).lastUsage).toBeUndefined()
  })

  it('passes every part of the provider stream through untouched, in order', async () => {
    const memory = createMemory()
    const parts = streamParts([
      { type: 'reasoning', text: 'Thinking it over' },
      { type: 'text', text: 'Here you are.' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: '{"q":"x"}' },
    ])
    parts.splice(2, 0, { type: 'raw', rawValue: { provider: 'event' } })
    const mock = new MockLanguageModelV4({
      doStream: async () => ({ stream: convertArrayToReadableStream(parts) }),
    })
    const model = wrapLanguageModel({
      model: mock,
      middleware: strataMiddleware({ memory, threadId: 'tap' }),
    })
    const { stream } = await model.doStream({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'Go' }] }],
    })
    const received = await convertReadableStreamToArray(stream)
    expect(received).toHaveLength(parts.length)
    received.forEach((part, index) => {
      expect(part).toBe(parts[index])
    })
    expect(texts(await (await memory.thread('tap')).items())).toEqual([
      'user: Go',
      'assistant: reasoningHere you are.tool-call',
    ])
  })
})
