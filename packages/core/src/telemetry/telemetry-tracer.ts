/** An attribute value, as OpenTelemetry's `AttributeValue`. */
export type TelemetryAttributeValue = string | number | boolean | string[] | number[] | boolean[]

/** Span attributes, as OpenTelemetry's `Attributes`. */
export type TelemetryAttributes = Record<string, TelemetryAttributeValue | undefined>

/**
 * The part of an OpenTelemetry `Span` Strata uses. Core depends on no OpenTelemetry package: any
 * `Span` of `@opentelemetry/api` fits this shape.
 */
export interface TelemetrySpan {
  setAttribute(key: string, value: TelemetryAttributeValue): unknown
  setAttributes(attributes: TelemetryAttributes): unknown
  recordException(exception: Error | string): void
  /** `code` 2 is OpenTelemetry's `SpanStatusCode.ERROR`. */
  setStatus(status: { code: number; message?: string }): unknown
  end(): void
}

/**
 * The part of an OpenTelemetry `Tracer` Strata uses (`trace.getTracer('my-app')` fits it):
 * `startActiveSpan` makes each span the parent of the spans started inside it, so Strata's spans
 * nest under the app's (and the AI SDK's) when the app registers a context manager, as the
 * OpenTelemetry Node SDK does.
 */
export interface TelemetryTracer {
  startActiveSpan<F extends (span: TelemetrySpan) => unknown>(
    name: string,
    options: { attributes?: TelemetryAttributes },
    fn: F,
  ): ReturnType<F>
}

/**
 * A framework's own tracer, as an adapter passes it with `memory.adoptTracer(name, tracer)`: asked when
 * each span starts, it returns the tracer to start it on, or undefined when the framework traces
 * nothing now (its telemetry is off, or no trace of it is running).
 */
export type FrameworkTracer = () => TelemetryTracer | undefined

/** `createMemory({ telemetry })`: traces of the memory's work. */
export interface TelemetryOptions {
  /**
   * The tracer spans are started on: `strata.thread.open` (what an open read: `strata.open.items_read`,
   * `strata.open.archive_items_read`, `strata.open.path`), `strata.context`, `strata.compaction`,
   * `strata.summarize` and `strata.store.<operation>`. Without one, no span work is done at all.
   */
  tracer?: TelemetryTracer
}
