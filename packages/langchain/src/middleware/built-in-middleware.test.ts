import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { tool } from '@langchain/core/tools'
import { MemorySaver } from '@langchain/langgraph'
import { createMemory, type MessageItem, type ToolCallPart, type ToolResultPart } from '@strata-memory/core'
import { fileStore } from '@strata-memory/store-file'
import {
  type AgentMiddleware,
  ClearToolUsesEdit,
  contextEditingMiddleware,
  createAgent,
  llmToolSelectorMiddleware,
  modelFallbackMiddleware,
  modelRetryMiddleware,
  summarizationMiddleware,
  todoListMiddleware,
  toolCallLimitMiddleware,
  toolRetryMiddleware,
} from 'langchain'
import { afterAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { weather } from '../testing/agent'
import { contextProbe } from '../testing/probe'
import { verifyThread } from '../testing/verify-thread'
import { strataMiddleware } from './strata-middleware'

const dirs: string[] = []
afterAll(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
})

const CITIES = ['Paris', 'Rome', 'Oslo', 'Lima', 'Kyiv', 'Pune']

/** A step of the main model: a tool call, an answer, or a provider error. */
type Step = { call: { name: string; args: Record<string, unknown>; id: string } } | string | Error

/** Six turns: each asks for a city's weather, the model calls the tool, then answers. */
function sixTurns(): Step[] {
  return CITIES.flatMap((city, index) => [
    { call: { name: 'weather', args: { city }, id: `t${index + 1}` } },
    `Sunny in ${city}.`,
  ])
}

function modelOf(steps: readonly Step[]) {
  const model = fakeModel()
  for (const step of steps) {
    if (typeof step === 'string') model.respond(new AIMessage(step))
    else if (step instanceof Error) model.respond(step)
    else model.respond(new AIMessage({ content: '', tool_calls: [{ ...step.call, type: 'tool_call' }] }))
  }
  return model
}

/** A tool that fails on every other call (a flaky service), for toolRetryMiddleware. */
function flakyWeather() {
  let calls = 0
  return tool(
    async ({ city }: { city: string }) => {
      calls++
      if (calls % 2 === 1) throw new Error('weather service timed out')
      return { city, forecast: `Sunny in ${city}` }
    },
    { name: 'weather', description: 'The forecast for a city.', schema: z.object({ city: z.string() }) },
  )
}

const clock = tool(async () => '12:00', {
  name: 'clock',
  description: 'The time of day.',
  schema: z.object({}),
})

/** One built-in middleware's run: its middleware, the main model's steps, the tools, the expected calls. */
interface Case {
  name: string
  middleware: () => AgentMiddleware
  steps?: () => { main: Step[]; fallback?: Step[] }
  tools?: () => Parameters<typeof createAgent>[0]['tools']
  /** The tool call ids stored, each once, with their final arguments. */
  calls?: { id: string; args: Record<string, unknown> }[]
  /** The last model call's system prompt must contain it (a middleware inside Strata adds to it). */
  systemHas?: string
  /** What shows that the other middleware did its work in this run. */
  acted?: (run: Run, order: 'before' | 'after') => Promise<void> | void
}

/** What one six-turn run left. */
interface Run {
  model: ReturnType<typeof fakeModel>
  fallback: ReturnType<typeof fakeModel> | undefined
  results: ToolResultPart[]
  state: BaseMessage[]
  /** Whether Strata ran with `state: 'compact'` (the graph state is then the prompt). */
  compact: boolean
}

/** The messages of the agent's graph state (what its checkpoint holds). */
const stateOf = async (agent: unknown, config: object) =>
  (
    await (agent as { getState(config: object): Promise<{ values: { messages: BaseMessage[] } }> }).getState(
      config,
    )
  ).values.messages

const sentTexts = (model: ReturnType<typeof fakeModel>) =>
  model.calls.flatMap((call) => call.messages.map((message) => message.text))

const defaultCalls = CITIES.map((city, index) => ({ id: `t${index + 1}`, args: { city } }))

