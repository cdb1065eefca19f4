import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Mastra } from '@mastra/core'
import { Agent } from '@mastra/core/agent'
import { InMemoryStore } from '@mastra/core/storage'
import { createTool } from '@mastra/core/tools'
import { createMemory, inMemoryStore, type Memory, StrataError } from '@strata-memory/core'
import { expectThreadFree, storedThread } from '@strata-memory/core/testing'
import { fileStore } from '@strata-memory/store-file'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { strataErrorOf } from '../errors/strata-error-of'
import { weatherTool } from '../testing/agent-harness'
import { type ScriptedStep, scriptedModel } from '../testing/scripted-model'
import { THREAD_BUSY_ERROR_ID } from './request-hold'
import { StrataMemory } from './strata-memory'

/** A promise and the function that settles it. */
function gate() {
  let open!: () => void
  const opened = new Promise<void>((resolve) => {
    open = resolve
  })
  return { opened, open }
}

/** A tool that waits for `wait` before it answers: the request holding the thread stays in its tool step. */
const slowTool = (wait: Promise<void>, started: () => void) =>
  createTool({
    id: 'order',
    description: 'Orders an item.',
    execute: async () => {
      started()
      await wait
      return { ordered: true }
    },
  })

function agentOn(memory: Memory, steps: readonly ScriptedStep[], tools: Record<string, unknown> = {}) {
  const { model, prompts } = scriptedModel(steps)
  const strata = new StrataMemory({ memory, tools: false })
  const agent = new Agent({
    id: 'shop',
    name: 'shop',
    instructions: 'Be brief.',
    model,
    tools: { weather: weatherTool, ...tools } as never,
    memory: strata,
  })
  return { agent, strata, prompts }
}

const call = (thread: string) => ({ memory: { thread, resource: 'ana' }, maxSteps: 4 })

/** A tool that needs the user's approval before it runs. */
const payTool = () =>
  createTool({
    id: 'pay',
    description: 'Pays an invoice.',
    inputSchema: z.object({ id: z.string() }),
    requireApproval: true,
    execute: async () => ({ paid: true }),
  })

/** A Mastra app with one agent on a `StrataMemory` over `store`: what one server process holds. */
function toolApp(
  store: ReturnType<typeof inMemoryStore>,
  storage: InMemoryStore,
  tools: Record<string, unknown>,
  steps: readonly ScriptedStep[],
) {
  const { model, prompts } = scriptedModel(steps)
  const strata = new StrataMemory({ memory: createMemory({ store }), tools: false })
  const agent = new Agent({
    id: 'worker',
    name: 'worker',
    instructions: 'Be brief.',
    model,
    tools: tools as never,
    memory: strata,
  })
  new Mastra({ agents: { worker: agent }, storage, logger: false })
  return { agent, strata, prompts }
}

const rejection = async (work: Promise<unknown>) => {
  try {
    await work
  } catch (error) {
    return error
  }
  throw new Error('expected the request to be refused')
}

/**
 * The refusal as a Mastra user meets it. The processor throws a `MastraError` (id `STRATA_THREAD_BUSY`,
 * the `StrataError` as cause); Mastra's agent loop passes a processor's error on as an `Error` that
 * keeps its fields (`code` from the id, `domain`, `category`, the cause's `code`) but not its class.
 */
function expectBusy(error: unknown) {
  expect(error).toBeInstanceOf(Error)
  expect(error).toMatchObject({ code: THREAD_BUSY_ERROR_ID, domain: 'MASTRA_MEMORY', category: 'USER' })
  expect((error as Error).cause).toMatchObject({ code: 'STRATA_THREAD_BUSY' })
  const strata = strataErrorOf(error)
  expect(StrataError.isInstance(strata, 'STRATA_THREAD_BUSY')).toBe(true)
}

