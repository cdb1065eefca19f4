export { citationFooter } from './citation'
export type { ContentAccess, ContentBinding, ThreadContentOptions, ThreadOptions } from './content-binding'
export { resolveContentBinding } from './content-binding'
export type { ContentOptions, ContentToolOptions, ResolvedContentOptions } from './content-options'
export { resolveContentOptions } from './content-options'
export type { CitationInput, ContentPlugin } from './content-plugin'
export { type GenericPluginOptions, genericPlugin } from './generic-plugin'
export type {
  MemoryHitLocation,
  MemoryQueryHit,
  MemoryQueryInput,
  MemoryQueryOutput,
  MemoryRetrieveInput,
  MemoryRetrieveOutput,
  MemoryStoreInput,
  MemoryStoreOutput,
  MemoryTool,
  MemoryToolError,
  MemoryToolName,
  MemoryTools,
  MemoryUpdateWorkingConflict,
  MemoryUpdateWorkingInput,
  MemoryUpdateWorkingOutput,
  ResourceToolName,
  ToolResource,
} from './memory-tool-types'
export { memoryTools, type ThreadWithContent } from './memory-tools'
export { RETRIEVE_TRANSFORMS, type RetrieveTransform } from './retrieve-transform'
export { type ContentSnapshot, ThreadContent } from './thread-content'
export { type WebPagePluginOptions, webPagePlugin } from './web-page-plugin'
