import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inMemoryStore, type StrataStore } from '@strata-memory/core'
import { fileStore } from '@strata-memory/store-file'

/** A store the graph-store tests run on: `create` gives a fresh, empty one; `cleanup` removes them. */
export interface GraphStoreBackend {
  name: string
  create(): Promise<StrataStore>
  /** The last created store as another process would open it (files: a new store on its folder). */
  reopen(): Promise<StrataStore>
  cleanup?(): Promise<void>
  /** fast-check runs of the property test on this store. */
  runs: number
}

const folders: string[] = []
let lastInMemory: StrataStore | undefined

/** The stores with resources the graph store is tested on: in memory, and files in a fresh folder. */
export const GRAPH_STORE_BACKENDS: GraphStoreBackend[] = [
  {
    name: 'in-memory',
    create: async () => {
      lastInMemory = inMemoryStore()
      return lastInMemory
    },
    reopen: async () => lastInMemory!,
    runs: 100,
  },
  {
    name: 'file',
    create: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'strata-graph-store-'))
      folders.push(dir)
      return fileStore({ dir })
    },
    reopen: async () => fileStore({ dir: folders.at(-1)! }),
    cleanup: async () => {
      for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true })
    },
    runs: 25,
  },
]