describe('one request at a time per thread', () => {
  it('a second request on a thread in use is refused before it stores anything; the first completes, its tool call paired', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ store })
    const { opened, open } = gate()
    const inTool = gate()
    const { agent, strata, prompts } = agentOn(
      memory,
      [{ toolCalls: [{ id: 'c1', name: 'order', input: { item: 'paper' } }] }, { text: 'Paper ordered.' }],
      { order: slowTool(opened, inTool.open) },
    )
    const first = agent.generate('Order paper.', call('orders'))
    await inTool.opened
    const threadId = (await strata.thread('orders')).id
    const before = await storedThread(store, threadId)

    expectBusy(await rejection(agent.generate('Order ink.', call('orders'))))
    expect(await storedThread(store, threadId)).toEqual(before)
    expect(prompts).toHaveLength(1)

    open()
    expect((await first).text).toBe('Paper ordered.')
    const thread = await strata.thread('orders')
    expect((await thread.toolInteractions()).map((interaction) => interaction.status)).toEqual(['success'])
    // The thread is free again.
    const next = agentOn(memory, [{ text: 'Ink ordered.' }])
    expect((await next.agent.generate('Order ink.', call('orders'))).text).toBe('Ink ordered.')
  })

  it('a request racing another process’s creation of the same thread is refused busy in Mastra’s shape, not as AGENT_GENERATE_FAILED', async () => {
    const store = inMemoryStore()
    const { opened, open } = gate()
    const inTool = gate()
    const first = agentOn(
      createMemory({ store }),
      [{ toolCalls: [{ id: 'c1', name: 'order', input: { item: 'paper' } }] }, { text: 'Paper ordered.' }],
      { order: slowTool(opened, inTool.open) },
    )
    const running = first.agent.generate('Order paper.', call('race'))
    await inTool.opened
    const threadId = (await first.strata.thread('race')).id
    const before = await storedThread(store, threadId)
    // The other process read the thread before the first one stored it: Mastra's first step creates it.
    const other = agentOn(createMemory({ store }), [{ text: 'Ink ordered.' }])
    const created = await other.strata.createThread({ threadId: 'race', resourceId: 'ana' })
    expect(created).toMatchObject({ id: 'race', resourceId: 'ana' })
    expectBusy(await rejection(other.agent.generate('Order ink.', call('race'))))
    expect(await storedThread(store, threadId)).toEqual(before)
    expect(other.prompts).toHaveLength(0)
    open()
    expect((await running).text).toBe('Paper ordered.')
  })

  it('a save that changes a thread another process holds is still refused busy', async () => {
    const store = inMemoryStore()
    const here = agentOn(createMemory({ store }), [{ text: 'Hello.' }])
    await here.agent.generate('Hello.', call('titled'))
    const threadId = (await here.strata.thread('titled')).id
    const hold = await (await createMemory({ store }).thread(threadId)).hold()
    await expect(
      here.strata.saveThread({
        thread: {
          id: 'titled',
          resourceId: 'ana',
          title: 'Renamed',
          createdAt: new Date(),
          updatedAt: new Date(),
        },
      }),
    ).rejects.toMatchObject({ code: 'STRATA_THREAD_BUSY' })
    await hold.release()
  })

  it('a stream on a thread another process holds is refused before it stores anything', async () => {
    const store = inMemoryStore()
    const { agent, strata, prompts } = agentOn(createMemory({ store }), [{ text: 'Hello again.' }])
    await agent.generate('Hello.', call('streams'))
    const threadId = (await strata.thread('streams')).id
    // Another process's request holds the thread.
    const hold = await (await createMemory({ store }).thread(threadId)).hold()
    const before = await storedThread(store, threadId)
    const output = await agent.stream('Still there?', call('streams'))
    await output.consumeStream()
    expectBusy(output.error)
    expect(await storedThread(store, threadId)).toEqual(before)
    expect(prompts).toHaveLength(1)
    await hold.release()
  })

  it('another process on the same store is refused too (the store’s lease), and stores nothing', async () => {
    const store = inMemoryStore()
    const { opened, open } = gate()
    const inTool = gate()
    const here = agentOn(
      createMemory({ store }),
      [{ toolCalls: [{ id: 'c1', name: 'order', input: { item: 'paper' } }] }, { text: 'Paper ordered.' }],
      { order: slowTool(opened, inTool.open) },
    )
    const first = here.agent.generate('Order paper.', call('shared'))
    await inTool.opened
    const threadId = (await here.strata.thread('shared')).id
    const before = await storedThread(store, threadId)
    const elsewhere = agentOn(createMemory({ store }), [{ text: 'never' }])
    expectBusy(await rejection(elsewhere.agent.generate('Hi', call('shared'))))
    expect(elsewhere.prompts).toHaveLength(0)
    expect(await storedThread(store, threadId)).toEqual(before)
    open()
    await first
  })

  it('a request that throws mid-way gives the thread back', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ store })
    const { agent, strata } = agentOn(memory, [
      { toolCalls: [{ id: 'w1', name: 'weather', input: { city: 'Faro' } }] },
      () => {
        throw new Error('provider down')
      },
    ])
    await expect(agent.generate('Weather in Faro?', call('dies'))).rejects.toThrow()
    const threadId = (await strata.thread('dies')).id
    // Another process can take the thread at once: nothing holds it.
    await expectThreadFree(store, threadId)
    const next = agentOn(memory, [{ text: 'Sunny in Faro.' }])
    expect((await next.agent.generate('Again?', call('dies'))).text).toBe('Sunny in Faro.')
  })

  it('a tool call waiting for approval ends the request: the thread is free meanwhile; the approved run goes on with it, storing nothing twice', async () => {
    const store = inMemoryStore()
    const { agent, strata } = toolApp(store, new InMemoryStore(), { pay: payTool() }, [
      { toolCalls: [{ id: 'p1', name: 'pay', input: { id: 'INV-1' } }] },
      { text: 'Paid.' },
    ])
    const waiting = await agent.generate('Pay INV-1.', call('approval'))
    expect(waiting.finishReason).toBe('suspended')
    const threadId = (await strata.thread('approval')).id
    // Another process may take the thread while the approval waits.
    await expectThreadFree(store, threadId)

    const done = await agent.approveToolCallGenerate({ runId: waiting.runId!, toolCallId: 'p1' })
    expect(done.text).toBe('Paid.')
    const messages = (await (await strata.thread('approval')).items()).filter(
      (item) => item.type === 'message',
    )
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
    // And the approved run gave the thread back.
    await expectThreadFree(store, threadId)
  })
})

