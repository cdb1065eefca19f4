import type { TelemetryAttributes, TelemetrySpan, TelemetryTracer } from '..'

/** A tracer that records each span's name and attributes. */
export function recordingTracer() {
  const spans: { name: string; attributes: TelemetryAttributes }[] = []
  const tracer: TelemetryTracer = {
    startActiveSpan(name, options, fn) {
      const attributes: TelemetryAttributes = { ...options.attributes }
      spans.push({ name, attributes })
      const span: TelemetrySpan = {
        setAttribute: (key, value) => {
          attributes[key] = value
        },
        setAttributes: (more) => Object.assign(attributes, more),
        recordException: () => undefined,
        setStatus: () => undefined,
        end: () => undefined,
      }
      return fn(span) as ReturnType<typeof fn>
    },
  }
  return { tracer, spans }
}
