import { CallbackManager, type CallbackManagerForChainRun } from '@langchain/core/callbacks/manager'
import type { SerializedNotImplemented } from '@langchain/core/load/serializable'
import type { RunnableConfig } from '@langchain/core/runnables'
import { AsyncLocalStorageProviderSingleton } from '@langchain/core/singletons'
import type {
  FrameworkTracer,
  TelemetryAttributes,
  TelemetryAttributeValue,
  TelemetrySpan,
  TelemetryTracer,
} from '@strata-memory/core'

/** The tag every Strata run carries, to find or filter them in LangSmith. */
export const STRATA_RUN_TAG = 'strata'

/** OpenTelemetry's `SpanStatusCode.ERROR`. */
const STATUS_ERROR = 2

/**
 * LangGraph's own handlers that forward model messages to `agent.stream()`: they take no runs of
 * ours, so they alone do not make a run traced.
 */
const STREAM_HANDLERS: ReadonlySet<string> = new Set([
  'StreamMessagesHandler',
  'StreamProtocolMessagesHandler',
])

type Attributes = Record<string, TelemetryAttributeValue>

const defined = (attributes: TelemetryAttributes | undefined): Attributes =>
  Object.fromEntries(
    Object.entries(attributes ?? {}).filter(([, value]) => value !== undefined),
  ) as Attributes

/** A span that keeps what Strata records, to report it as the run's end. */
class RunSpan implements TelemetrySpan {
  /** The attributes set after the start: the run's outputs. */
  readonly outputs: Attributes = {}
  exception: Error | string | undefined
  failure: string | undefined

  setAttribute(key: string, value: TelemetryAttributeValue) {
    this.outputs[key] = value
    return this
  }

  setAttributes(attributes: TelemetryAttributes) {
    Object.assign(this.outputs, defined(attributes))
    return this
  }

  recordException(exception: Error | string) {
    this.exception = exception
  }

  setStatus(status: { code: number; message?: string }) {
    this.failure = status.code === STATUS_ERROR ? (status.message ?? 'error') : undefined
    return this
  }

  /** The run is reported when the span's work has settled (see `startRun`). */
  end() {}
}

/**
 * Runs `work` as a child run `name` of the run `manager` belongs to, with the child run's callbacks in
 * LangChain's async context, so a span started inside it (a store call in a context build), and a
 * model called inside it (the summarizer), become its children.
 */
async function startRun<T>(
  config: RunnableConfig,
  manager: CallbackManager,
  name: string,
  attributes: TelemetryAttributes | undefined,
  work: (span: TelemetrySpan) => T,
): Promise<Awaited<T>> {
  const inputs = defined(attributes)
  const serialized: SerializedNotImplemented = { lc: 1, type: 'not_implemented', id: ['strata', name] }
  const run: CallbackManagerForChainRun = await manager.handleChainStart(
    serialized,
    inputs,
    undefined,
    'chain',
    undefined,
    undefined,
    name,
  )
  // The child config belongs to the new run: not the current one's name or id.
  const { runName: _name, runId: _id, ...rest } = config
  const child: RunnableConfig = { ...rest, callbacks: run.getChild() }
  const span = new RunSpan()
  let result: Awaited<T>
  try {
    result = await AsyncLocalStorageProviderSingleton.runWithConfig(child, () => work(span))
  } catch (error) {
    // An error run keeps no outputs: its inputs carry every attribute.
    await run.handleChainError(error, undefined, undefined, undefined, {
      inputs: { ...inputs, ...span.outputs },
    })
    throw error
  }
  if (span.failure === undefined) {
    await run.handleChainEnd(span.outputs)
  } else {
    const error = span.exception instanceof Error ? span.exception : new Error(span.failure)
    await run.handleChainError(error, undefined, undefined, undefined, {
      inputs: { ...inputs, ...span.outputs },
    })
  }
  return result
}

/**
 * LangChain's own tracing as a tracer for `memory.adoptTracer('langchain', langchainTracing())`: when
 * Strata works inside a LangChain run that has callbacks taking runs (LangSmith's tracer, a
 * `BaseTracer`, any handler the app passes in `callbacks`), each span is a child run of the current
 * one (run type `chain`, tag `strata`, the span's name); its start attributes are the run's inputs,
 * the attributes set later its outputs, and a failure is the run's error. Outside such a run, it gives
 * no tracer: no span work. `strataMiddleware` adopts it unless `tracing: false`; an app reading a thread
 * without the middleware (a chat history) can adopt it itself.
 *
 * @example
 * memory.adoptTracer('langchain', langchainTracing())
 */
export function langchainTracing(): FrameworkTracer {
  return () => {
    const config = AsyncLocalStorageProviderSingleton.getRunnableConfig() as RunnableConfig | undefined
    if (config?.callbacks === undefined) return undefined
    const manager = CallbackManager.configure(
      config.callbacks,
      undefined,
      config.tags,
      [STRATA_RUN_TAG],
      config.metadata,
    )
    const traced = manager?.handlers.some(
      (handler) => !handler.ignoreChain && !STREAM_HANDLERS.has(handler.name),
    )
    if (manager === undefined || !traced) return undefined
    const tracer: TelemetryTracer = {
      // Strata's spans wrap async work: the run is reported when it settles.
      startActiveSpan: (name, options, work) =>
        startRun(config, manager, name, options.attributes, work) as ReturnType<typeof work>,
    }
    return tracer
  }
}