describe('a run resumed by another process', () => {
  it('an approval sent to another process goes on where the first stopped, storing nothing twice', async () => {
    const store = inMemoryStore()
    const storage = new InMemoryStore()
    const first = toolApp(store, storage, { pay: payTool() }, [
      { toolCalls: [{ id: 'p1', name: 'pay', input: { id: 'INV-1' } }] },
    ])
    const waiting = await first.agent.generate('Pay INV-1.', call('elsewhere'))
    expect(waiting.finishReason).toBe('suspended')
    const second = toolApp(store, storage, { pay: payTool() }, [{ text: 'Paid.' }])
    const done = await second.agent.approveToolCallGenerate({ runId: waiting.runId!, toolCallId: 'p1' })
    expect(done.text).toBe('Paid.')
    const items = await (await second.strata.thread('elsewhere')).items()
    const messages = items.filter((item) => item.type === 'message')
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
    // The second process's model saw the conversation once, ending with the tool's result.
    expect(
      second.prompts[0]!.filter((message) => message.role !== 'system').map((message) => message.role),
    ).toEqual(['user', 'assistant', 'tool'])
  })
})

describe('a run an input processor aborts', () => {
  it("(a guardrail's abort()) stores nothing and leaves the thread free for the next call", async () => {
    const store = inMemoryStore()
    const { model, prompts } = scriptedModel([{ text: 'Hello.' }, { text: 'Fine.' }])
    const guardrail = {
      id: 'guardrail',
      name: 'guardrail',
      processInput: async ({
        messages,
        abort,
      }: {
        messages: unknown[]
        abort: (reason: string) => never
      }) => {
        if (JSON.stringify(messages).includes('BLOCKED')) abort('blocked input')
        return messages
      },
    }
    const strata = new StrataMemory({ memory: createMemory({ store }), tools: false })
    const agent = new Agent({
      id: 'guarded',
      name: 'guarded',
      instructions: 'Be brief.',
      model,
      memory: strata,
      inputProcessors: [guardrail as never],
    })
    await agent.generate('Hi.', call('guarded'))
    const threadId = (await strata.thread('guarded')).id
    const before = await storedThread(store, threadId)
    const blocked = await agent.generate('Say BLOCKED things.', call('guarded'))
    expect(blocked.tripwire).toBeTruthy()
    expect(await storedThread(store, threadId)).toEqual(before)
    await expectThreadFree(store, threadId)
    expect((await agent.generate('How are you?', call('guarded'))).text).toBe('Fine.')
    expect(prompts).toHaveLength(2)
  })
})

