import type { Item } from '../items'
import type { ActivePagesOptions, StrataStore } from '../stores'
import { guardedPages } from '../stores/guarded-pages'
import { CONTENT_METHODS, REQUIRED_METHODS } from '../stores/store-check'
import { storeWithOverrides } from '../stores/store-overrides'
import type { TelemetryAttributes, TelemetryTracer } from './telemetry-tracer'
import { traced } from './traced'

/** The store's calls traced: every method of the store contract. */
const TRACED_METHODS = [...REQUIRED_METHODS, ...CONTENT_METHODS]

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
  const methods = new Map<PropertyKey, unknown>()
  for (const method of TRACED_METHODS) {
    const original = (store as unknown as Record<string, unknown>)[method]
    if (typeof original !== 'function') continue
    const count = counted[method]
    const name = `strata.store.${method}`
    methods.set(method, (...args: unknown[]) => {
      const now = tracer()
      // No tracer: straight to the store, with no span, attributes or closures made for the call.
      if (now === undefined) return original.apply(store, args)
      // Every call but listThreads names its thread first.
      const attributes: TelemetryAttributes =
        method === 'listThreads'
          ? { 'strata.store.name': store.name }
          : { 'strata.store.name': store.name, 'strata.thread.id': String(args[0]) }
      return traced(now, name, attributes, async (span) => {
        const result: unknown = await original.apply(store, args)
        if (count !== undefined) span?.setAttribute('strata.store.items', count(result))
        return result
      })
    })
  }
  const pages = store.readActivePages
  if (typeof pages === 'function') {
    // A span for each page fetched: an open that streams the log shows its reads as a read would.
    methods.set('readActivePages', (threadId: string, options?: ActivePagesOptions) => {
      const attributes = { 'strata.store.name': store.name, 'strata.thread.id': threadId }
      return guardedPages(pages.call(store, threadId, options) as AsyncIterable<readonly Item[]>, (next) => {
        const now = tracer()
        if (now === undefined) return next()
        return traced(now, 'strata.store.readActivePages', attributes, async (span) => {
          const step = await next()
          if (step.done !== true) span?.setAttribute('strata.store.items', step.value.length)
          return step
        })
      })
    })
  }
  return storeWithOverrides(store, methods)
}
