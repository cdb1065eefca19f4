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

/** What a store call's span counts: the items appended, read or archived. */
const counted: Readonly<Record<string, (result: unknown) => number>> = {
  append: (result) => (Array.isArray(result) ? result.length : 0),
  read: (result) => (Array.isArray(result) ? result.length : 0),
  readArchive: (result) => (Array.isArray(result) ? result.length : 0),
  archive: (result) => (typeof result === 'number' ? result : 0),
}

/**
 * The store with a span `strata.store.<method>` around each call (`strata.store.name`,
 * `strata.thread.id`, and for appends, reads and archives the item count) when `tracer()` gives a
 * tracer; a call made when it gives none goes straight to the store. Everything else (name, flags,
 * version, `close()`, optional methods present or not) is the store's own, its methods called on the
 * store itself, so a class store's private fields keep working.
 */
export function tracedStore(store: StrataStore, tracer: () => TelemetryTracer | undefined): StrataStore {
  const call = (method: string, attributes: () => TelemetryAttributes, run: () => Promise<unknown>) => {
    const now = tracer()
    if (now === undefined) return run()
    const count = counted[method]
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
  const methods = new Map<PropertyKey, unknown>()
  for (const method of THREAD_METHODS) {
    const original = (store as unknown as Record<string, unknown>)[method]
    if (typeof original !== 'function') continue
    methods.set(method, (threadId: string, ...rest: unknown[]) =>
      call(
        method,
        () => ({ 'strata.thread.id': threadId }),
        () => original.call(store, threadId, ...rest),
      ),
    )
  }
  methods.set('listThreads', () =>
    call(
      'listThreads',
      () => ({}),
      () => store.listThreads(),
    ),
  )
  return new Proxy(store, {
    get(target, key) {
      const method = methods.get(key)
      if (method !== undefined) return method
      const value: unknown = Reflect.get(target, key, target)
      if (typeof value !== 'function') return value
      // Called on the store itself, bound once.
      const bound = value.bind(target)
      methods.set(key, bound)
      return bound
    },
  })
}
