import {
  type MemoryToolInputs,
  memoryToolSchemasWith,
  zodSchemaBuilder,
} from '@strata-memory/core/adapter-kit'
import { z } from 'zod'

/**
 * The input schemas of the memory tools as zod schemas, built from core's JSON Schemas (the adapter
 * kit's one source; a test checks them equal).
 */
export const memoryToolSchemas = memoryToolSchemasWith(zodSchemaBuilder(z)) as {
  [Name in keyof MemoryToolInputs]: z.ZodType<MemoryToolInputs[Name]>
}
