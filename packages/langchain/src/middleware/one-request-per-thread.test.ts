import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { HumanMessage } from '@langchain/core/messages'
import { tool } from '@langchain/core/tools'
import { Command, MemorySaver } from '@langchain/langgraph'
import { createMemory, inMemoryStore, type Memory, StrataError } from '@strata-memory/core'
import { expectThreadFree, storedThread } from '@strata-memory/core/testing'
import { fileStore } from '@strata-memory/store-file'
import { createAgent, humanInTheLoopMiddleware, MiddlewareError } from 'langchain'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { scriptedModel, storedMessages, weather } from '../testing/agent'
import { type StrataMiddlewareOptions, strataMiddleware } from './strata-middleware'

/** A promise and the function that settles it. */
function gate() {
  let open!: () => void
  const opened = new Promise<void>((resolve) => {
    open = resolve
  })
  return { opened, open }
}

/** A tool that waits for `gate` before it answers: the request holding the thread stays in its tool step. */
function slowTool(wait: Promise<void>, started: () => void) {
  return tool(
    async ({ item }: { item: string }) => {
      started()
      await wait
      return `Ordered ${item}.`
    },
    { name: 'order', description: 'Orders an item.', schema: z.object({ item: z.string() }) },
  )
}

/** The Strata error behind a LangChain error: LangChain wraps a middleware's errors in MiddlewareError. */
function strataCause(error: unknown) {
  expect(MiddlewareError.isInstance(error)).toBe(true)
  const cause = (error as Error).cause
  expect(StrataError.isInstance(cause)).toBe(true)
  return cause as StrataError
}

const rejection = async (work: Promise<unknown>) => {
  try {
    await work
  } catch (error) {
    return error
  }
  throw new Error('expected the request to be refused')
}

function agentOn(
  memory: Memory,
  script: Parameters<typeof scriptedModel>[0],
  tools: unknown[] = [],
  options: Partial<StrataMiddlewareOptions> = {},
) {
  const model = scriptedModel(script)
  const agent = createAgent({
    model,
    tools: tools as never[],
    checkpointer: new MemorySaver(),
    middleware: [strataMiddleware({ memory, ...options })],
  })
  return { agent, model }
}

