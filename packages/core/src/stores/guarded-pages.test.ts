import { describe, expect, it } from 'vitest'
import type { Item } from '../items'
import { recordingTracer } from '../telemetry/testing/recording-tracer'
import { tracedStore } from '../telemetry/traced-store'
import { type ActivePagesOptions, inMemoryStore, type StrataStore } from '.'
import { guardedMethods } from './guarded-pages'

/** A store whose `readActivePages` records what its reader did: the options it was given, and whether its iteration was ended. */
function pagesStore() {
  const seen = { options: [] as (ActivePagesOptions | undefined)[], ended: 0, given: 0 }
  const store: StrataStore = {
    ...inMemoryStore(),
    async *readActivePages(_threadId: string, options?: ActivePagesOptions) {
      seen.options.push(options)
      options?.onCount?.(30)
      try {
        for (let page = 0; page < 3; page++) {
          seen.given++
          yield [] as readonly Item[]
        }
      } finally {
        seen.ended++
      }
    },
  }
  return { store, seen }
}

const wrappers: [string, (store: StrataStore) => StrataStore][] = [
  [
    'guardedMethods (a deadline)',
    (store) => guardedMethods(store, (_name, _args, run) => Promise.resolve(run())),
  ],
  ['tracedStore, no tracer', (store) => tracedStore(store, () => undefined)],
  ['tracedStore, tracing', (store) => tracedStore(store, () => recordingTracer().tracer)],
]

describe('readActivePages through a store wrapper', () => {
  for (const [name, wrap] of wrappers) {
    it(`${name}: passes the options on, and ends the store's iteration when its reader stops early`, async () => {
      const { store, seen } = pagesStore()
      const counts: number[] = []
      for await (const _page of wrap(store).readActivePages!('t', { onCount: (count) => counts.push(count) }))
        break
      expect(counts).toEqual([30])
      expect(seen.given).toBe(1)
      // Without it, a store that waits for its pages to be taken (the file store) waits for good.
      expect(seen.ended).toBe(1)
      for await (const _page of wrap(store).readActivePages!('t')) {
        // Read to the end.
      }
      expect(seen.ended).toBe(2)
      expect(seen.given).toBe(4)
    })
  }
})
