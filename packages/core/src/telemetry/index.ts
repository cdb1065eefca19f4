export { type CompactionSpanInput, traceCompaction } from './compaction-span'
export { contextSpanAttributes } from './context-span'
export type {
  TelemetryAttributes,
  TelemetryAttributeValue,
  TelemetryOptions,
  TelemetrySpan,
  TelemetryTracer,
} from './telemetry-tracer'
export { traced } from './traced'
export { tracedStore } from './traced-store'
