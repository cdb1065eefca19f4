import {
  type MemoryToolName,
  memoryTools,
  RETRIEVE_TRANSFORMS,
  type RetrieveTransform,
  type ThreadWithContent,
} from '@strata-memory/core'
import { z } from 'zod'

/**
 * Core's tool definitions (names, descriptions, JSON Schemas). `memoryTools` reads a thread's content
 * only when a tool runs, so definitions taken without a thread are safe to read, never to execute.
 */
export const definitions = memoryTools({} as ThreadWithContent)

/** What the `memory_update_working` description reads of a resource (core's resource has it). */
export interface WorkingGuide {
  workingGuide(): string
}

/**
 * Core's `memory_update_working` definition, which core adds only for a thread with a resource: taken
 * with a resource whose store methods are never called (read, never executed), its description
 * carrying the given working-memory guide.
 */
export const workingDefinition = (workingGuide: () => string) => {
  const never = () => Promise.reject(new Error('a tool definition is read, never executed'))
  const resource = { id: '', workingGuide, readWorking: never, writeWorking: never, queryHits: never }
  return memoryTools({ resource } as unknown as ThreadWithContent).memory_update_working
}

/** Core's description of one `memory_update_working` input property. */
const aboutWorking = (property: 'content' | 'version'): string => {
  const properties = workingDefinition(() => '')?.inputSchema.properties as
    | Record<string, { description?: string }>
    | undefined
  return properties?.[property]?.description ?? ''
}

/** Core's description of one input property, so the zod schemas say what core's schemas say. */
const about = (tool: MemoryToolName, property: string): string => {
  const properties = definitions[tool].inputSchema.properties as Record<string, { description?: string }>
  return properties[property]?.description ?? ''
}

/** The input schemas of the memory tools, mirroring core's JSON Schemas (a test keeps them equal). */
export const memoryToolSchemas = {
  memory_store: z.object({
    content: z.string().describe(about('memory_store', 'content')),
    type: z.string().describe(about('memory_store', 'type')).optional(),
    tags: z.array(z.string()).describe(about('memory_store', 'tags')).optional(),
  }),
  memory_retrieve: z.object({
    id: z.string().describe(about('memory_retrieve', 'id')),
    transform: z
      .enum(RETRIEVE_TRANSFORMS as readonly [RetrieveTransform, ...RetrieveTransform[]])
      .describe(about('memory_retrieve', 'transform'))
      .optional(),
    n: z.number().int().min(1).describe(about('memory_retrieve', 'n')).optional(),
    pattern: z.string().describe(about('memory_retrieve', 'pattern')).optional(),
    maxChars: z.number().int().min(1).describe(about('memory_retrieve', 'maxChars')).optional(),
  }),
  memory_query: z.object({
    text: z.string().describe(about('memory_query', 'text')).optional(),
    type: z.string().describe(about('memory_query', 'type')).optional(),
    source: z.string().describe(about('memory_query', 'source')).optional(),
    tags: z.array(z.string()).describe(about('memory_query', 'tags')).optional(),
    fromTs: z.number().describe(about('memory_query', 'fromTs')).optional(),
    toTs: z.number().describe(about('memory_query', 'toTs')).optional(),
    level: z.string().describe(about('memory_query', 'level')).optional(),
    limit: z.number().int().min(1).describe(about('memory_query', 'limit')).optional(),
    scope: z.enum(['thread', 'resource']).describe(about('memory_query', 'scope')).optional(),
  }),
  memory_update_working: z.object({
    content: z.string().describe(aboutWorking('content')),
    version: z.number().int().min(0).describe(aboutWorking('version')),
  }),
}
