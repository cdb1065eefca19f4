import { awaitAllCallbacks } from '@langchain/core/callbacks/promises'
import { AIMessage, HumanMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { tool } from '@langchain/core/tools'
import { BaseTracer, type Run } from '@langchain/core/tracers/base'
import { createMemory, type TelemetryTracer } from '@strata-memory/core'
import { createAgent, createMiddleware } from 'langchain'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { strataMiddleware } from '../middleware/strata-middleware'
import { langchainSummarizer } from '../summarizer/langchain-summarizer'
import { scriptedModel, weather } from '../testing/agent'
import { langchainTracing, STRATA_RUN_TAG } from './tracer'

/** A LangChain tracer keeping every run it saw end, as an app's callback tracer does. */
class CollectingTracer extends BaseTracer {
  name = 'collecting_tracer'
  readonly runs: Run[] = []

  protected async persistRun() {}

  override onRunUpdate(run: Run) {
    this.runs.push(run)
  }

  named(name: string) {
    return this.runs.filter((run) => run.name === name)
  }

  strata() {
    return this.runs.filter((run) => run.name.startsWith('strata.'))
  }

  /** The names of a run's ancestors, nearest first. */
  ancestors(run: Run) {
    const names: string[] = []
    for (let id = run.parent_run_id; id !== undefined; ) {
      const parent = this.runs.find((candidate) => candidate.id === id)
      if (parent === undefined) break
      names.push(parent.name)
      id = parent.parent_run_id
    }
    return names
  }
}

/** A tool whose result is over the offload limit: the next context reads it from the content store. */
const report = tool(async () => `Quarterly report: ${'figures '.repeat(700)}`, {
  name: 'report',
  description: 'The quarterly report.',
  schema: z.object({}),
})

function reportAgent(memory: ReturnType<typeof createMemory>, options: { tracing?: boolean } = {}) {
  const model = scriptedModel([{ calls: [{ name: 'report', args: {}, id: 'r1' }] }, 'Revenue grew.'])
  return createAgent({ model, tools: [report], middleware: [strataMiddleware({ memory, ...options })] })
}

const question = () => ({ messages: [new HumanMessage('How did the quarter go?')] })

/** A thread of six question-and-answer turns under a 4 000-token budget, summarized by `summaryModel`. */
async function sixTurns(threadId: string, summaryModel: ReturnType<typeof fakeModel>) {
  const memory = createMemory({
    compaction: { budget: { inputTokens: 4_000 } },
    summarizer: langchainSummarizer({ model: summaryModel, structured: false }),
  })
  const thread = await memory.thread(threadId)
  for (let turn = 1; turn <= 6; turn++) {
    await thread.append([
      { role: 'user', content: `Question ${turn}.` },
      { role: 'assistant', content: `Answer ${turn}.` },
    ])
  }
  return { memory, thread }
}

describe("strataMiddleware passes LangChain's own tracing", () => {
  it("Strata's work shows as child runs of the agent's runs, store calls nested in the context build, with the span attributes", async () => {
    const memory = createMemory()
    const tracer = new CollectingTracer()
    await reportAgent(memory).invoke(question(), {
      configurable: { thread_id: 'traced' },
      callbacks: [tracer],
    })
    await awaitAllCallbacks()

    const contexts = tracer.named('strata.context')
    expect(contexts).toHaveLength(2)
    for (const context of contexts) {
      // The context run is a child of the model call's node run, in the agent's trace.
      expect(tracer.ancestors(context)).toEqual(['model_request', 'LangGraph'])
      expect(context).toMatchObject({
        run_type: 'chain',
        tags: expect.arrayContaining([STRATA_RUN_TAG]),
        inputs: { 'strata.thread.id': 'traced', 'strata.level': 'global' },
        outputs: {
          'strata.context.messages': expect.any(Number),
          'strata.context.tokens': expect.any(Number),
        },
      })
      expect(context.error).toBeUndefined()
    }
    expect(contexts[1]!.outputs).toMatchObject({ 'strata.context.messages': 3 })

    // The second context build shows the offloaded report in full: its store reads are its children.
    const nested = tracer.runs.filter((run) => run.parent_run_id === contexts[1]!.id).map((run) => run.name)
    expect(nested).toEqual(expect.arrayContaining(['strata.store.head', 'strata.store.getContent']))
    const getContent = tracer.named('strata.store.getContent')[0]!
    expect(tracer.ancestors(getContent)).toEqual(['strata.context', 'model_request', 'LangGraph'])
    expect(getContent.inputs).toEqual({ 'strata.store.name': 'memory', 'strata.thread.id': 'traced' })

    // The messages the middleware stores: one append before and one after each model call.
    const appends = tracer.named('strata.store.append')
    expect(appends).toHaveLength(4)
    for (const append of appends) {
      expect(tracer.ancestors(append)).toEqual(['model_request', 'LangGraph'])
      expect(append.outputs).toEqual({ 'strata.store.items': 1 })
    }
    // Every Strata run is in the agent's trace.
    for (const run of tracer.strata()) expect(tracer.ancestors(run).at(-1)).toBe('LangGraph')
  })

  it('a budget compaction nests its summarizer call and store writes; the summarizer model is a child of strata.summarize', async () => {
    const summaryModel = fakeModel().respond(new AIMessage('## Decisions\n- Oslo asked about'))
    const { memory, thread } = await sixTurns('compacted', summaryModel)
    const model = scriptedModel([
      new AIMessage({
        content: '',
        tool_calls: [{ type: 'tool_call', id: 'w1', name: 'weather', args: { city: 'Oslo' } }],
        usage_metadata: { input_tokens: 3_900, output_tokens: 5, total_tokens: 3_905 },
      }),
      'Oslo is sunny.',
    ])
    const agent = createAgent({ model, tools: [weather], middleware: [strataMiddleware({ memory })] })
    const tracer = new CollectingTracer()
    await agent.invoke(
      { messages: [new HumanMessage('Weather in Oslo?')] },
      { configurable: { thread_id: 'compacted' }, callbacks: [tracer] },
    )
    await thread.settled()
    await awaitAllCallbacks()

    const [compaction] = tracer.named('strata.compaction')
    expect(compaction).toBeDefined()
    expect(tracer.ancestors(compaction!)).toEqual(['model_request', 'LangGraph'])
    expect(compaction!.inputs).toMatchObject({
      'strata.compaction.policy': 'budget',
      'strata.compaction.trigger': 'budget',
    })
    expect(compaction!.outputs).toMatchObject({ 'strata.compaction.items_archived': expect.any(Number) })
    const [summarize] = tracer.named('strata.summarize')
    expect(summarize!.parent_run_id).toBe(compaction!.id)
    const children = tracer.runs.filter((run) => run.parent_run_id === compaction!.id).map((run) => run.name)
    expect(children).toEqual(expect.arrayContaining(['strata.summarize', 'strata.store.archive']))
    // The summarizer's own model call runs with the strata.summarize run's callbacks.
    const summaryCall = tracer.runs.find(
      (run) => run.run_type === 'llm' && run.parent_run_id === summarize!.id,
    )
    expect(summaryCall).toBeDefined()
  })

  it('a failure is the run error: a failed summarizer call fails strata.summarize and strata.compaction', async () => {
    const summaryModel = fakeModel().alwaysThrow(new Error('summary model down'))
    const { memory, thread } = await sixTurns('failing', summaryModel)
    const model = scriptedModel([
      new AIMessage({
        content: 'Noted.',
        usage_metadata: { input_tokens: 3_900, output_tokens: 5, total_tokens: 3_905 },
      }),
    ])
    const agent = createAgent({ model, tools: [], middleware: [strataMiddleware({ memory })] })
    const tracer = new CollectingTracer()
    await agent.invoke(
      { messages: [new HumanMessage('Remember this.')] },
      { configurable: { thread_id: 'failing' }, callbacks: [tracer] },
    )
    await thread.settled()
    await awaitAllCallbacks()

    const [summarize] = tracer.named('strata.summarize')
    expect(summarize!.error).toContain('summary model down')
    const [compaction] = tracer.named('strata.compaction')
    expect(compaction!.error).toContain('summary model down')
    // An error run keeps every attribute in its inputs, those set at the end too.
    expect(compaction!.inputs).toMatchObject({
      'strata.compaction.policy': 'budget',
      'strata.compaction.error': expect.stringContaining('summary model down'),
    })
    expect(tracer.named('strata.context')[0]!.error).toBeUndefined()
  })

  it('no Strata runs with tracing: false; the agent is traced as before', async () => {
    const memory = createMemory()
    const tracer = new CollectingTracer()
    await reportAgent(memory, { tracing: false }).invoke(question(), {
      configurable: { thread_id: 'off' },
      callbacks: [tracer],
    })
    await awaitAllCallbacks()
    expect(tracer.named('model_request')).toHaveLength(2)
    expect(tracer.strata()).toEqual([])
  })

  it("the app's own tracer wins: its spans get Strata's work, LangChain's tracing none", async () => {
    const spans: string[] = []
    const appTracer: TelemetryTracer = {
      startActiveSpan: (name, _options, work) => {
        spans.push(name)
        return work({
          setAttribute: () => undefined,
          setAttributes: () => undefined,
          recordException: () => undefined,
          setStatus: () => undefined,
          end: () => undefined,
        }) as ReturnType<typeof work>
      },
    }
    const memory = createMemory({ telemetry: { tracer: appTracer } })
    const tracer = new CollectingTracer()
    await reportAgent(memory).invoke(question(), { configurable: { thread_id: 'app' }, callbacks: [tracer] })
    await awaitAllCallbacks()
    expect(spans).toEqual(expect.arrayContaining(['strata.context', 'strata.store.append']))
    expect(tracer.named('model_request')).toHaveLength(2)
    expect(tracer.strata()).toEqual([])
  })

  it('gives no tracer (no span work) when the run has no callbacks, or only LangGraph’s message streaming', async () => {
    const seen: boolean[] = []
    const probe = createMiddleware({
      name: 'TracingProbe',
      wrapModelCall: async (request, handler) => {
        seen.push(langchainTracing()() !== undefined)
        return handler(request)
      },
    })
    const agent = (memory = createMemory()) =>
      createAgent({
        model: scriptedModel(['Fine.']),
        tools: [],
        middleware: [probe, strataMiddleware({ memory })],
      })
    await agent().invoke(question(), { configurable: { thread_id: 'quiet' } })
    const stream = await agent().stream(question(), {
      configurable: { thread_id: 'streamed' },
      streamMode: 'messages',
    })
    for await (const _ of stream) {
    }
    await agent().invoke(question(), {
      configurable: { thread_id: 'collected' },
      callbacks: [new CollectingTracer()],
    })
    expect(seen).toEqual([false, false, true])
    // Outside any LangChain run: no tracer either.
    expect(langchainTracing()()).toBeUndefined()
  })

  it('a bad tracing option is STRATA_INVALID_OPTIONS', () => {
    expect(() => strataMiddleware({ memory: createMemory(), tracing: 'yes' as never })).toThrow(
      expect.objectContaining({ code: 'STRATA_INVALID_OPTIONS' }),
    )
  })
})
