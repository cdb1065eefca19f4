import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { HumanMessage } from '@langchain/core/messages'
import { Command, MemorySaver } from '@langchain/langgraph'
import { createMemory, type MessageItem, type ToolCallPart, type ToolResultPart } from '@strata-memory/core'
import { fileStore } from '@strata-memory/store-file'
import { createAgent, type HITLResponse, humanInTheLoopMiddleware } from 'langchain'
import { afterEach, describe, expect, it } from 'vitest'
import { scriptedModel, storedMessages, weather } from '../testing/agent'
import { contextProbe } from '../testing/probe'
import { verifyThread } from '../testing/verify-thread'
import { strataMiddleware } from './strata-middleware'

const dirs: string[] = []
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
})

type Decision = HITLResponse['decisions'][number]

/** An agent whose weather calls wait for a human, with Strata (default options) and a checkpointer. */
async function hitlAgent(
  threadId: string,
  script: Parameters<typeof scriptedModel>[0],
  order: 'hitl-first' | 'strata-first',
) {
  const dir = await mkdtemp(join(tmpdir(), 'strata-lc-hitl-'))
  dirs.push(dir)
  const memory = createMemory({ store: fileStore({ dir }) })
  const model = scriptedModel(script)
  const probe = contextProbe(memory, threadId)
  const hitl = humanInTheLoopMiddleware({ interruptOn: { weather: true } })
  const strata = [strataMiddleware({ memory }), probe.middleware]
  const agent = createAgent({
    model,
    tools: [weather],
    checkpointer: new MemorySaver(),
    middleware: order === 'hitl-first' ? [hitl, ...strata] : [...strata, hitl],
  })
  const config = { configurable: { thread_id: threadId } }
  return { dir, memory, model, probe, agent, config }
}

const messagesOf = async (memory: ReturnType<typeof createMemory>, threadId: string) =>
  (await (await memory.thread(threadId)).items()).filter(
    (item): item is MessageItem => item.type === 'message',
  )
const callsIn = (items: readonly MessageItem[]) =>
  items.flatMap((item) => item.content.filter((part): part is ToolCallPart => part.type === 'tool-call'))
const resultsIn = (items: readonly MessageItem[]) =>
  items.flatMap((item) => item.content.filter((part): part is ToolResultPart => part.type === 'tool-result'))

