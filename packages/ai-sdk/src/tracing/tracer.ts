import { type FrameworkTracer, invalidOptions, type TelemetryTracer } from '@strata-memory/core'

/**
 * `strataMiddleware({ telemetry })`: where Strata's spans go when the app gave `createMemory` no
 * tracer of its own. `'ai-sdk'` (the default) uses the AI SDK's own tracer: the tracer of the
 * OpenTelemetry integration registered with `registerTelemetry()` (`new OpenTelemetry()` from
 * `@ai-sdk/otel`), so the spans nest under the SDK's model-call spans. `{ tracer }` uses that tracer
 * (for an integration passed per call in `telemetry.integrations`, which a middleware cannot see).
 * `false` passes none.
 */
export type StrataMiddlewareTelemetry = 'ai-sdk' | { tracer: TelemetryTracer } | false

const isTracer = (value: unknown): value is TelemetryTracer =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { startActiveSpan?: unknown }).startActiveSpan === 'function'

/**
 * The tracer of the first registered AI SDK telemetry integration that has one. `@ai-sdk/otel`'s
 * `OpenTelemetry` and `LegacyOpenTelemetry` keep theirs in `tracer` (given, or the global provider's);
 * an integration that sends its events elsewhere has none, and Strata then makes no spans.
 */
function registeredSdkTracer(): TelemetryTracer | undefined {
  const integrations: unknown = (globalThis as { AI_SDK_TELEMETRY_INTEGRATIONS?: unknown })
    .AI_SDK_TELEMETRY_INTEGRATIONS
  if (!Array.isArray(integrations)) return undefined
  for (const integration of integrations) {
    const tracer: unknown = (integration as { tracer?: unknown } | null)?.tracer
    if (isTracer(tracer)) return tracer
  }
  return undefined
}

/** The framework tracer `strataMiddleware` passes to its memory, or undefined for none. */
export function aiSdkTracer(telemetry: StrataMiddlewareTelemetry): FrameworkTracer | undefined {
  if (telemetry === false) return undefined
  if (telemetry === 'ai-sdk') return registeredSdkTracer
  if (typeof telemetry === 'object' && telemetry !== null && isTracer(telemetry.tracer)) {
    const { tracer } = telemetry
    return () => tracer
  }
  return invalidOptions(
    "strataMiddleware(): telemetry must be 'ai-sdk', { tracer } with an OpenTelemetry tracer, or false.",
  )
}
