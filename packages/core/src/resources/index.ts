export { IndexPool } from '../content/index-pool'
export { bindThread, type ResourceDependencies, ResourceHandle } from './resource'
export type {
  ResolvedResourceOptions,
  ResourceIndexOptions,
  ResourceOptions,
  ResourceRecallOptions,
  WorkingMemoryOptions,
} from './resource-options'
export { resolveResourceOptions } from './resource-options'
export type {
  Embedder,
  ListNamespacesOptions,
  Resource,
  ResourceDocumentHit,
  ResourceFact,
  ResourceQueryHit,
  ResourceQueryOptions,
  SearchDocumentsOptions,
  SetWorkingMemoryOptions,
} from './resource-types'
export { checkEmbedder, cosine, embedAll } from './resource-vectors'
export { workingMemorySlot, workingMemoryText, writeWorkingMemory } from './working-memory'
