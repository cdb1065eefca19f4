import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AIMessage, HumanMessage } from '@langchain/core/messages'
import { MemorySaver } from '@langchain/langgraph'
import { createMemory, inMemoryStore, type StrataStore } from '@strata-memory/core'
import { expectThreadFree } from '@strata-memory/core/testing'
import { fileStore } from '@strata-memory/store-file'
import { createAgent } from 'langchain'
import { describe, expect, it } from 'vitest'
import { scriptedModel, storedMessages } from '../testing/agent'
import { strataMiddleware } from './strata-middleware'

/** A provider error as LangChain's chat models raise it: a message and an HTTP status. */
const overloaded = () => Object.assign(new Error('Overloaded'), { status: 529 })

/** The thread as another process reads it: a memory of its own on the same store. */
const elsewhere = (store: StrataStore, threadId: string) => createMemory({ store }).thread(threadId)

describe('a model call that fails after the request was stored', () => {
  it('the message stays, marked failed in the store (status too); the thread is free', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ store })
    const model = scriptedModel([])
    model.respond(overloaded())
    const agent = createAgent({ model, middleware: [strataMiddleware({ memory })] })
    const config = { configurable: { thread_id: 'lc-failed' } }
    await expect(
      agent.invoke({ messages: [new HumanMessage('Summarize the ledger')] }, config),
    ).rejects.toThrow('Overloaded')
    const other = await elsewhere(store, 'lc-failed')
    expect(await storedMessages(other)).toEqual(['user:Summarize the ledger'])
    const [mark] = await other.failures()
    expect(mark).toMatchObject({ reason: 'Overloaded', code: '529' })
    expect((await other.status()).failures).toEqual([mark])
    await expectThreadFree(store, 'lc-failed')
  })

  it('with a checkpointer, the retry (invoking again) answers the same stored message and clears the mark', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ store })
    const model = scriptedModel([])
    model.respond(new Error('provider down'))
    const agent = createAgent({
      model,
      checkpointer: new MemorySaver(),
      middleware: [strataMiddleware({ memory })],
    })
    const config = { configurable: { thread_id: 'lc-retry' } }
    await expect(agent.invoke({ messages: [new HumanMessage('Weather in Rome?')] }, config)).rejects.toThrow(
      'provider down',
    )
    expect((await (await elsewhere(store, 'lc-retry')).failures()).map((mark) => mark.reason)).toEqual([
      'provider down',
    ])
    model.respond(new AIMessage('Sunny in Rome.'))
    await agent.invoke({ messages: [] }, config)
    const other = await elsewhere(store, 'lc-retry')
    expect(await storedMessages(other)).toEqual(['user:Weather in Rome?', 'assistant:Sunny in Rome.'])
    expect(await other.failures()).toEqual([])
  })

  it('a request the app aborts (its signal) is not marked failed', async () => {
    const store = inMemoryStore()
    const controller = new AbortController()
    const model = scriptedModel([])
    // The user stops the request while the model answers: the call fails because it was aborted.
    model.respond(() => {
      controller.abort()
      return new Error('This operation was aborted')
    })
    const agent = createAgent({ model, middleware: [strataMiddleware({ memory: createMemory({ store }) })] })
    const config = { configurable: { thread_id: 'lc-stopped' }, signal: controller.signal }
    await expect(
      agent.invoke({ messages: [new HumanMessage('Tell me everything')] }, config),
    ).rejects.toThrow()
    const other = await elsewhere(store, 'lc-stopped')
    expect(await storedMessages(other)).toEqual(['user:Tell me everything'])
    expect(await other.failures()).toEqual([])
    await expectThreadFree(store, 'lc-stopped')
  })

  it("history 'new': a retry handled by another process stores the message once", async () => {
    const store = inMemoryStore()
    const failing = scriptedModel([])
    failing.respond(overloaded())
    const first = createAgent({
      model: failing,
      middleware: [strataMiddleware({ memory: createMemory({ store }), history: 'new' })],
    })
    const config = { configurable: { thread_id: 'lc-new' } }
    await expect(first.invoke({ messages: [new HumanMessage('Again')] }, config)).rejects.toThrow(
      'Overloaded',
    )
    // The retry reaches another process: its middleware never saw the failure, the store did.
    const second = createAgent({
      model: scriptedModel(['Done.', 'Done again.']),
      middleware: [strataMiddleware({ memory: createMemory({ store }), history: 'new' })],
    })
    await second.invoke({ messages: [new HumanMessage('Again')] }, config)
    const reader = await elsewhere(store, 'lc-new')
    expect(await storedMessages(reader)).toEqual(['user:Again', 'assistant:Done.'])
    // Answered, the same words are a new message again.
    await second.invoke({ messages: [new HumanMessage('Again')] }, config)
    expect(await storedMessages(await elsewhere(store, 'lc-new'))).toEqual([
      'user:Again',
      'assistant:Done.',
      'user:Again',
      'assistant:Done again.',
    ])
  })

  it('on the file store: the mark is in the file, read by another memory; the thread is free', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'strata-langchain-failed-'))
    try {
      const model = scriptedModel([])
      model.respond(overloaded())
      const agent = createAgent({
        model,
        middleware: [strataMiddleware({ memory: createMemory({ store: fileStore({ dir }) }) })],
      })
      const config = { configurable: { thread_id: 'lc-file' } }
      await expect(agent.invoke({ messages: [new HumanMessage('File it')] }, config)).rejects.toThrow(
        'Overloaded',
      )
      const store = fileStore({ dir })
      const other = await createMemory({ store }).thread('lc-file')
      expect(await storedMessages(other)).toEqual(['user:File it'])
      expect((await other.failures()).map((mark) => [mark.reason, mark.code])).toEqual([
        ['Overloaded', '529'],
      ])
      await expectThreadFree(store, 'lc-file')
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
