import { Agent } from '@mastra/core/agent'
import { StreamErrorRetryProcessor } from '@mastra/core/processors'
import { createMemory, inMemoryStore, type StrataStore } from '@strata-memory/core'
import { expectThreadFree } from '@strata-memory/core/testing'
import { describe, expect, it } from 'vitest'
import { strataAgent } from '../testing/agent-harness'
import { type ScriptedStep, scriptedModel } from '../testing/scripted-model'
import { StrataMemory } from './strata-memory'

/** A provider that is down: an error with an HTTP status, as provider SDKs throw it. */
const down: ScriptedStep = () => {
  throw Object.assign(new Error('provider down'), { statusCode: 529 })
}

const call = (thread: string) => ({ memory: { thread, resource: 'ana' }, maxSteps: 4, maxRetries: 0 })

/** The user messages a store holds for a thread, by text. */
async function userTexts(store: StrataStore, threadId: string) {
  return (await store.read(threadId)).flatMap((item) =>
    item.type === 'message' && item.role === 'user'
      ? [item.content.map((part) => (part.type === 'text' ? part.text : part.type)).join('')]
      : [],
  )
}

describe('a model call that fails after the request was stored', () => {
  it('generate: the message stays, marked failed in the store; the thread is free; the retry stores it once and clears the mark', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ store })
    const { agent, strata } = strataAgent(memory, [down, { text: 'Sunny in Faro.' }])
    await expect(agent.generate('Weather in Faro?', call('faro'))).rejects.toThrow('provider down')
    const threadId = (await strata.thread('faro')).id
    expect(await userTexts(store, threadId)).toEqual(['Weather in Faro?'])
    // Another process reads the mark from the store.
    const other = await createMemory({ store }).thread(threadId)
    expect(await other.failures()).toEqual([
      expect.objectContaining({ reason: 'provider down', code: '529' }),
    ])
    await expectThreadFree(store, threadId)
    // The user sends it again ('new', Mastra's way): stored once, answered, the mark cleared.
    expect((await agent.generate('Weather in Faro?', call('faro'))).text).toBe('Sunny in Faro.')
    expect(await userTexts(store, threadId)).toEqual(['Weather in Faro?'])
    expect(await other.failures()).toEqual([])
  })

  it('stream: the failed run is marked and gives the thread back', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ store })
    const { agent, strata } = strataAgent(memory, [down])
    const output = await agent.stream('Weather in Oslo?', call('oslo'))
    await output.consumeStream()
    const threadId = (await strata.thread('oslo')).id
    const other = await createMemory({ store }).thread(threadId)
    expect((await other.failures()).map((mark) => mark.reason)).toEqual(['provider down'])
    expect(await userTexts(store, threadId)).toEqual(['Weather in Oslo?'])
    await expectThreadFree(store, threadId)
  })

  it('stream: when the error reaches the app, the request is already marked failed and its thread free (a retry at once is not busy)', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ store })
    const { agent, strata } = strataAgent(memory, [down, { text: 'Snow in Oslo.' }])
    const output = await agent.stream('Weather in Oslo?', call('oslo'))
    // An app awaits the text and retries on error, without waiting for anything else.
    await expect(output.text).rejects.toThrow('provider down')
    const threadId = (await strata.thread('oslo')).id
    const other = await createMemory({ store }).thread(threadId)
    expect((await other.failures()).map((mark) => mark.reason)).toEqual(['provider down'])
    await expectThreadFree(store, threadId)
    expect((await agent.generate('Weather in Oslo?', call('oslo'))).text).toBe('Snow in Oslo.')
    expect(await userTexts(store, threadId)).toEqual(['Weather in Oslo?'])
  })

  it.each(['generate', 'stream'] as const)(
    "%s: a failed model call Mastra's error processor retries stores the request once, and the retry sees it once",
    async (method) => {
      const store = inMemoryStore()
      const flaky: ScriptedStep = () => {
        throw Object.assign(new Error('overloaded'), { statusCode: 529, isRetryable: true })
      }
      const { model, prompts } = scriptedModel([flaky, { text: 'Sunny in Faro.' }])
      const strata = new StrataMemory({ memory: createMemory({ store }) })
      const agent = new Agent({
        id: 'helper',
        name: 'helper',
        instructions: 'Be brief.',
        model,
        memory: strata,
        errorProcessors: [new StreamErrorRetryProcessor({ maxRetries: 2, delayMs: 1 })],
        maxProcessorRetries: 2,
      })
      const options = { memory: { thread: 'retried', resource: 'ana' } }
      const text =
        method === 'generate'
          ? (await agent.generate('Weather in Faro?', options)).text
          : await (await agent.stream('Weather in Faro?', options)).text
      expect(text).toBe('Sunny in Faro.')
      expect(prompts).toHaveLength(2)
      expect(prompts[1]!.filter((message) => message.role === 'user')).toHaveLength(1)
      const threadId = (await strata.thread('retried')).id
      expect(await userTexts(store, threadId)).toEqual(['Weather in Faro?'])
      await expectThreadFree(store, threadId)
    },
  )

  it('a retry handled by another process stores the message once', async () => {
    const store = inMemoryStore()
    const first = strataAgent(createMemory({ store }), [down])
    await expect(first.agent.generate('Again', call('elsewhere'))).rejects.toThrow('provider down')
    // Another process: its processor never saw the failure, the store did.
    const second = strataAgent(createMemory({ store }), [{ text: 'Done.' }, { text: 'Done again.' }])
    await second.agent.generate('Again', call('elsewhere'))
    const threadId = (await second.strata.thread('elsewhere')).id
    expect(await userTexts(store, threadId)).toEqual(['Again'])
    // Answered, the same words are a new message again.
    await second.agent.generate('Again', call('elsewhere'))
    expect(await userTexts(store, threadId)).toEqual(['Again', 'Again'])
  })
})
