import { OpenTelemetry } from '@ai-sdk/otel'
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import { createMemory, inMemoryStore } from '@strata-memory/core'
import { generateText, isStepCount, registerTelemetry, streamText, tool, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { generated, streamed, toolCall } from '../testing/model-results'
import { strataMiddleware } from './strata-middleware'

// The app's OpenTelemetry setup, as the AI SDK's telemetry docs have it: a Node tracer provider and
// the SDK's own OpenTelemetry integration, registered once.
const exporter = new InMemorySpanExporter()
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
provider.register()
registerTelemetry(new OpenTelemetry({ tracer: provider.getTracer('ai') }))

afterAll(async () => {
  await provider.shutdown()
})
beforeEach(() => {
  exporter.reset()
})

const spans = () => exporter.getFinishedSpans()
const byId = () => new Map(spans().map((span) => [span.spanContext().spanId, span]))
/** The names of a span's ancestors, nearest first. */
const ancestors = (span: ReadableSpan): string[] => {
  const index = byId()
  const names: string[] = []
  for (let parent = span.parentSpanContext?.spanId; parent !== undefined; ) {
    const found = index.get(parent)
    if (found === undefined) break
    names.push(found.name)
    parent = found.parentSpanContext?.spanId
  }
  return names
}
const strataSpans = () => spans().filter((span) => span.name.startsWith('strata.'))
/** Every Strata span has an SDK span above it, in the SDK's trace: none is a root of its own. */
function expectUnderSdkSpans(
  traceId = spans()
    .find((span) => !span.name.startsWith('strata.'))
    ?.spanContext().traceId,
) {
  expect(strataSpans().length).toBeGreaterThan(0)
  for (const span of strataSpans()) {
    expect(span.spanContext().traceId, span.name).toBe(traceId)
    expect(
      ancestors(span).some((name) => !name.startsWith('strata.')),
      `${span.name} under ${ancestors(span).join(' < ')}`,
    ).toBe(true)
  }
}

describe("strataMiddleware passes the AI SDK's own tracer", () => {
  it("a generateText call: Strata's context and store spans nest under the SDK's spans, in its trace", async () => {
    const memory = createMemory()
    const model = wrapLanguageModel({
      model: new MockLanguageModelV4({
        doGenerate: async () => generated('Order A-1234 left the warehouse.'),
      }),
      middleware: strataMiddleware({ memory, threadId: 'traced' }),
    })
    const result = await generateText({ model, prompt: 'Where is order A-1234?' })
    expect(result.text).toBe('Order A-1234 left the warehouse.')

    const sdkSpans = spans().filter((span) => !span.name.startsWith('strata.'))
    expect(sdkSpans.length).toBeGreaterThan(0)
    const traceId = sdkSpans[0]!.spanContext().traceId
    const context = strataSpans().filter((span) => span.name === 'strata.context')
    expect(context).toHaveLength(1)
    expect(context[0]!.attributes).toMatchObject({
      'strata.thread.id': 'traced',
      'strata.context.messages': 1,
    })
    expect(strataSpans().map((span) => span.name)).toEqual(expect.arrayContaining(['strata.store.append']))
    expectUnderSdkSpans(traceId)
  })

  it('a streamText call: the same, and the stored answer is a store span of the same trace', async () => {
    const memory = createMemory()
    const model = wrapLanguageModel({
      model: new MockLanguageModelV4({ doStream: async () => streamed('It left the warehouse.') }),
      middleware: strataMiddleware({ memory, threadId: 'streamed' }),
    })
    const result = streamText({ model, prompt: 'Where is order A-1234?' })
    expect(await result.text).toBe('It left the warehouse.')
    await (await memory.thread('streamed')).settled()
    const appends = strataSpans().filter((span) => span.name === 'strata.store.append')
    expect(appends.length).toBe(2) // the question, then the answer
    const traceIds = new Set(spans().map((span) => span.spanContext().traceId))
    expect(traceIds.size).toBe(1)
    expectUnderSdkSpans()
  })

  it("a tool loop: each step's context span sits under that step's model-call span", async () => {
    const memory = createMemory()
    const script = [
      [toolCall('c1', 'lookup', { key: 'north' })],
      [toolCall('c2', 'lookup', { key: 'south' })],
      'Done.',
    ]
    let step = 0
    const model = wrapLanguageModel({
      model: new MockLanguageModelV4({ doGenerate: async () => generated(script[step++]!) }),
      middleware: strataMiddleware({ memory, threadId: 'loop' }),
    })
    const result = await generateText({
      model,
      prompt: 'Look up north and south',
      tools: {
        lookup: tool({ inputSchema: z.object({ key: z.string() }), execute: async ({ key }) => key.length }),
      },
      stopWhen: isStepCount(5),
    })
    expect(result.text).toBe('Done.')
    const contexts = strataSpans().filter((span) => span.name === 'strata.context')
    expect(contexts).toHaveLength(3)
    const modelCalls = new Set(contexts.map((span) => span.parentSpanContext?.spanId))
    expect(modelCalls.size).toBe(3)
    expect(contexts.map((span) => ancestors(span)[1])).toEqual(['step 1', 'step 2', 'step 3'])
    expectUnderSdkSpans()
  })

  it("with telemetry: false, or the app's own tracer on createMemory, the SDK's trace gets no Strata span", async () => {
    const off = wrapLanguageModel({
      model: new MockLanguageModelV4({ doGenerate: async () => generated('Off.') }),
      middleware: strataMiddleware({ memory: createMemory(), threadId: 'off', telemetry: false }),
    })
    await generateText({ model: off, prompt: 'Hello' })
    expect(strataSpans()).toEqual([])

    const appExporter = new InMemorySpanExporter()
    const appProvider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(appExporter)] })
    const memory = createMemory({
      store: inMemoryStore(),
      telemetry: { tracer: appProvider.getTracer('app') },
    })
    const own = wrapLanguageModel({
      model: new MockLanguageModelV4({ doGenerate: async () => generated('Own.') }),
      middleware: strataMiddleware({ memory, threadId: 'own' }),
    })
    await generateText({ model: own, prompt: 'Hello' })
    expect(strataSpans()).toEqual([])
    expect(appExporter.getFinishedSpans().map((span) => span.name)).toContain('strata.context')
    await appProvider.shutdown()
  })

  it('a bad telemetry option is STRATA_INVALID_OPTIONS', () => {
    expect(() =>
      strataMiddleware({ memory: createMemory(), threadId: 't', telemetry: 'otel' as unknown as false }),
    ).toThrow(expect.objectContaining({ code: 'STRATA_INVALID_OPTIONS' }))
  })
})