describe('humanInTheLoopMiddleware with strataMiddleware under its default options', {
  timeout: 60_000,
}, () => {
  const cases: { name: string; decision: Decision; args: object; result: RegExp; isError: boolean }[] = [
    {
      name: 'approve',
      decision: { type: 'approve' },
      args: { city: 'Paris' },
      result: /Sunny in Paris/,
      isError: false,
    },
    {
      name: 'edit',
      decision: { type: 'edit', editedAction: { name: 'weather', args: { city: 'Lyon' } } },
      args: { city: 'Lyon' },
      result: /Sunny in Lyon/,
      isError: false,
    },
    {
      name: 'reject',
      decision: { type: 'reject' },
      args: { city: 'Paris' },
      result: /User rejected the tool call/,
      isError: true,
    },
    {
      name: 'reject with a message',
      decision: { type: 'reject', message: 'Not Paris: ask me which city.' },
      args: { city: 'Paris' },
      result: /^Not Paris: ask me which city\.$/,
      isError: true,
    },
  ]
  for (const order of ['hitl-first', 'strata-first'] as const) {
    for (const { name, decision, args, result, isError } of cases) {
      it(`${name} (${order}): each call once with its final arguments and its result, the model sent the thread's context`, async () => {
        const threadId = `hitl-${name.replaceAll(' ', '-')}-${order}`
        const { dir, memory, agent, config, probe } = await hitlAgent(
          threadId,
          [{ calls: [{ name: 'weather', args: { city: 'Paris' }, id: 'c1' }] }, 'Done.', 'Anything else?'],
          order,
        )
        const first = await agent.invoke({ messages: [new HumanMessage('Weather?')] }, config)
        expect(first.__interrupt__).toHaveLength(1)
        await agent.invoke(new Command({ resume: { decisions: [decision] } }), config)
        await agent.invoke({ messages: [new HumanMessage('Thanks.')] }, config)

        const thread = await memory.thread(threadId)
        expect(await storedMessages(thread)).toEqual([
          'user:Weather?',
          'assistant: →weather#c1',
          'tool:#c1',
          'assistant:Done.',
          'user:Thanks.',
          'assistant:Anything else?',
        ])
        const items = await messagesOf(memory, threadId)
        expect(callsIn(items).map((call) => [call.toolCallId, call.input])).toEqual([['c1', args]])
        const [stored] = resultsIn(items)
        expect(String(stored!.output)).toMatch(result)
        expect(stored!.isError === true).toBe(isError)
        // The model was sent exactly the thread's context, on every call.
        expect(probe.calls).toHaveLength(3)
        for (const call of probe.calls) expect(call.sent).toEqual(call.context)
        expect(probe.calls[1]!.sent.at(-2)).toBe(`ai: →weather#c1${JSON.stringify(args)}`)
        expect((await verifyThread(dir, threadId)).ok).toBe(true)
      })
    }
  }

  it('an edit supersedes the stored call: the original arguments stay in its metadata and in the archive', async () => {
    const { memory, agent, config } = await hitlAgent(
      'hitl-edit-meta',
      [{ calls: [{ name: 'weather', args: { city: 'Paris' }, id: 'c1' }] }, 'Done.'],
      'hitl-first',
    )
    await agent.invoke({ messages: [new HumanMessage('Weather?')] }, config)
    await agent.invoke(
      new Command({
        resume: { decisions: [{ type: 'edit', editedAction: { name: 'weather', args: { city: 'Lyon' } } }] },
      }),
      config,
    )
    const items = await messagesOf(memory, 'hitl-edit-meta')
    const answer = items.find((item) => callsIn([item]).length > 0)!
    expect(answer.content[0]!.meta?.langchain).toMatchObject({
      editedCalls: { originalCalls: [{ toolCallId: 'c1', toolName: 'weather', input: { city: 'Paris' } }] },
    })
    const archived = (await memory.store.readArchive('hitl-edit-meta')).filter(
      (item): item is MessageItem => item.type === 'message',
    )
    expect(callsIn(archived).map((call) => call.input)).toEqual([{ city: 'Paris' }])
  })

  it('a rejected call of two drops the other (as the state does): the stored answer holds what the model is shown', async () => {
    const { dir, memory, agent, config, probe } = await hitlAgent(
      'hitl-two-calls',
      [
        {
          calls: [
            { name: 'weather', args: { city: 'Paris' }, id: 'c1' },
            { name: 'weather', args: { city: 'Rome' }, id: 'c2' },
          ],
        },
        'Only Rome then.',
      ],
      'hitl-first',
    )
    await agent.invoke({ messages: [new HumanMessage('Weather in Paris and Rome?')] }, config)
    await agent.invoke(
      new Command({
        resume: { decisions: [{ type: 'reject', message: 'Not Paris.' }, { type: 'approve' }] },
      }),
      config,
    )
    const items = await messagesOf(memory, 'hitl-two-calls')
    const calls = callsIn(items)
    expect(calls.map((call) => call.toolCallId)).toEqual([...new Set(calls.map((call) => call.toolCallId))])
    expect(
      resultsIn(items)
        .map((part) => part.toolCallId)
        .sort(),
    ).toEqual(calls.map((call) => call.toolCallId).sort())
    for (const call of probe.calls) expect(call.sent).toEqual(call.context)
    expect((await verifyThread(dir, 'hitl-two-calls')).threads[0]!.problems).toEqual([])
  })
})