const CASES: Case[] = [
  {
    name: 'summarizationMiddleware',
    middleware: () => {
      const summarizer = fakeModel()
      for (let index = 0; index < 30; index++) summarizer.respond(new AIMessage(`Summary ${index + 1}.`))
      return summarizationMiddleware({ model: summarizer, trigger: { messages: 4 }, keep: { messages: 2 } })
    },
    // The graph's state holds LangChain's summary in place of the summarized messages; under
    // state: 'compact' it holds what the model was shown (Strata's context) instead.
    acted: ({ state, compact }) => {
      if (compact) expect(state[0]!.additional_kwargs.memory_level).toBe('global')
      else expect(state[0]!.additional_kwargs.lc_source).toBe('summarization')
      expect(state.length).toBeLessThan(compact ? 30 : 12)
    },
  },
  {
    name: 'contextEditingMiddleware',
    middleware: () =>
      contextEditingMiddleware({
        edits: [new ClearToolUsesEdit({ trigger: { tokens: 40 }, keep: { messages: 1 } })],
        tokenCountMethod: 'approx',
      }),
    // Inside Strata it clears old results in what the model is sent; outside, Strata's context replaces
    // the request it edited, so the model gets the thread's context whole.
    acted: ({ model }, order) => {
      expect(sentTexts(model).includes('[cleared]')).toBe(order === 'after')
    },
  },
  {
    name: 'toolRetryMiddleware',
    middleware: () => toolRetryMiddleware({ maxRetries: 2, initialDelayMs: 0, jitter: false }),
    tools: () => [flakyWeather()],
    acted: ({ results }) => {
      expect(results.map((result) => result.isError === true)).toEqual(CITIES.map(() => false))
    },
  },
  {
    name: 'modelRetryMiddleware',
    middleware: () => modelRetryMiddleware({ maxRetries: 2, initialDelayMs: 0, jitter: false }),
    steps: () => {
      const main = sixTurns()
      main.splice(2, 0, new Error('Overloaded'))
      main.splice(7, 0, new Error('Overloaded'))
      return { main }
    },
    acted: ({ model }) => {
      expect(model.callCount).toBe(14)
    },
  },
  {
    name: 'modelFallbackMiddleware',
    // Built in `run`, with the fallback model of the steps.
    middleware: () => {
      throw new Error('modelFallbackMiddleware is built with its steps')
    },
    steps: () => {
      const main = sixTurns()
      const fallback = [main[4]!, main[9]!] as Step[]
      main[4] = new Error('primary down')
      main[9] = new Error('primary down')
      return { main, fallback }
    },
    acted: ({ fallback }) => {
      expect(fallback!.callCount).toBe(2)
    },
  },
  {
    name: 'toolCallLimitMiddleware',
    middleware: () => toolCallLimitMiddleware({ threadLimit: 4 }),
    // The fifth call is blocked with an error result and the run ends; the sixth turn is answered
    // without a call.
    steps: () => {
      const main = sixTurns().slice(0, 9)
      main.push('No more lookups today.')
      return { main }
    },
    calls: defaultCalls.slice(0, 5),
    acted: ({ results }) => {
      expect(results.map((result) => result.isError === true)).toEqual([false, false, false, false, true])
      expect(String(results[4]!.output)).toMatch(/Tool call limit exceeded/)
    },
  },
  {
    name: 'todoListMiddleware',
    middleware: () => todoListMiddleware(),
    steps: () => {
      const main = sixTurns()
      main[0] = {
        call: {
          name: 'write_todos',
          args: { todos: [{ content: 'Check Paris', status: 'in_progress' }] },
          id: 'todo1',
        },
      }
      main.splice(1, 0, { call: { name: 'weather', args: { city: 'Paris' }, id: 't1' } })
      return { main }
    },
    calls: [
      { id: 'todo1', args: { todos: [{ content: 'Check Paris', status: 'in_progress' }] } },
      ...defaultCalls,
    ],
    systemHas: 'write_todos',
  },
  {
    name: 'llmToolSelectorMiddleware',
    middleware: () =>
      llmToolSelectorMiddleware({ model: fakeModel().structuredResponse({ tools: ['weather'] }) }),
    tools: () => [weather, clock],
  },
]

async function run(testCase: Case, order: 'alone' | 'before' | 'after', state: 'full' | 'compact' = 'full') {
  const dir = await mkdtemp(join(tmpdir(), 'strata-lc-mw-'))
  dirs.push(dir)
  const threadId = `${testCase.name}-${order}-${state}`
  const memory = createMemory({ store: fileStore({ dir }) })
  const { main, fallback } = testCase.steps?.() ?? { main: sixTurns() }
  const model = modelOf(main)
  const fallbackModel = fallback === undefined ? undefined : modelOf(fallback)
  const other =
    order === 'alone'
      ? undefined
      : fallbackModel === undefined
        ? testCase.middleware()
        : modelFallbackMiddleware(fallbackModel)
  const probe = contextProbe(memory, threadId)
  const strata = [strataMiddleware({ memory, state }), probe.middleware]
  const middleware = order === 'alone' ? strata : order === 'before' ? [other, ...strata] : [...strata, other]
  const agent = createAgent({
    model,
    tools: testCase.tools?.() ?? [weather],
    checkpointer: new MemorySaver(),
    middleware: middleware as AgentMiddleware[],
  })
  const config = { configurable: { thread_id: threadId } }
  for (const city of CITIES)
    await agent.invoke({ messages: [new HumanMessage(`Weather in ${city}?`)] }, config)
  const messages = await stateOf(agent, config)
  return { dir, memory, threadId, probe, model, fallbackModel, messages }
}

