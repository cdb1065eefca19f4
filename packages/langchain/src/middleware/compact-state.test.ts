import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { tool } from '@langchain/core/tools'
import { Command, MemorySaver } from '@langchain/langgraph'
import { createMemory, type Memory, openAppThread, StrataError } from '@strata-memory/core'
import { fileStore } from '@strata-memory/store-file'
import { createAgent, humanInTheLoopMiddleware } from 'langchain'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { scriptedModel, storedMessages, weather } from '../testing/agent'
import { wire } from '../testing/probe'
import { verifyThread } from '../testing/verify-thread'
import { strataMiddleware } from './strata-middleware'

/** A tool whose every answer is a distinct 20 KB page. */
const readPage = tool(
  async ({ page }: { page: number }) =>
    `Page ${page}. ${Array.from({ length: 2_500 }, (_, line) => `p${page}l${line} `).join('')}`.slice(
      0,
      20_000,
    ),
  { name: 'read_page', description: 'Reads one page.', schema: z.object({ page: z.number() }) },
)

/** A model that reads one page per turn and then answers: two model calls per turn. */
function pageReader(turns: number) {
  const model = fakeModel()
  for (let turn = 1; turn <= turns; turn++) {
    model.respond(
      new AIMessage({
        content: '',
        tool_calls: [{ name: 'read_page', args: { page: turn }, id: `read-${turn}`, type: 'tool_call' }],
      }),
    )
    model.respond(new AIMessage(`Page ${turn} is about line ${turn}.`))
  }
  return model
}

/** The bytes of the thread's newest checkpoint, as the saver serialises it. */
async function checkpointBytes(saver: MemorySaver, config: { configurable: { thread_id: string } }) {
  const tuple = await saver.getTuple(config)
  const [, bytes] = await saver.serde.dumpsTyped(tuple!.checkpoint)
  return bytes.byteLength
}

const nonSystem = (messages: readonly BaseMessage[]) =>
  messages.filter((message) => message.type !== 'system')

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'strata-compact-state-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** Runs `turns` turns of the page reader on a file-store memory; returns the checkpoint sizes per turn. */
async function run(memory: Memory, state: 'full' | 'compact', threadId: string, turns: number) {
  const saver = new MemorySaver()
  const model = pageReader(turns)
  const agent = createAgent({
    model,
    tools: [readPage],
    checkpointer: saver,
    middleware: [strataMiddleware({ memory, state })],
  })
  const config = { configurable: { thread_id: threadId } }
  const sizes: number[] = []
  for (let turn = 1; turn <= turns; turn++) {
    await agent.invoke({ messages: [new HumanMessage(`Read page ${turn}.`)] }, config)
    sizes.push(await checkpointBytes(saver, config))
  }
  return { agent, model, saver, config, sizes }
}

