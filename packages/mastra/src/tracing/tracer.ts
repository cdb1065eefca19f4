import {
  type AnySpan,
  executeWithContextSync,
  type MemoryOperationAttributes,
  resolveCurrentSpan,
  SpanType,
} from '@mastra/core/observability'
import type {
  FrameworkTracer,
  TelemetryAttributes,
  TelemetryAttributeValue,
  TelemetrySpan,
  TelemetryTracer,
} from '@strata-memory/core'

/** OpenTelemetry's `SpanStatusCode.ERROR`, as Strata sets it. */
const STATUS_ERROR = 2

type OperationType = NonNullable<MemoryOperationAttributes['operationType']>

/** Mastra's memory operation a Strata span is, where one fits: what it reads is a recall, what it writes a save. */
const OPERATIONS: Readonly<Record<string, OperationType>> = {
  'strata.context': 'recall',
  'strata.store.read': 'recall',
  'strata.store.readArchive': 'recall',
  'strata.store.head': 'recall',
  'strata.store.getState': 'recall',
  'strata.store.getContent': 'recall',
  'strata.store.queryContent': 'recall',
  'strata.store.listThreads': 'recall',
  'strata.store.append': 'save',
  'strata.store.archive': 'save',
  'strata.store.setState': 'save',
  'strata.store.putContent': 'save',
  'strata.store.deleteThread': 'delete',
}

const defined = (attributes: TelemetryAttributes | undefined) => {
  const kept: Record<string, TelemetryAttributeValue> = {}
  for (const [key, value] of Object.entries(attributes ?? {})) if (value !== undefined) kept[key] = value
  return kept
}

/**
 * A Strata span as a Mastra child span: attributes set while it runs are kept and given to Mastra
 * when it ends (Mastra exports a span's attributes at its end); an error status or a recorded
 * exception ends it as Mastra's error (`span.error`), with the message Strata gave.
 */
class MastraChildSpan implements TelemetrySpan {
  readonly #span: AnySpan
  readonly #attributes: Record<string, TelemetryAttributeValue> = {}
  #error: Error | undefined

  constructor(span: AnySpan) {
    this.#span = span
  }

  setAttribute(key: string, value: TelemetryAttributeValue) {
    this.#attributes[key] = value
    return this
  }

  setAttributes(attributes: TelemetryAttributes) {
    Object.assign(this.#attributes, defined(attributes))
    return this
  }

  recordException(exception: Error | string) {
    this.#error = exception instanceof Error ? exception : new Error(exception)
  }

  setStatus(status: { code: number; message?: string }) {
    if (status.code !== STATUS_ERROR) return this
    if (
      this.#error === undefined ||
      (status.message !== undefined && status.message !== this.#error.message)
    ) {
      this.#error = new Error(status.message ?? 'failed')
    }
    return this
  }

  end() {
    const attributes = this.#attributes as MemoryOperationAttributes
    if (this.#error === undefined) this.#span.end({ attributes })
    else this.#span.error({ error: this.#error, attributes, endSpan: true })
  }
}

/** Starts Strata's spans as children of `parent`, each the current Mastra span while its work runs. */
const childTracer = (parent: AnySpan): TelemetryTracer => ({
  startActiveSpan(name, options, fn) {
    const operationType = OPERATIONS[name]
    const child = parent.createChildSpan({
      type: SpanType.MEMORY_OPERATION,
      name,
      attributes: {
        ...defined(options.attributes),
        ...(operationType === undefined ? {} : { operationType }),
      } as MemoryOperationAttributes,
    })
    // Run inside the child's context, so a span started within (a store call inside a context
    // build) finds the child as Mastra's current span and nests under it.
    return executeWithContextSync({ span: child, fn: () => fn(new MastraChildSpan(child)) }) as ReturnType<
      typeof fn
    >
  },
})

/**
 * Mastra's own tracing as a Strata framework tracer (`memory.adoptTracer('mastra', mastraTracer)`):
 * while Mastra traces (observability on, a span of an agent run current: a processor, a tool, a
 * memory call), Strata's spans start as Mastra child spans of type `memory_operation` under it;
 * otherwise it gives no tracer and Strata does no span work.
 */
export const mastraTracer: FrameworkTracer = () => {
  const current = resolveCurrentSpan()
  return current?.isValid === true ? childTracer(current) : undefined
}
