import type { TelemetryAttributes, TelemetrySpan, TelemetryTracer } from './telemetry-tracer'

/** OpenTelemetry's `SpanStatusCode.ERROR`. */
const STATUS_ERROR = 2

/**
 * Runs `work` inside an active span `name` when there is a tracer, else runs it as it is (no span
 * work at all). A failure is recorded on the span (exception and error status) and rethrown.
 */
export function traced<T>(
  tracer: TelemetryTracer | undefined,
  name: string,
  attributes: TelemetryAttributes,
  work: (span: TelemetrySpan | undefined) => Promise<T>,
): Promise<T> {
  if (tracer === undefined) return work(undefined)
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work(span)
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error))
      span.setStatus({ code: STATUS_ERROR, message: error instanceof Error ? error.message : String(error) })
      throw error
    } finally {
      span.end()
    }
  })
}