describe('one request at a time per thread', () => {
  it('malformed hold options are STRATA_INVALID_OPTIONS when the middleware is created', () => {
    const memory = createMemory()
    for (const hold of [{ ttlMs: 0 }, { ttlMs: 1.5 }, { idleMs: -1 }, 'long']) {
      let caught: unknown
      try {
        strataMiddleware({ memory, hold: hold as never })
      } catch (error) {
        caught = error
      }
      expect(StrataError.isInstance(caught, 'STRATA_INVALID_OPTIONS')).toBe(true)
    }
    // A number given as text is shown quoted: unquoted, "(got 30)" would read as a right value.
    expect(() => strataMiddleware({ memory, hold: { ttlMs: '30' as never } })).toThrow(
      'strataMiddleware(): hold.ttlMs must be a whole number of milliseconds above 0 (got "30").',
    )
  })

  it('a second request on a thread in use is refused before it stores anything; the first completes, its tool calls paired', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ store })
    const { opened, open } = gate()
    const inTool = gate()
    const { agent } = agentOn(
      memory,
      [{ calls: [{ name: 'order', args: { item: 'paper' }, id: 'c1' }] }, 'Paper ordered.'],
      [slowTool(opened, inTool.open)],
    )
    const config = { configurable: { thread_id: 'orders' } }
    const first = agent.invoke({ messages: [new HumanMessage('Order paper.')] }, config)
    await inTool.opened
    const before = await storedThread(store, 'orders')

    // The same agent, the same thread, while the first request waits in its tool step.
    const refused = await rejection(agent.invoke({ messages: [new HumanMessage('Order ink.')] }, config))
    expect(strataCause(refused).code).toBe('STRATA_THREAD_BUSY')
    expect(await storedThread(store, 'orders')).toEqual(before)

    open()
    const result = await first
    expect(result.messages.at(-1)!.text).toBe('Paper ordered.')
    const thread = await memory.thread('orders')
    expect(await storedMessages(thread)).toEqual([
      'user:Order paper.',
      'assistant: →order#c1',
      'tool:#c1',
      'assistant:Paper ordered.',
    ])
    expect((await thread.toolInteractions()).map((interaction) => interaction.status)).toEqual(['success'])

    // The thread is free again.
    const { agent: next } = agentOn(memory, ['Ink ordered.'])
    await next.invoke({ messages: [new HumanMessage('Order ink.')] }, config)
    expect((await storedMessages(thread)).slice(-2)).toEqual(['user:Order ink.', 'assistant:Ink ordered.'])
  })

  it("the refusal names the app's own thread id, the stored one beside it", async () => {
    const memory = createMemory({ store: inMemoryStore() })
    const { agent } = agentOn(memory, ['Hello.', 'Hello again.'])
    const config = { configurable: { thread_id: 'user:42/chat 7' } }
    const outcomes = await Promise.allSettled([
      agent.invoke({ messages: [new HumanMessage('Hi')] }, config),
      agent.invoke({ messages: [new HumanMessage('Hi')] }, config),
    ])
    const refused = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult
    const cause = strataCause(refused.reason)
    expect(cause.code).toBe('STRATA_THREAD_BUSY')
    expect(cause.message).toContain(`Thread 'user:42/chat 7' (stored as '_.user_3A42_2Fchat_207')`)
  })

  it('two requests at once on one thread: one completes, the other is refused with STRATA_THREAD_BUSY; no orphan tool call', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ store })
    const { agent } = agentOn(
      memory,
      [{ calls: [{ name: 'weather', args: { city: 'Oslo' }, id: 'w1' }] }, 'Sunny in Oslo.'],
      [weather],
    )
    const config = { configurable: { thread_id: 'double-post' } }
    const outcomes = await Promise.allSettled([
      agent.invoke({ messages: [new HumanMessage('Weather in Oslo?')] }, config),
      agent.invoke({ messages: [new HumanMessage('Weather in Oslo?')] }, config),
    ])
    const refused = outcomes.filter((outcome) => outcome.status === 'rejected')
    expect(refused).toHaveLength(1)
    expect(strataCause((refused[0] as PromiseRejectedResult).reason).code).toBe('STRATA_THREAD_BUSY')
    const thread = await memory.thread('double-post')
    expect(await storedMessages(thread)).toEqual([
      'user:Weather in Oslo?',
      'assistant: →weather#w1',
      'tool:#w1',
      'assistant:Sunny in Oslo.',
    ])
    expect((await thread.toolInteractions()).every((interaction) => interaction.status === 'success')).toBe(
      true,
    )
  })

  it('another process on the same store is refused too (the store’s lease), and stores nothing', async () => {
    const store = inMemoryStore()
    const { opened, open } = gate()
    const inTool = gate()
    const here = agentOn(
      createMemory({ store }),
      [{ calls: [{ name: 'order', args: { item: 'paper' }, id: 'c1' }] }, 'Paper ordered.'],
      [slowTool(opened, inTool.open)],
    )
    const config = { configurable: { thread_id: 'shared' } }
    const first = here.agent.invoke({ messages: [new HumanMessage('Order paper.')] }, config)
    await inTool.opened
    const before = await storedThread(store, 'shared')
    const elsewhere = agentOn(createMemory({ store }), ['never'])
    const refused = await rejection(elsewhere.agent.invoke({ messages: [new HumanMessage('Hi')] }, config))
    expect(strataCause(refused).code).toBe('STRATA_THREAD_BUSY')
    expect(elsewhere.model.calls).toHaveLength(0)
    expect(await storedThread(store, 'shared')).toEqual(before)
    open()
    await first
  })

  it('a request that throws mid-way gives the thread back', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ store })
    // The second model call fails: the provider is down.
    const failing = scriptedModel([{ calls: [{ name: 'weather', args: { city: 'Rome' }, id: 'w1' }] }])
    failing.respond(new Error('provider down'))
    const broken = createAgent({
      model: failing,
      tools: [weather],
      checkpointer: new MemorySaver(),
      middleware: [strataMiddleware({ memory })],
    })
    const config = { configurable: { thread_id: 'dies' } }
    await expect(broken.invoke({ messages: [new HumanMessage('Weather in Rome?')] }, config)).rejects.toThrow(
      'provider down',
    )
    await expectThreadFree(store, 'dies')
    // And this memory goes on with it.
    const { agent: next } = agentOn(memory, ['Sunny in Rome.'])
    await next.invoke({ messages: [new HumanMessage('Again?')] }, { configurable: { thread_id: 'dies' } })
    expect((await storedMessages(await memory.thread('dies'))).at(-1)).toBe('assistant:Sunny in Rome.')
  })

  it('a request aborted mid-way (its signal) gives the thread back at once', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ store })
    const { opened } = gate()
    const inTool = gate()
    const model = scriptedModel([{ calls: [{ name: 'order', args: { item: 'paper' }, id: 'c1' }] }])
    const agent = createAgent({
      model,
      tools: [slowTool(opened, inTool.open)],
      checkpointer: new MemorySaver(),
      // Long enough that only the abort can free the thread within the test.
      middleware: [strataMiddleware({ memory, hold: { idleMs: 60_000 } })],
    })
    const controller = new AbortController()
    const config = { configurable: { thread_id: 'aborted' }, signal: controller.signal }
    const request = agent.invoke({ messages: [new HumanMessage('Order paper.')] }, config)
    await inTool.opened
    controller.abort()
    await expect(request).rejects.toThrow()
    await expectThreadFree(store, 'aborted')
  })

  it('a human-in-the-loop interrupt ends the request: the resumed request takes the thread and completes', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ store })
    const model = scriptedModel([
      { calls: [{ name: 'weather', args: { city: 'Lima' }, id: 'w1' }] },
      'Sunny in Lima.',
    ])
    const agent = createAgent({
      model,
      tools: [weather],
      checkpointer: new MemorySaver(),
      middleware: [
        strataMiddleware({ memory, hold: { idleMs: 50 } }),
        humanInTheLoopMiddleware({ interruptOn: { weather: true } }),
      ],
    })
    const config = { configurable: { thread_id: 'approve' } }
    const paused = await agent.invoke({ messages: [new HumanMessage('Weather in Lima?')] }, config)
    expect(paused.__interrupt__).toBeDefined()

    // Resumed at once: the resumed request goes on with the thread.
    const done = await agent.invoke(new Command({ resume: { decisions: [{ type: 'approve' }] } }), config)
    expect(done.messages.at(-1)!.text).toBe('Sunny in Lima.')
    const thread = await memory.thread('approve')
    expect((await thread.toolInteractions()).map((interaction) => interaction.status)).toEqual(['success'])
    // It ended: another process can take the thread.
    await expectThreadFree(store, 'approve')
  })

  it('an interrupt left waiting frees the thread after hold.idleMs', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ store })
    const agent = createAgent({
      model: scriptedModel([{ calls: [{ name: 'weather', args: { city: 'Lima' }, id: 'w1' }] }]),
      tools: [weather],
      checkpointer: new MemorySaver(),
      middleware: [
        strataMiddleware({ memory, hold: { idleMs: 30 } }),
        humanInTheLoopMiddleware({ interruptOn: { weather: true } }),
      ],
    })
    const config = { configurable: { thread_id: 'waiting' } }
    await agent.invoke({ messages: [new HumanMessage('Weather in Lima?')] }, config)
    await new Promise((resolve) => setTimeout(resolve, 60))
    await expectThreadFree(store, 'waiting')
  })

  it('a new message refused while an interrupt keeps the thread stays pending in the checkpoint: invoke(null) retries it, stored once', async () => {
    const memory = createMemory()
    const model = scriptedModel([{ calls: [{ name: 'weather', args: { city: 'Lima' }, id: 'w1' }] }, 'Here.'])
    const agent = createAgent({
      model,
      tools: [weather],
      checkpointer: new MemorySaver(),
      middleware: [
        strataMiddleware({ memory, hold: { idleMs: 30 } }),
        humanInTheLoopMiddleware({ interruptOn: { weather: true } }),
      ],
    })
    const config = { configurable: { thread_id: 'pending' } }
    await agent.invoke({ messages: [new HumanMessage('Weather in Lima?')] }, config)
    const refused = await rejection(agent.invoke({ messages: [new HumanMessage('Are you there?')] }, config))
    expect(strataCause(refused).code).toBe('STRATA_THREAD_BUSY')
    // LangGraph saved the input before any middleware ran: the refused request waits in the checkpoint.
    const state = await agent.graph.getState(config)
    expect(state.next).toEqual(['StrataMemory.before_agent'])
    expect((state.values as { messages: HumanMessage[] }).messages.at(-1)!.text).toBe('Are you there?')
    await new Promise((resolve) => setTimeout(resolve, 60))
    const done = await agent.invoke(null, config)
    expect(done.messages.at(-1)!.text).toBe('Here.')
    const thread = await memory.thread('pending')
    expect((await storedMessages(thread)).filter((line) => line.startsWith('user:'))).toEqual([
      'user:Weather in Lima?',
      'user:Are you there?',
    ])
  })
})

