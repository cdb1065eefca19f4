import { inMemoryStore, type StrataStore } from '@strata-memory/core'

/** A store the graph-store tests run on: `create` gives a fresh, empty one; `cleanup` removes them. */
export interface GraphStoreBackend {
  name: string
  create(): Promise<StrataStore>
  cleanup?(): Promise<void>
  /** fast-check runs of the property test on this store. */
  runs: number
}

/** The stores with resources the graph store is tested on. */
export const GRAPH_STORE_BACKENDS: GraphStoreBackend[] = [
  { name: 'in-memory', create: async () => inMemoryStore(), runs: 100 },
]
