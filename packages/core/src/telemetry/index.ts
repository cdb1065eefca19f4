export { type CompactionSpanInput, traceCompaction } from './compaction-span'
export { contextSpanAttributes } from './context-span'
export { MemoryTracing } from './memory-tracing'
export type {
  FrameworkTracer,
  TelemetryAttributes,
  TelemetryAttributeValue,
  TelemetryOptions,
  TelemetrySpan,
  TelemetryTracer,
} from './telemetry-tracer'
export { traced } from './traced'
export { tracedStore } from './traced-store'