describe('a refused call leaves the thread exactly as it was', () => {
  it('a request over the budget is refused with STRATA_BUDGET_EXCEEDED before anything is stored', async () => {
    const store = inMemoryStore()
    const seeded = agentOn(createMemory({ store }), ['Hello.'])
    const config = { configurable: { thread_id: 'budget' } }
    await seeded.agent.invoke({ messages: [new HumanMessage('Hello.')] }, config)
    // The same thread under a budget the system prompt nearly fills.
    const model = scriptedModel(['never'])
    const agent = createAgent({
      model,
      tools: [weather],
      systemPrompt: 'You answer questions about the weather, briefly.',
      middleware: [
        strataMiddleware({
          memory: createMemory({ store, compaction: { budget: { inputTokens: 120 } } }),
          history: 'new',
        }),
      ],
    })
    const before = await storedThread(store, 'budget')
    const refused = await rejection(
      agent.invoke({ messages: [new HumanMessage(`Please read this: ${'word '.repeat(600)}`)] }, config),
    )
    expect(strataCause(refused).code).toBe('STRATA_BUDGET_EXCEEDED')
    expect(model.calls).toHaveLength(0)
    expect(await storedThread(store, 'budget')).toEqual(before)
  })
})

describe('two processes on one memory folder (the file store’s lease)', () => {
  it('a request while another process’s request holds the thread is refused and stores nothing; the other completes, paired', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'strata-langchain-hold-'))
    try {
      const store = fileStore({ dir })
      const { opened, open } = gate()
      const inTool = gate()
      const here = agentOn(
        createMemory({ store }),
        [{ calls: [{ name: 'order', args: { item: 'paper' }, id: 'c1' }] }, 'Paper ordered.'],
        [slowTool(opened, inTool.open)],
      )
      const config = { configurable: { thread_id: 'orders' } }
      const first = here.agent.invoke({ messages: [new HumanMessage('Order paper.')] }, config)
      await inTool.opened
      const before = await storedThread(store, 'orders')
      // Another process: its own store object on the same folder.
      const elsewhere = agentOn(createMemory({ store: fileStore({ dir }) }), ['never'])
      const refused = await rejection(
        elsewhere.agent.invoke({ messages: [new HumanMessage('Order ink.')] }, config),
      )
      expect(strataCause(refused).code).toBe('STRATA_THREAD_BUSY')
      expect(elsewhere.model.calls).toHaveLength(0)
      expect(await storedThread(store, 'orders')).toEqual(before)
      open()
      await first
      const thread = await createMemory({ store: fileStore({ dir }) }).thread('orders')
      expect(await storedMessages(thread)).toEqual([
        'user:Order paper.',
        'assistant: →order#c1',
        'tool:#c1',
        'assistant:Paper ordered.',
      ])
      expect((await thread.toolInteractions()).map((interaction) => interaction.status)).toEqual(['success'])
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
