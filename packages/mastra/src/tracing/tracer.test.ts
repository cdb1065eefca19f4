import { Agent } from '@mastra/core/agent'
import { Mastra } from '@mastra/core/mastra'
import type { AnyExportedSpan } from '@mastra/core/observability'
import { createTool } from '@mastra/core/tools'
import { Observability, SamplingStrategyType, TestExporter } from '@mastra/observability'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { createMemory, type Memory, type Summarizer } from '@strata-memory/core'
import { afterEach, describe, expect, it } from 'vitest'
import { StrataMemory, type StrataMemoryOptions } from '../memory/strata-memory'
import { type ScriptedStep, scriptedModel } from '../testing/scripted-model'
import { mastraTracer } from './tracer'

const call = { memory: { thread: 'ana@example.com/trip', resource: 'ana' }, maxSteps: 4 }

/** Whether Mastra gave Strata a tracer while the `probe` tool ran, one entry per call. */
const probed: boolean[] = []
const probeTool = createTool({
  id: 'probe',
  description: 'Looks at the tracing in force.',
  execute: async () => {
    probed.push(mastraTracer() !== undefined)
    return { ok: true }
  },
})

/** A tool the app gives its agent that compacts the thread now (as a "tidy up" command would). */
const compactTool = (strata: () => StrataMemory) =>
  createTool({
    id: 'compact_now',
    description: 'Compacts the conversation.',
    execute: async () => {
      await (await strata().thread(call.memory.thread)).compact({ force: true })
      return { ok: true }
    },
  })

const shutdowns: (() => Promise<void>)[] = []
afterEach(async () => {
  probed.length = 0
  for (const shutdown of shutdowns.splice(0)) await shutdown()
})

/**
 * A real Mastra with a real agent on a scripted model and a `StrataMemory`; with `observe`, Mastra
 * observability on, exporting to Mastra's own in-memory `TestExporter` (`'sampled-out'`: on, but
 * sampling no trace).
 */
function mastraWith(
  memory: Memory,
  steps: readonly ScriptedStep[],
  {
    observe = true,
    ...options
  }: Omit<StrataMemoryOptions, 'memory'> & { observe?: boolean | 'sampled-out' } = {},
) {
  const { model } = scriptedModel(steps)
  const strata = new StrataMemory({ memory, ...options })
  const exporter = new TestExporter()
  const sampling =
    observe === 'sampled-out'
      ? { type: SamplingStrategyType.NEVER as const }
      : { type: SamplingStrategyType.ALWAYS as const }
  const observability = observe
    ? new Observability({
        configs: { test: { serviceName: 'strata-test', exporters: [exporter], sampling } },
      })
    : undefined
  const mastra = new Mastra({
    logger: false,
    agents: {
      helper: new Agent({
        id: 'helper',
        name: 'helper',
        instructions: 'Be brief.',
        model,
        tools: { probe: probeTool, compact_now: compactTool(() => strata) },
        memory: strata,
      }),
    },
    ...(observability === undefined ? {} : { observability }),
  })
  if (observability !== undefined) shutdowns.push(() => observability.shutdown())
  const spans = async () => {
    await observability?.flush()
    return exporter.getCompletedSpans()
  }
  return { agent: mastra.getAgent('helper'), strata, spans }
}

const strataSpans = (spans: AnyExportedSpan[]) => spans.filter((span) => span.name.startsWith('strata.'))
/** A span's attributes as Strata set them (Mastra types them per span type). */
const attributesOf = (span: AnyExportedSpan) => (span.attributes ?? {}) as Record<string, unknown>
const named = (spans: AnyExportedSpan[], name: string) => spans.filter((span) => span.name === name)

/** The chain of spans from `span` up to its trace's root, by parent span id. */
function ancestors(spans: AnyExportedSpan[], span: AnyExportedSpan): AnyExportedSpan[] {
  const byId = new Map(spans.map((each) => [each.id, each]))
  const chain: AnyExportedSpan[] = []
  for (let parent = byId.get(span.parentSpanId ?? ''); parent; parent = byId.get(parent.parentSpanId ?? '')) {
    chain.push(parent)
  }
  return chain
}

