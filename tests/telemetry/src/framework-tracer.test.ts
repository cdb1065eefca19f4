import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import { createMemory, inMemoryStore, type StrataStore, type TelemetryTracer } from '@strata-memory/core'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'

// Two providers: the framework's (what an adapter passes) and the app's own.
const frameworkSpans = new InMemorySpanExporter()
const framework = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(frameworkSpans)] })
framework.register()
const appSpans = new InMemorySpanExporter()
const app = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(appSpans)] })
const frameworkTracer = framework.getTracer('framework')

afterAll(async () => {
  await Promise.all([framework.shutdown(), app.shutdown()])
})

beforeEach(() => {
  frameworkSpans.reset()
  appSpans.reset()
})

const names = (exporter: InMemorySpanExporter) => exporter.getFinishedSpans().map((span) => span.name)
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId

describe('memory.adoptTracer: the tracer an adapter passes for its framework', () => {
  it('spans start on the framework tracer while it traces, nest under its span, and stop when it does not', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ store })
    expect(memory.store).toBe(store)
    let tracing = true
    expect(memory.adoptTracer('test-framework', () => (tracing ? frameworkTracer : undefined))).toBe(true)
    expect(memory.store).not.toBe(store)

    const thread = await memory.thread('adopted')
    await frameworkTracer.startActiveSpan('framework.model-call', async (span) => {
      await thread.append({ role: 'user', content: 'Where is order A-1234?' })
      await thread.context()
      span.end()
    })
    const spans = frameworkSpans.getFinishedSpans()
    const call = spans.find((span) => span.name === 'framework.model-call')
    expect(call).toBeDefined()
    const context = spans.find((span) => span.name === 'strata.context')
    const append = spans.find((span) => span.name === 'strata.store.append')
    expect(context && parentOf(context)).toBe(call?.spanContext().spanId)
    expect(append && parentOf(append)).toBe(call?.spanContext().spanId)

    frameworkSpans.reset()
    tracing = false
    await thread.append({ role: 'assistant', content: 'It left the warehouse.' })
    await thread.context()
    expect(names(frameworkSpans)).toEqual([])
    expect(await store.read('adopted')).toHaveLength(2)
  })

  it('a thread opened before the adapter passed its tracer has its store calls traced too', async () => {
    const memory = createMemory()
    const thread = await memory.thread('opened-early')
    memory.adoptTracer('test-framework', () => frameworkTracer)
    await thread.content.put({ content: 'the shipping label for A-1234' })
    await thread.append({ role: 'user', content: 'print it' })
    expect(names(frameworkSpans)).toEqual(
      expect.arrayContaining(['strata.store.putContent', 'strata.store.append']),
    )
  })

  it("the app's tracer wins: a framework tracer passed later is ignored", async () => {
    const appTracer: TelemetryTracer = app.getTracer('app')
    const memory = createMemory({ telemetry: { tracer: appTracer } })
    expect(memory.adoptTracer('test-framework', () => frameworkTracer)).toBe(false)
    const thread = await memory.thread('app-wins')
    await thread.append({ role: 'user', content: 'hello' })
    await thread.context()
    expect(names(appSpans)).toEqual(expect.arrayContaining(['strata.store.append', 'strata.context']))
    expect(names(frameworkSpans)).toEqual([])
  })

  it('passing the same name again replaces the earlier tracer', async () => {
    const memory = createMemory()
    memory.adoptTracer('test-framework', () => undefined)
    memory.adoptTracer('test-framework', () => frameworkTracer)
    await (await memory.thread('replaced')).context()
    expect(names(frameworkSpans)).toContain('strata.context')
  })

  it('a bad name or tracer is STRATA_INVALID_OPTIONS', () => {
    const memory = createMemory()
    expect(() => memory.adoptTracer('', () => frameworkTracer)).toThrow(
      expect.objectContaining({ code: 'STRATA_INVALID_OPTIONS' }),
    )
    expect(() => memory.adoptTracer('x', frameworkTracer as unknown as () => TelemetryTracer)).toThrow(
      expect.objectContaining({ code: 'STRATA_INVALID_OPTIONS' }),
    )
  })
})

describe('the traced store', () => {
  it('a class store with private fields keeps working, close() included, and its calls are spans', async () => {
    class CountingStore {
      readonly #inner = inMemoryStore()
      #closed = false
      readonly specificationVersion = this.#inner.specificationVersion
      readonly name = 'counting'
      readonly flags = this.#inner.flags
      append(...args: Parameters<StrataStore['append']>) {
        return this.#inner.append(...args)
      }
      read(...args: Parameters<StrataStore['read']>) {
        return this.#inner.read(...args)
      }
      head(...args: Parameters<StrataStore['head']>) {
        return this.#inner.head(...args)
      }
      archive(...args: Parameters<StrataStore['archive']>) {
        return this.#inner.archive(...args)
      }
      readArchive(...args: Parameters<StrataStore['readArchive']>) {
        return this.#inner.readArchive(...args)
      }
      getState(...args: Parameters<StrataStore['getState']>) {
        return this.#inner.getState(...args)
      }
      setState(...args: Parameters<StrataStore['setState']>) {
        return this.#inner.setState(...args)
      }
      listThreads() {
        return this.#inner.listThreads()
      }
      deleteThread(threadId: string) {
        return this.#inner.deleteThread(threadId)
      }
      async close() {
        this.#closed = true
      }
      get closed() {
        return this.#closed
      }
    }
    const store = new CountingStore()
    const memory = createMemory({ store, content: false })
    memory.adoptTracer('test-framework', () => frameworkTracer)
    const thread = await memory.thread('class-store')
    await thread.append({ role: 'user', content: 'hello' })
    expect(await memory.store.listThreads()).toEqual(['class-store'])
    await memory.store.close?.()
    expect(store.closed).toBe(true)
    expect((memory.store as unknown as CountingStore).closed).toBe(true)
    expect(memory.store.name).toBe('counting')
    expect(names(frameworkSpans)).toEqual(
      expect.arrayContaining(['strata.store.append', 'strata.store.listThreads']),
    )
  })
})
