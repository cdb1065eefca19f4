export type {
  Embedder,
  Resource,
  ResourceFact,
  ResourceQueryHit,
  ResourceQueryOptions,
  SearchDocumentsOptions,
  SetWorkingMemoryOptions,
} from './resource-types'