const parentOf = (spans: AnyExportedSpan[], span: AnyExportedSpan) => ancestors(spans, span)[0]

/** Six turns stored before the run, so a compaction has something to summarize. */
async function pastTurns(strata: StrataMemory) {
  await strata.saveThread({
    thread: { id: call.memory.thread, resourceId: 'ana', createdAt: new Date(), updatedAt: new Date() },
  })
  const thread = await strata.thread(call.memory.thread)
  for (let turn = 1; turn <= 6; turn++) {
    await thread.append({
      role: 'user',
      content: `Day ${turn}: ${'what should we see in Lisbon? '.repeat(12)}`,
    })
    await thread.append({
      role: 'assistant',
      content: `Day ${turn}: ${'the tram to Belém, then pastries. '.repeat(12)}`,
    })
  }
}

describe("Strata's spans in Mastra's traces", () => {
  it("a run's context builds and store calls are Mastra spans under the run's processor and tool spans", async () => {
    const memory = createMemory()
    const { agent, strata, spans } = mastraWith(memory, [
      { toolCalls: [{ id: 'c1', name: 'memory_store', input: { content: 'Ana prefers trams to taxis' } }] },
      { text: 'Noted: trams.' },
    ])
    const result = await agent.generate('Remember that I prefer trams.', call)
    expect(result.text).toBe('Noted: trams.')
    const all = await spans()
    const run = all.find((span) => span.type === 'agent_run')
    expect(run?.traceId).toBe(result.traceId)
    const threadId = (await strata.thread(call.memory.thread)).id

    const ours = strataSpans(all)
    expect(ours.length).toBeGreaterThan(0)
    for (const span of ours) {
      expect(span.type).toBe('memory_operation')
      expect(span.traceId).toBe(run?.traceId)
      expect(ancestors(all, span).at(-1)?.id).toBe(run?.id)
    }

    // One context build per model step, each inside Strata's LLM-request processor span.
    const contexts = named(all, 'strata.context')
    expect(contexts).toHaveLength(2)
    for (const context of contexts) {
      const parent = parentOf(all, context)
      expect(parent).toMatchObject({ type: 'processor_run', entityId: 'strata-memory' })
      expect(parent?.attributes).toMatchObject({ processorPhase: 'llmRequest' })
      expect(context.attributes).toMatchObject({ 'strata.thread.id': threadId, operationType: 'recall' })
      expect(attributesOf(context)['strata.context.messages']).toBeGreaterThan(0)
      expect(attributesOf(context)['strata.context.tokens']).toBeGreaterThan(0)
      expect(context.errorInfo).toBeUndefined()
    }
    // Strata's own nesting holds: the context build's store read is its child.
    // (The request's hold on its thread reads the head too, in the input processor, before any context.)
    const head = named(all, 'strata.store.head').find(
      (span) => parentOf(all, span)?.name === 'strata.context',
    )
    expect(contexts.map((context) => context.id)).toContain(head?.parentSpanId)

    // The model's answer is stored from the output-step processor; the tool's write from the tool span.
    const appends = named(all, 'strata.store.append')
    expect(appends.map((span) => parentOf(all, span)?.attributes)).toContainEqual(
      expect.objectContaining({ processorPhase: 'outputStep' }),
    )
    expect(appends[0]?.attributes).toMatchObject({
      'strata.store.name': 'memory',
      'strata.thread.id': threadId,
      'strata.store.items': 1,
      operationType: 'save',
    })
    const put = named(all, 'strata.store.putContent')
    expect(put).toHaveLength(1)
    expect(put[0] && parentOf(all, put[0])).toMatchObject({ type: 'tool_call', entityId: 'memory_store' })
  })

  it('a failing summarizer: the summarize span ends as a Mastra error, and so does the compaction around it', async () => {
    const failing: Summarizer = {
      name: 'flaky-model',
      async summarize() {
        throw new Error('model unavailable')
      },
    }
    const memory = createMemory({
      summarizer: failing,
      compaction: { budget: { inputTokens: 20_000, rawTailTurns: 1 } },
    })
    const { agent, strata, spans } = mastraWith(memory, [
      { toolCalls: [{ id: 'c1', name: 'compact_now', input: {} }] },
      { text: 'Tidied.' },
    ])
    await pastTurns(strata)
    await agent.generate('Tidy up the conversation.', call)
    const all = await spans()
    const compaction = named(all, 'strata.compaction')
    expect(compaction).toHaveLength(1)
    expect(compaction[0] && parentOf(all, compaction[0])).toMatchObject({
      type: 'tool_call',
      entityId: 'compact_now',
    })
    expect(compaction[0]?.attributes).toMatchObject({
      'strata.compaction.policy': 'budget',
      'strata.compaction.trigger': 'manual',
    })
    expect(compaction[0]?.errorInfo?.message).toContain('model unavailable')
    const summarize = named(all, 'strata.summarize')
    expect(summarize).toHaveLength(1)
    expect(summarize[0]?.parentSpanId).toBe(compaction[0]?.id)
    expect(summarize[0]?.attributes).toMatchObject({ 'strata.summarizer.name': 'flaky-model' })
    expect(summarize[0]?.errorInfo?.message).toContain('model unavailable')
    // The run's other Strata spans did not fail.
    expect(named(all, 'strata.context').map((span) => span.errorInfo)).toEqual([undefined, undefined])
  })

  it('with observability off, Mastra gives Strata no tracer: no span work, the run is stored as ever', async () => {
    const memory = createMemory()
    const { agent, strata } = mastraWith(
      memory,
      [{ toolCalls: [{ id: 'c1', name: 'probe', input: {} }] }, { text: 'Done.' }],
      { observe: false },
    )
    await agent.generate('Look around.', call)
    expect(probed).toEqual([false])
    expect(await (await strata.thread(call.memory.thread)).items()).toHaveLength(4)
  })

  it('in a trace Mastra samples out, Strata starts no span either', async () => {
    const { agent, spans } = mastraWith(
      createMemory(),
      [{ toolCalls: [{ id: 'c1', name: 'probe', input: {} }] }, { text: 'Done.' }],
      { observe: 'sampled-out' },
    )
    await agent.generate('Look around.', call)
    expect(probed).toEqual([false])
    expect(await spans()).toEqual([])
  })

  it('with observability on, the probe sees a tracer; with telemetry: false, Mastra traces no Strata span', async () => {
    const on = mastraWith(createMemory(), [
      { toolCalls: [{ id: 'c1', name: 'probe', input: {} }] },
      { text: 'Done.' },
    ])
    await on.agent.generate('Look around.', call)
    expect(probed).toEqual([true])

    const memory = createMemory()
    const off = mastraWith(
      memory,
      [{ toolCalls: [{ id: 'c1', name: 'memory_store', input: { content: 'trams' } }] }, { text: 'Done.' }],
      { telemetry: false },
    )
    await off.agent.generate('Remember trams.', call)
    const all = await off.spans()
    expect(all.some((span) => span.type === 'agent_run')).toBe(true)
    expect(strataSpans(all)).toEqual([])
    expect(await (await off.strata.thread(call.memory.thread)).items()).toHaveLength(4)
  })

  it("the app's own tracer wins: Strata's spans go to it, none to Mastra's traces", async () => {
    const appSpans = new InMemorySpanExporter()
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(appSpans)] })
    shutdowns.push(() => provider.shutdown())
    const memory = createMemory({ telemetry: { tracer: provider.getTracer('app') } })
    const { agent, spans } = mastraWith(memory, [{ text: 'Hello, Ana.' }])
    expect(memory.adoptTracer('mastra', mastraTracer)).toBe(false)
    await agent.generate('Hello.', call)
    const all = await spans()
    expect(all.some((span) => span.type === 'agent_run')).toBe(true)
    expect(strataSpans(all)).toEqual([])
    expect(appSpans.getFinishedSpans().map((span) => span.name)).toEqual(
      expect.arrayContaining(['strata.context', 'strata.store.append']),
    )
  })

  it('telemetry must be a boolean: anything else is STRATA_INVALID_OPTIONS', () => {
    expect(() => new StrataMemory({ memory: createMemory(), telemetry: 'on' as never })).toThrow(
      expect.objectContaining({ code: 'STRATA_INVALID_OPTIONS' }),
    )
  })
})
