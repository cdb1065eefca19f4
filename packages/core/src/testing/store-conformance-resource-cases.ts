import type { StoreResourceMethods, StrataStore } from '../stores'
import type { ConformanceSuite } from './store-conformance-content'

/** What the resource cases share: the store as a resource store, and fresh resource ids. */
export interface ResourceCases {
  store: () => StrataStore & StoreResourceMethods
  newThreadId: () => string
  /** A fresh resource id that is deleted after the test. */
  newResourceId: () => string
  threadWithItems: ConformanceSuite['threadWithItems']
  /** Skips the running test unless the store has the resource capability. */
  requireResources: (context: { skip: (note?: string) => void }) => void
}
