import type { StrataStore } from '../stores'
import type { TelemetryAttributes, TelemetryTracer } from './telemetry-tracer'
import { traced } from './traced'

const THREAD_METHODS = [
  'append',
  'read',
  'head',
  'archive',
  'readArchive',
  'getState',
  'setState',
  'deleteThread',
  'putContent',
  'getContent',
  'queryContent',
] as const

/**
 * The store with a span `strata.store.<method>` around each call (`strata.store.name`,
 * `strata.thread.id`, and for appends, reads and archives the item count) when `tracer()` gives a
 * tracer; a call made when it gives none goes straight to the store. The store's own properties
 * (name, flags, version, optional methods present or not) are kept.
 */
export function tracedStore(store: StrataStore, tracer: () => TelemetryTracer | undefined): StrataStore {
  const wrapped: Record<string, unknown> = Object.create(store)
  const call = (
    method: string,
    attributes: () => TelemetryAttributes,
    run: () => Promise<unknown>,
    count?: (result: unknown) => number,
  ) => {
    const now = tracer()
    if (now === undefined) return run()
    return traced(
      now,
      `strata.store.${method}`,
      { 'strata.store.name': store.name, ...attributes() },
      async (span) => {
        const result = await run()
        if (count !== undefined) span?.setAttribute('strata.store.items', count(result))
        return result
      },
    )
  }
  for (const method of THREAD_METHODS) {
    const original = (store as unknown as Record<string, unknown>)[method]
    if (typeof original !== 'function') continue
    const count =
      method === 'read' || method === 'readArchive' || method === 'append'
        ? (result: unknown) => (Array.isArray(result) ? result.length : 0)
        : method === 'archive'
          ? (result: unknown) => (typeof result === 'number' ? result : 0)
          : undefined
    wrapped[method] = (threadId: string, ...rest: unknown[]) =>
      call(
        method,
        () => ({ 'strata.thread.id': threadId }),
        () => original.call(store, threadId, ...rest),
        count,
      )
  }
  wrapped.listThreads = () =>
    call(
      'listThreads',
      () => ({}),
      () => store.listThreads(),
    )
  return wrapped as unknown as StrataStore
}