describe('a suspended tool', () => {
  it('ends the request: the thread is free meanwhile; the resumed run goes on with it, storing nothing twice', async () => {
    const store = inMemoryStore()
    const ask = createTool({
      id: 'ask',
      description: 'Asks the user a question and waits for the answer.',
      inputSchema: z.object({ question: z.string() }),
      suspendSchema: z.object({ question: z.string() }),
      resumeSchema: z.object({ answer: z.string() }),
      execute: async (input, context) => {
        const answer = (context?.agent?.resumeData as { answer?: string } | undefined)?.answer
        if (answer === undefined) return await context?.agent?.suspend({ question: input.question })
        return { answer }
      },
    })
    const { agent, strata, prompts } = toolApp(store, new InMemoryStore(), { ask }, [
      { toolCalls: [{ id: 'q1', name: 'ask', input: { question: 'Which colour?' } }] },
      { text: 'Blue it is.' },
      { text: 'Hello again.' },
    ])
    const stream = await agent.stream('Paint the door.', call('suspended'))
    const kinds: string[] = []
    for await (const chunk of stream.fullStream) kinds.push(chunk.type)
    expect(kinds).toContain('tool-call-suspended')
    expect(await stream.finishReason).toBe('suspended')
    const threadId = (await strata.thread('suspended')).id
    await expectThreadFree(store, threadId)

    const resumed = await agent.resumeStream(
      { answer: 'blue' },
      { runId: stream.runId, ...call('suspended') },
    )
    expect(await resumed.text).toBe('Blue it is.')
    const messages = (await (await strata.thread('suspended')).items()).filter(
      (item) => item.type === 'message',
    )
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
    await expectThreadFree(store, threadId)
    expect((await agent.generate('Hello.', call('suspended'))).text).toBe('Hello again.')
    expect(prompts).toHaveLength(3)
  })
})

describe('a refused call leaves the thread exactly as it was', () => {
  it('a request over the budget is refused with STRATA_BUDGET_EXCEEDED before anything is stored', async () => {
    const store = inMemoryStore()
    const seeded = agentOn(createMemory({ store }), [{ text: 'Hello.' }])
    await seeded.agent.generate('Hello.', call('budget'))
    const threadId = (await seeded.strata.thread('budget')).id
    // The same thread under a budget the instructions and tool definitions nearly fill.
    const { agent, prompts } = agentOn(
      createMemory({ store, compaction: { budget: { inputTokens: 120 } } }),
      [{ text: 'never' }],
    )
    const before = await storedThread(store, threadId)
    const refused = await rejection(
      agent.generate(`Please read this: ${'word '.repeat(600)}`, call('budget')),
    )
    expect(strataErrorOf(refused)?.code).toBe('STRATA_BUDGET_EXCEEDED')
    expect(await storedThread(store, threadId)).toEqual(before)
    expect(prompts).toHaveLength(0)
    // The refusal gave the thread back.
    await expectThreadFree(store, threadId)
  })
})

describe('two processes on one memory folder (the file store’s lease)', () => {
  it('a request while another process’s request holds the thread is refused and stores nothing; the other completes, paired', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'strata-mastra-hold-'))
    try {
      const store = fileStore({ dir })
      const { opened, open } = gate()
      const inTool = gate()
      const here = agentOn(
        createMemory({ store }),
        [{ toolCalls: [{ id: 'c1', name: 'order', input: { item: 'paper' } }] }, { text: 'Paper ordered.' }],
        { order: slowTool(opened, inTool.open) },
      )
      const first = here.agent.generate('Order paper.', call('orders'))
      await inTool.opened
      const threadId = (await here.strata.thread('orders')).id
      const before = await storedThread(store, threadId)
      // Another process: its own store object on the same folder.
      const elsewhere = agentOn(createMemory({ store: fileStore({ dir }) }), [{ text: 'never' }])
      expectBusy(await rejection(elsewhere.agent.generate('Order ink.', call('orders'))))
      expect(elsewhere.prompts).toHaveLength(0)
      expect(await storedThread(store, threadId)).toEqual(before)
      open()
      expect((await first).text).toBe('Paper ordered.')
      const thread = await createMemory({ store: fileStore({ dir }) }).thread(threadId)
      const messages = (await thread.items()).filter((item) => item.type === 'message')
      expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
      expect((await thread.toolInteractions()).map((interaction) => interaction.status)).toEqual(['success'])
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
