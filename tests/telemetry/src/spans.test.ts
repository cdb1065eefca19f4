import { trace } from '@opentelemetry/api'
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import { createMemory, inMemoryStore, type Summarizer, type TelemetryOptions } from '@strata-memory/core'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'

const exporter = new InMemorySpanExporter()
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
// Registers the AsyncLocalStorage context manager, as an app's OpenTelemetry Node SDK does.
provider.register()
const tracer = provider.getTracer('strata-telemetry-test')

afterAll(async () => {
  await provider.shutdown()
})

beforeEach(() => {
  exporter.reset()
})

const spans = () => exporter.getFinishedSpans()
const named = (name: string) => spans().filter((span) => span.name === name)
const one = (name: string): ReadableSpan => {
  const found = named(name)
  expect(
    found.map((span) => span.name),
    `one ${name} span`,
  ).toEqual([name])
  return found[0] as ReadableSpan
}
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId
const childrenOf = (parent: ReadableSpan) =>
  spans()
    .filter((span) => parentOf(span) === parent.spanContext().spanId)
    .map((span) => span.name)

async function conversation(memory: ReturnType<typeof createMemory>, threadId: string, turns: number) {
  const thread = await memory.thread(threadId)
  for (let turn = 1; turn <= turns; turn++) {
    await thread.append({
      role: 'user',
      content: `Question ${turn}: ${'where is order A-1234? '.repeat(15)}`,
    })
    await thread.append({
      role: 'assistant',
      content: `Answer ${turn}: ${'it left the warehouse. '.repeat(15)}`,
    })
  }
  return thread
}

describe('OpenTelemetry spans (in-memory exporter)', () => {
  it('a tracer from @opentelemetry/api fits createMemory({ telemetry }) and records on the registered provider', async () => {
    const options: TelemetryOptions = { tracer: trace.getTracer('any-app') }
    expect(options.tracer).toBeDefined()
    const thread = await createMemory({ telemetry: options }).thread('api-tracer')
    await thread.context()
    expect(named('strata.context').map((span) => span.instrumentationScope.name)).toEqual(['any-app'])
  })

  it('a context build is one strata.context span under the app span, with its size', async () => {
    const memory = createMemory({ telemetry: { tracer } })
    const thread = await conversation(memory, 'chat-1', 3)
    exporter.reset()
    const built = await tracer.startActiveSpan('ai.generateText', async (appSpan) => {
      try {
        return await thread.context({ system: 'You are helpful.' })
      } finally {
        appSpan.end()
      }
    })
    const app = one('ai.generateText')
    const context = one('strata.context')
    expect(parentOf(context)).toBe(app.spanContext().spanId)
    expect(context.attributes).toMatchObject({
      'strata.thread.id': 'chat-1',
      'strata.level': 'global',
      'strata.context.messages': built.messages.length,
      'strata.context.tokens': built.stats.contextTokens,
      'strata.context.total_tokens': built.stats.totalTokens,
      'strata.context.items_visible': 6,
    })
    expect(context.status.code).toBe(0)
  })

  it('store operations are spans, nested under what caused them', async () => {
    const memory = createMemory({ telemetry: { tracer } })
    await tracer.startActiveSpan('app.request', async (appSpan) => {
      await conversation(memory, 'chat-2', 1)
      appSpan.end()
    })
    const app = one('app.request')
    const appends = named('strata.store.append')
    expect(appends).toHaveLength(2)
    for (const append of appends) {
      expect(parentOf(append)).toBe(app.spanContext().spanId)
      expect(append.attributes).toMatchObject({
        'strata.store.name': 'memory',
        'strata.thread.id': 'chat-2',
        'strata.store.items': 1,
      })
    }
    // The open reads the log a page at a time (the in-memory store streams it), later reads whole.
    const reads = [...named('strata.store.read'), ...named('strata.store.readActivePages')]
    expect(named('strata.store.readActivePages').length).toBeGreaterThan(0)
    for (const read of reads) expect(read.attributes).toMatchObject({ 'strata.thread.id': 'chat-2' })
  })

  it('a compaction: trigger, policy, items and tokens before and after, with summarize and store spans inside', async () => {
    const memory = createMemory({
      telemetry: { tracer },
      compaction: { budget: { inputTokens: 20_000, rawTailTurns: 1 } },
    })
    const thread = await conversation(memory, 'chat-3', 6)
    const before = (await thread.status()).items.active
    exporter.reset()
    await thread.compact({ force: true })
    const compaction = one('strata.compaction')
    const after = (await thread.status()).items.active
    expect(compaction.attributes).toMatchObject({
      'strata.thread.id': 'chat-3',
      'strata.compaction.policy': 'budget',
      'strata.compaction.trigger': 'manual',
      'strata.compaction.items_before': before,
      'strata.compaction.items_after': after,
    })
    const { last } = (await thread.status()).compaction
    expect(compaction.attributes['strata.compaction.tokens_before']).toBe(last?.tokensBefore)
    expect(compaction.attributes['strata.compaction.tokens_after']).toBe(last?.tokensAfter)
    expect(compaction.attributes['strata.compaction.tokens_after']).toBeLessThan(last?.tokensBefore ?? 0)
    expect(compaction.attributes['strata.compaction.items_archived']).toBe(last?.itemsArchived)
    expect(after).toBeLessThan(before)
    const summarize = one('strata.summarize')
    expect(parentOf(summarize)).toBe(compaction.spanContext().spanId)
    expect(summarize.attributes).toMatchObject({
      'strata.summarizer.name': 'pattern',
      'strata.summarize.tier': 'episodic',
    })
    expect(typeof summarize.attributes['strata.summarize.duration_ms']).toBe('number')
    expect(childrenOf(compaction)).toEqual(
      expect.arrayContaining(['strata.summarize', 'strata.store.append', 'strata.store.archive']),
    )
  })

  it('a summarizer failure: the summarize span records the error, the compaction span fails with it', async () => {
    const failing: Summarizer = {
      name: 'flaky-model',
      async summarize() {
        throw new Error('model unavailable')
      },
    }
    const memory = createMemory({
      telemetry: { tracer },
      summarizer: failing,
      compaction: { budget: { inputTokens: 20_000, rawTailTurns: 1 } },
    })
    const thread = await conversation(memory, 'chat-4', 6)
    exporter.reset()
    await thread.compact({ force: true })
    const compaction = one('strata.compaction')
    const summarize = one('strata.summarize')
    expect(parentOf(summarize)).toBe(compaction.spanContext().spanId)
    expect(summarize.attributes['strata.summarizer.name']).toBe('flaky-model')
    expect(summarize.status).toMatchObject({ code: 2 })
    expect(summarize.status.message).toContain('model unavailable')
    expect(summarize.events.map((event) => event.name)).toContain('exception')
    expect(compaction.status.code).toBe(2)
    expect(String(compaction.attributes['strata.compaction.error'])).toContain('model unavailable')
    expect(compaction.attributes['strata.compaction.items_after']).toBe(
      compaction.attributes['strata.compaction.items_before'],
    )
    expect(named('strata.store.archive')).toEqual([])
  })

  it('without a tracer there is no span and the store is not wrapped', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ store, compaction: { budget: { inputTokens: 20_000, rawTailTurns: 1 } } })
    expect(memory.store).toBe(store)
    const thread = await conversation(memory, 'chat-5', 6)
    await thread.context()
    await thread.compact({ force: true })
    expect(spans()).toEqual([])
  })
})
