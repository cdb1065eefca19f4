import type { RequestContext } from '@mastra/core/request-context'
import type { CallMemoryOptions } from './call-options'

/** What Mastra keeps of a run's memory in its request context: the thread, the resource, the call's memory options. */
export interface MastraMemoryContext {
  thread?: { id?: string }
  resourceId?: string
  memoryConfig?: CallMemoryOptions
}

/** The memory context Mastra set for a run, or undefined outside one. */
export const memoryContextOf = (requestContext: RequestContext | undefined) =>
  requestContext?.get('MastraMemory') as MastraMemoryContext | undefined

/** The run's memory options (the call's, merged with the memory's). */
export const memoryConfigOf = (requestContext: RequestContext | undefined) =>
  memoryContextOf(requestContext)?.memoryConfig