describe("strataMiddleware({ state: 'compact' })", () => {
  it('keeps the checkpoint flat over 30 turns of 20 KB results; getState() holds what the model saw', async () => {
    const memory = createMemory({
      store: fileStore({ dir }),
      compaction: { budget: { inputTokens: 12_000 } },
    })
    const threadId = 'user:42/pages'
    const compact = await run(memory, 'compact', threadId, 30)
    const full = await run(createMemory(), 'full', 'pages-full', 30)

    // Without it, each turn adds its 20 KB page to the checkpoint. With it, the checkpoint holds the
    // prompt: it grows until the budget compacts the thread, then stays within the same bounds (the
    // last 10 turns no larger than the 10 before), never more than the first turn's page and budget.
    expect(full.sizes[29]!).toBeGreaterThan(30 * 20_000)
    expect(Math.max(...compact.sizes.slice(20))).toBeLessThanOrEqual(Math.max(...compact.sizes.slice(10, 20)))
    expect(Math.max(...compact.sizes)).toBeLessThan(2.5 * compact.sizes[0]!)
    expect(compact.sizes[29]!).toBeLessThan(0.2 * full.sizes[29]!)

    // The state's messages are the last model call's, then its answer.
    const values = (await compact.agent.graph.getState(compact.config)).values as { messages: BaseMessage[] }
    const lastCall = compact.model.calls.at(-1)!.messages
    expect(values.messages.map(wire)).toEqual([
      ...nonSystem(lastCall).map(wire),
      'ai:Page 30 is about line 30.',
    ])
    // Older pages are citations in the state; the page the last call read is as the model saw it.
    const results = values.messages.filter((message) => message.type === 'tool')
    expect(results.at(-1)!.text).toMatch(/^Page 30\. p30l0 /)
    for (const result of results.slice(0, -1)) {
      expect(result.text).toMatch(/^\[stored text from read_page, 20,000 characters\]\nMemory id: mem_/)
    }

    // The thread stores every message once, and passes `strata verify`.
    const thread = await openAppThread(memory, threadId)
    const stored = [
      ...(await memory.store.read(thread.id)),
      ...(await memory.store.readArchive(thread.id)),
    ].filter((item) => item.type === 'message')
    expect(stored).toHaveLength(30 * 4)
    await memory.close()
    expect((await verifyThread(dir, thread.id)).threads[0]!.problems).toEqual([])
  }, 120_000)

  it('rebuilds the state from Strata when the checkpoint is gone (an empty MemorySaver after a restart)', async () => {
    const memory = createMemory()
    await run(memory, 'compact', 'restart-1', 3)

    // The process restarts: a new saver, the same memory.
    const saver = new MemorySaver()
    const model = fakeModel().respond(new AIMessage('You read pages 1 to 3.'))
    const agent = createAgent({
      model,
      tools: [readPage],
      checkpointer: saver,
      middleware: [strataMiddleware({ memory, state: 'compact' })],
    })
    const config = { configurable: { thread_id: 'restart-1' } }
    await agent.invoke({ messages: [new HumanMessage('Which pages did I read?')] }, config)

    const sent = nonSystem(model.calls[0]!.messages).map(wire)
    expect(sent.filter((line) => line.startsWith('human:Read page'))).toEqual([
      'human:Read page 1.',
      'human:Read page 2.',
      'human:Read page 3.',
    ])
    expect(sent.at(-1)).toBe('human:Which pages did I read?')
    const values = (await agent.graph.getState(config)).values as { messages: BaseMessage[] }
    expect(values.messages.map(wire)).toEqual([...sent, 'ai:You read pages 1 to 3.'])
    expect(await storedMessages(await memory.thread('restart-1'))).toHaveLength(3 * 4 + 2)

    // The next invoke continues from the rebuilt state: nothing is stored twice.
    model.respond(new AIMessage('Bye.'))
    await agent.invoke({ messages: [new HumanMessage('Thanks.')] }, config)
    const stored = await storedMessages(await memory.thread('restart-1'))
    expect(stored.slice(-4)).toEqual([
      'user:Which pages did I read?',
      'assistant:You read pages 1 to 3.',
      'user:Thanks.',
      'assistant:Bye.',
    ])
    expect(stored).toHaveLength(3 * 4 + 4)
  })

  it("with the default state: 'full', a lost checkpoint is followed (the model gets the thread) but not rebuilt", async () => {
    const memory = createMemory()
    await run(memory, 'full', 'restart-full', 2)
    const model = fakeModel().respond(new AIMessage('You read pages 1 and 2.'))
    const agent = createAgent({
      model,
      tools: [readPage],
      checkpointer: new MemorySaver(),
      middleware: [strataMiddleware({ memory })],
    })
    const config = { configurable: { thread_id: 'restart-full' } }
    await agent.invoke({ messages: [new HumanMessage('Which pages did I read?')] }, config)
    const sent = nonSystem(model.calls[0]!.messages).map(wire)
    expect(sent.filter((line) => line.startsWith('human:'))).toEqual([
      'human:Read page 1.',
      'human:Read page 2.',
      'human:Which pages did I read?',
    ])
    const values = (await agent.graph.getState(config)).values as { messages: BaseMessage[] }
    expect(values.messages.map(wire)).toEqual(['human:Which pages did I read?', 'ai:You read pages 1 and 2.'])
    expect(await storedMessages(await memory.thread('restart-full'))).toHaveLength(2 * 4 + 2)
  })

  it("streamMode 'messages': the answer and results stream as usual, the state's replacement shows as one RemoveMessage", async () => {
    const streamed: Record<string, string[]> = {}
    for (const state of ['full', 'compact'] as const) {
      const agent = createAgent({
        model: scriptedModel([{ calls: [{ name: 'weather', args: { city: 'Oslo' }, id: 'w1' }] }, 'Sunny.']),
        tools: [weather],
        checkpointer: new MemorySaver(),
        middleware: [strataMiddleware({ memory: createMemory(), state })],
      })
      const config = { configurable: { thread_id: `stream-${state}` }, streamMode: 'messages' as const }
      const seen: string[] = []
      for await (const [message, metadata] of await agent.stream(
        { messages: [new HumanMessage('Weather in Oslo?')] },
        config,
      ))
        seen.push(`${(metadata as { langgraph_node: string }).langgraph_node}:${message.type}`)
      streamed[state] = seen
    }
    expect(streamed.full).toEqual(['model_request:ai', 'tools:tool', 'model_request:ai'])
    expect(streamed.compact).toEqual([
      'model_request:ai',
      'StrataMemory.after_model:remove',
      'tools:tool',
      'model_request:ai',
    ])
  })

  for (const order of ['hitl-first', 'strata-first'] as const) {
    for (const decision of [
      { type: 'edit', editedAction: { name: 'weather', args: { city: 'Lyon' } } },
      { type: 'reject', message: 'Not Paris: ask me which city.' },
    ] as const) {
      it(`with humanInTheLoopMiddleware (${decision.type}, ${order}): each call stored once, the state is the prompt`, async () => {
        const memory = createMemory()
        const threadId = `compact-hitl-${decision.type}-${order}`
        const model = scriptedModel([
          { calls: [{ name: 'weather', args: { city: 'Paris' }, id: 'c1' }] },
          'Done.',
          'Anything else?',
        ])
        const hitl = humanInTheLoopMiddleware({ interruptOn: { weather: true } })
        const strata = strataMiddleware({ memory, state: 'compact' })
        const agent = createAgent({
          model,
          tools: [weather],
          checkpointer: new MemorySaver(),
          middleware: order === 'hitl-first' ? [hitl, strata] : [strata, hitl],
        })
        const config = { configurable: { thread_id: threadId } }
        await agent.invoke({ messages: [new HumanMessage('Weather?')] }, config)
        await agent.invoke(new Command({ resume: { decisions: [decision] } }), config)
        await agent.invoke({ messages: [new HumanMessage('Thanks.')] }, config)

        expect(await storedMessages(await memory.thread(threadId))).toEqual([
          'user:Weather?',
          'assistant: →weather#c1',
          'tool:#c1',
          'assistant:Done.',
          'user:Thanks.',
          'assistant:Anything else?',
        ])
        const sent = nonSystem(model.calls[1]!.messages).map(wire)
        expect(sent.at(-2)).toBe(
          decision.type === 'edit' ? 'ai: →weather#c1{"city":"Lyon"}' : 'ai: →weather#c1{"city":"Paris"}',
        )
        const values = (await agent.graph.getState(config)).values as { messages: BaseMessage[] }
        expect(values.messages.map(wire)).toEqual([
          ...nonSystem(model.calls[2]!.messages).map(wire),
          'ai:Anything else?',
        ])
      })
    }
  }

  it('refuses an unknown state mode when it is created', () => {
    let error: unknown
    try {
      strataMiddleware({ memory: createMemory(), state: 'small' as never })
    } catch (caught) {
      error = caught
    }
    expect(StrataError.isInstance(error, 'STRATA_INVALID_OPTIONS')).toBe(true)
  })
})