describe('strataMiddleware beside LangChain’s built-in middleware, six turns with tool calls', {
  timeout: 60_000,
}, () => {
  for (const testCase of CASES) {
    for (const [order, state] of [
      ['before', 'full'],
      ['after', 'full'],
      ['before', 'compact'],
      ['after', 'compact'],
    ] as const) {
      it(`${testCase.name} ${order} Strata (state: '${state}'): verify is clean, each call stored once with its final arguments and its result, the model sent the thread's context`, async () => {
        const { dir, memory, threadId, probe, model, fallbackModel, messages } = await run(
          testCase,
          order,
          state,
        )
        expect((await verifyThread(dir, threadId)).threads[0]!.problems).toEqual([])
        const items = (await (await memory.thread(threadId)).items()).filter(
          (item) => item.type === 'message',
        ) as MessageItem[]
        const calls = items.flatMap((item) =>
          item.content.filter((part): part is ToolCallPart => part.type === 'tool-call'),
        )
        const results = items.flatMap((item) =>
          item.content.filter((part): part is ToolResultPart => part.type === 'tool-result'),
        )
        const expected = testCase.calls ?? defaultCalls
        expect(calls.map((call) => ({ id: call.toolCallId, args: call.input }))).toEqual(expected)
        expect(results.map((result) => result.toolCallId)).toEqual(expected.map((call) => call.id))
        expect(items.filter((item) => item.role === 'user').map((item) => item.content[0])).toMatchObject(
          CITIES.map((city) => ({ type: 'text', text: `Weather in ${city}?` })),
        )
        expect(probe.calls.length).toBeGreaterThanOrEqual(10)
        for (const call of probe.calls) expect(call.sent).toEqual(call.context)
        const compact = state === 'compact'
        await testCase.acted?.({ model, fallback: fallbackModel, results, state: messages, compact }, order)
        if (testCase.systemHas !== undefined)
          expect(model.calls.at(-1)!.messages[0]!.text).toContain(testCase.systemHas)
      })
    }
  }
})

describe('strataMiddleware alone over the same six turns', () => {
  it('verify is clean, each call stored once, the model sent the thread’s context', async () => {
    const alone: Case = {
      name: 'strata',
      middleware: () => {
        throw new Error('no other middleware')
      },
    }
    const { dir, memory, threadId, probe } = await run(alone, 'alone')
    expect((await verifyThread(dir, threadId)).threads[0]!.problems).toEqual([])
    const items = (await (await memory.thread(threadId)).items()).filter(
      (item) => item.type === 'message',
    ) as MessageItem[]
    expect(items).toHaveLength(24)
    expect(probe.calls).toHaveLength(12)
    for (const call of probe.calls) expect(call.sent).toEqual(call.context)
  })
})

describe('summarizationMiddleware (trigger 4 messages, keep 2) and Strata over ten invokes', () => {
  for (const history of [undefined, 'full'] as const) {
    it(`history ${history ?? 'by default'}: no error; the thread keeps every message once; the model gets the thread's context`, async () => {
      const memory = createMemory()
      const summarizer = fakeModel()
      for (let index = 0; index < 20; index++) summarizer.respond(new AIMessage(`Summary ${index + 1}.`))
      const model = fakeModel()
      for (let turn = 1; turn <= 10; turn++) model.respond(new AIMessage(`Answer ${turn}.`))
      const probe = contextProbe(memory, 'summarized')
      const agent = createAgent({
        model,
        checkpointer: new MemorySaver(),
        middleware: [
          summarizationMiddleware({ model: summarizer, trigger: { messages: 4 }, keep: { messages: 2 } }),
          strataMiddleware({ memory, ...(history === undefined ? {} : { history }) }),
          probe.middleware,
        ],
      })
      const config = { configurable: { thread_id: 'summarized' } }
      for (let turn = 1; turn <= 10; turn++)
        await agent.invoke({ messages: [new HumanMessage(`Question ${turn}.`)] }, config)
      const thread = await memory.thread('summarized')
      const texts = (await thread.items()).flatMap((item) =>
        item.type === 'message' && item.content[0]?.type === 'text' ? [item.content[0].text] : [],
      )
      expect(texts).toEqual(
        Array.from({ length: 10 }, (_, index) => [`Question ${index + 1}.`, `Answer ${index + 1}.`]).flat(),
      )
      for (const call of probe.calls) expect(call.sent).toEqual(call.context)
      const state = (await stateOf(agent, config)) as BaseMessage[]
      expect(state[0]!.additional_kwargs.lc_source).toBe('summarization')
    })
  }
})
