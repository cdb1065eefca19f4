import type { LanguageModelV4StreamPart } from '@ai-sdk/provider'
import {
  createMemory,
  inMemoryStore,
  StrataError,
  type StrataStore,
  type ThreadHold,
} from '@strata-memory/core'
import { storedThread } from '@strata-memory/core/testing'
import { generateText, isStepCount, type ModelMessage, streamText, tool, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { generated, streamed, streamParts, toolCall } from '../testing/model-results'
import { strataMiddleware } from './strata-middleware'

/** A provider stream that sends its first `parts`, then waits until `go()` before the rest. */
function pausedStream(all: LanguageModelV4StreamPart[], parts: number) {
  let go!: () => void
  const paused = new Promise<void>((resolve) => {
    go = resolve
  })
  let cancelled = false
  const stream = new ReadableStream<LanguageModelV4StreamPart>({
    async start(controller) {
      for (const part of all.slice(0, parts)) controller.enqueue(part)
      await paused
      if (cancelled) return
      for (const part of all.slice(parts)) controller.enqueue(part)
      controller.close()
    },
    cancel() {
      cancelled = true
    },
  })
  return { stream, go, wasCancelled: () => cancelled }
}

/** Whether the thread can be held now (and lets it go again). */
async function isFree(memory: ReturnType<typeof createMemory>, threadId: string) {
  try {
    const hold = await (await memory.thread(threadId)).hold()
    await hold.release()
    return true
  } catch (error) {
    if (StrataError.isInstance(error, 'STRATA_THREAD_BUSY')) return false
    throw error
  }
}

/**
 * A two-step tool loop on a thread (a lookup, then the answer) whose tool, while it runs between the
 * steps, sends another request on the same thread through a model of its own (another tab).
 */
async function lookupLoop(
  memory: ReturnType<typeof createMemory>,
  threadId: string,
  store: StrataStore,
  options: { hold?: ThreadHold } = {},
) {
  const script = [
    generated([toolCall('call-1', 'lookup', { what: 'order 17' })]),
    generated('Order 17 shipped.'),
  ]
  const model = wrapLanguageModel({
    model: new MockLanguageModelV4({ doGenerate: async () => script.shift()! }),
    middleware: strataMiddleware({ memory, threadId, ...options }),
  })
  const other = wrapLanguageModel({
    model: new MockLanguageModelV4({ doGenerate: async () => generated('unused') }),
    middleware: strataMiddleware({ memory, threadId }),
  })
  let meanwhile: unknown
  const stored: unknown[] = []
  const lookup = tool({
    inputSchema: z.object({ what: z.string() }),
    execute: async () => {
      stored.push(await storedThread(store, threadId))
      meanwhile = await generateText({ model: other, prompt: 'Meanwhile', maxRetries: 0 }).catch(
        (error: unknown) => error,
      )
      stored.push(await storedThread(store, threadId))
      return 'shipped'
    },
  })
  const result = await generateText({
    model,
    prompt: 'Where is order 17?',
    tools: { lookup },
    stopWhen: isStepCount(3),
  })
  // What the store held before and after the other request.
  return { text: result.text, meanwhile, stored }
}

describe('one request at a time per thread', () => {
  it('refuses a call on a thread another call holds with STRATA_THREAD_BUSY, and stores nothing of it', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ store })
    const first = pausedStream(streamParts('The first answer.'), 2)
    let call = 0
    const mock = new MockLanguageModelV4({
      doStream: async () => (call++ === 0 ? { stream: first.stream } : streamed('unused')),
    })
    const model = wrapLanguageModel({
      model: mock,
      middleware: strataMiddleware({ memory, threadId: 'busy' }),
    })
    const running = streamText({ model, messages: [{ role: 'user', content: 'First request' }] })
    const consumed = running.consumeStream()
    // The first call has stored its message and is streaming: the thread is held.
    await expect.poll(() => mock.doStreamCalls.length).toBe(1)
    const before = await storedThread(store, 'busy')
    const refused = await generateText({
      model,
      messages: [{ role: 'user', content: 'Second request' }],
      maxRetries: 0,
    }).catch((error: unknown) => error)
    expect(StrataError.isInstance(refused, 'STRATA_THREAD_BUSY')).toBe(true)
    expect(await storedThread(store, 'busy')).toEqual(before)
    expect(mock.doStreamCalls).toHaveLength(1)
    first.go()
    await consumed
    // The call's hold ended with its stream: the thread is free.
    expect(await isFree(memory, 'busy')).toBe(true)
  })

  it('with the request hold passed, every step of a tool loop is the holder’s, and another request is refused', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ store })
    const thread = await memory.thread('loop')
    const hold = await thread.hold()
    const { text, meanwhile, stored } = await lookupLoop(memory, 'loop', store, { hold })
    expect(text).toBe('Order 17 shipped.')
    // Between the two steps another request on the thread is refused: the request holds it.
    expect(StrataError.isInstance(meanwhile, 'STRATA_THREAD_BUSY')).toBe(true)
    // The middleware neither took nor released the request's hold.
    expect(await isFree(memory, 'loop')).toBe(false)
    await hold.release()
    expect(await isFree(memory, 'loop')).toBe(true)
    const interactions = await thread.toolInteractions()
    expect(interactions.map((interaction) => interaction.status)).toEqual(['success'])
    expect(stored[1]).toEqual(stored[0])
  })

  it('without a request hold, a tool loop holds its thread across its steps: another request between them is refused, stores nothing, and no call is left without its result', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ store })
    const { text, meanwhile, stored } = await lookupLoop(memory, 'steps', store)
    expect(text).toBe('Order 17 shipped.')
    expect(StrataError.isInstance(meanwhile, 'STRATA_THREAD_BUSY')).toBe(true)
    // The refused request stored nothing.
    expect(stored[1]).toEqual(stored[0])
    const thread = await memory.thread('steps')
    expect((await thread.toolInteractions()).map((interaction) => interaction.status)).toEqual(['success'])
    // The last step answered: the request is over and the thread free.
    expect(await isFree(memory, 'steps')).toBe(true)
  })

  it('a request stopped on a tool step keeps its thread for the call that sends the results, at most toolStepWaitMs', async () => {
    const memory = createMemory()
    const script = [
      generated([toolCall('call-1', 'lookup', { what: 'order 17' })]),
      generated('Order 17 shipped.'),
      generated([toolCall('call-2', 'lookup', { what: 'order 18' })]),
    ]
    const model = wrapLanguageModel({
      model: new MockLanguageModelV4({ doGenerate: async () => script.shift()! }),
      middleware: strataMiddleware({ memory, threadId: 'stopped', toolStepWaitMs: 200 }),
    })
    const lookup = tool({ inputSchema: z.object({ what: z.string() }), execute: async () => 'shipped' })
    const messages: ModelMessage[] = [{ role: 'user', content: 'Where is order 17?' }]
    // One step: the SDK runs the tool and stops before the model sees its result.
    const first = await generateText({ model, messages, tools: { lookup }, stopWhen: isStepCount(1) })
    messages.push(...first.response.messages)
    expect(await isFree(memory, 'stopped')).toBe(false)
    // A request that does not hold the result (another tab) is refused…
    const refused = await generateText({ model, prompt: 'Hello?', maxRetries: 0 }).catch(
      (error: unknown) => error,
    )
    expect(StrataError.isInstance(refused, 'STRATA_THREAD_BUSY')).toBe(true)
    // …the conversation's next request, which sends it, goes on.
    const second = await generateText({ model, messages, tools: { lookup }, stopWhen: isStepCount(1) })
    expect(second.text).toBe('Order 17 shipped.')
    expect(await isFree(memory, 'stopped')).toBe(true)
    // Stopped on a tool step again and never continued: the thread is free after toolStepWaitMs.
    await generateText({
      model,
      messages: [...messages, ...second.response.messages, { role: 'user', content: 'And order 18?' }],
      tools: { lookup },
      stopWhen: isStepCount(1),
    })
    expect(await isFree(memory, 'stopped')).toBe(false)
    await expect.poll(() => isFree(memory, 'stopped'), { timeout: 2_000, interval: 50 }).toBe(true)
  })

  it('an aborted stream releases the thread', async () => {
    const memory = createMemory()
    const paused = pausedStream(streamParts('The first half and the second half.'), 4)
    const mock = new MockLanguageModelV4({ doStream: async () => ({ stream: paused.stream }) })
    const model = wrapLanguageModel({
      model: mock,
      middleware: strataMiddleware({ memory, threadId: 'abort' }),
    })
    const controller = new AbortController()
    const result = streamText({
      model,
      messages: [{ role: 'user', content: 'Tell me everything' }],
      abortSignal: controller.signal,
    })
    for await (const part of result.fullStream) {
      if (part.type === 'text-delta') {
        expect(await isFree(memory, 'abort')).toBe(false)
        controller.abort()
      }
    }
    paused.go()
    expect(paused.wasCancelled()).toBe(true)
    await expect.poll(() => isFree(memory, 'abort')).toBe(true)
  })

  it('a provider failure releases the thread; the request stays stored', async () => {
    const memory = createMemory()
    const mock = new MockLanguageModelV4({
      doGenerate: async () => {
        throw new Error('provider down')
      },
    })
    const model = wrapLanguageModel({
      model: mock,
      middleware: strataMiddleware({ memory, threadId: 'down' }),
    })
    await expect(generateText({ model, prompt: 'Hello', maxRetries: 0 })).rejects.toThrow('provider down')
    expect(await isFree(memory, 'down')).toBe(true)
    const items = await (await memory.thread('down')).items()
    expect(items.map((item) => item.type === 'message' && item.role)).toEqual(['user'])
  })

  it('checks the hold against the thread: a call on another thread is refused before anything is stored', async () => {
    const memory = createMemory()
    const hold = await (await memory.thread('mine')).hold()
    expect(() => strataMiddleware({ memory, threadId: 'other', hold })).toThrow(/hold is of thread 'mine'/)
    const model = wrapLanguageModel({
      model: new MockLanguageModelV4({ doGenerate: async () => generated('unused') }),
      middleware: strataMiddleware({ memory, hold }),
    })
    const error = await generateText({
      model,
      prompt: 'Hi',
      providerOptions: { strata: { threadId: 'other' } },
    }).catch((caught: unknown) => caught)
    expect(StrataError.isInstance(error, 'STRATA_INVALID_OPTIONS')).toBe(true)
    expect(await (await memory.thread('other')).items()).toEqual([])
    await hold.release()
  })

  it('works as before on a store without the lease capability (a v1 store)', async () => {
    const leased = inMemoryStore()
    const { acquireLease, renewLease, releaseLease, readLease, ...rest } = leased as typeof leased & {
      acquireLease: unknown
      renewLease: unknown
      releaseLease: unknown
      readLease: unknown
    }
    void [acquireLease, renewLease, releaseLease, readLease]
    const v1 = { ...rest, specificationVersion: 'v1', flags: { persistent: false, shared: false } }
    const memory = createMemory({ store: v1 as unknown as StrataStore })
    const model = wrapLanguageModel({
      model: new MockLanguageModelV4({ doGenerate: async () => generated('Hello back.') }),
      middleware: strataMiddleware({ memory, threadId: 'old' }),
    })
    const messages: ModelMessage[] = [{ role: 'user', content: 'Hello' }]
    expect((await generateText({ model, messages })).text).toBe('Hello back.')
  })
})
