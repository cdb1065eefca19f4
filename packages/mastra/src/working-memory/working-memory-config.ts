import type { WorkingMemory } from '@mastra/core/memory'
import { standardSchemaToJSONSchema, toStandardSchema } from '@mastra/core/schema'
import { invalidOptions, type JsonObject } from '@strata-memory/core'

/** Where a working memory lives: one per resource (Mastra's default), or one per thread. */
export type WorkingMemoryScope = 'thread' | 'resource'

/** A working memory that is on, as a run or a call uses it. */
export interface WorkingMemorySettings {
  scope: WorkingMemoryScope
  /** Markdown the model fills in (a template working memory). */
  template?: string
  /** The schema of a JSON working memory: a Mastra schema (zod, JSON Schema, standard schema). */
  schema?: unknown
  /** The schema as JSON Schema, shown to the model and returned as the template. */
  jsonSchema?: JsonObject
  /** Whether the agent keeps it itself (the `updateWorkingMemory` tool and its instruction). */
  agentManaged: boolean
}

/** What Strata offers the model to fill in when the working memory has neither template nor schema. */
export const DEFAULT_WORKING_MEMORY_TEMPLATE = `# About the user
- Name:
- Where they are:
- What they do:
- Preferences:
- Goals:
- Ongoing work:
`

type WorkingMemoryInput = Partial<WorkingMemory> & Record<string, unknown>

/**
 * Mastra's `workingMemory` option of the memory and of a call, merged as Mastra merges them (the
 * call's fields win; a call's template or schema replaces the memory's), checked: the working memory
 * a run uses, or undefined when it is off. `version: 'vnext'` and `useStateSignals` are Mastra's
 * experiments Strata does not take (`STRATA_INVALID_OPTIONS`).
 */
export function resolveWorkingMemory(
  memoryLevel: unknown,
  callLevel: unknown,
  where: string,
): WorkingMemorySettings | undefined {
  const check = (value: unknown, label: string): WorkingMemoryInput | undefined => {
    if (value === undefined || value === null) return undefined
    if (typeof value !== 'object' || Array.isArray(value)) {
      invalidOptions(
        `${where}: ${label} must be an object like { enabled: true, template } or { enabled: true, schema }.`,
      )
    }
    return value as WorkingMemoryInput
  }
  const base = check(memoryLevel, 'workingMemory')
  const call = check(callLevel, 'the call’s workingMemory')
  if (base === undefined && call === undefined) return undefined
  const shape = call !== undefined && (call.template !== undefined || call.schema !== undefined) ? call : base
  const merged: WorkingMemoryInput = {
    ...base,
    ...call,
    template: shape?.template,
    schema: shape?.schema,
  } as WorkingMemoryInput
  if (merged.enabled !== true) return undefined
  const { scope = 'resource', template, schema, agentManaged = true } = merged
  if (scope !== 'thread' && scope !== 'resource') {
    invalidOptions(
      `${where}: workingMemory.scope must be 'thread' or 'resource' (got ${JSON.stringify(scope)}).`,
    )
  }
  if (merged.version === 'vnext' || merged.useStateSignals === true) {
    invalidOptions(
      `${where}: workingMemory.${merged.version === 'vnext' ? "version: 'vnext'" : 'useStateSignals'} is a Mastra experiment StrataMemory does not take: leave it out; the model rewrites the working memory with the updateWorkingMemory tool.`,
      { option: 'workingMemory' },
    )
  }
  if (template !== undefined && typeof template !== 'string')
    invalidOptions(`${where}: workingMemory.template must be a Markdown string.`)
  if (template !== undefined && schema !== undefined)
    invalidOptions(`${where}: workingMemory takes a template or a schema, not both.`)
  if (typeof agentManaged !== 'boolean')
    invalidOptions(`${where}: workingMemory.agentManaged must be true or false.`)
  const settings: WorkingMemorySettings = { scope, agentManaged }
  if (template !== undefined) settings.template = template
  if (schema !== undefined) {
    settings.schema = schema
    settings.jsonSchema = jsonSchemaOf(schema, where)
  }
  return settings
}

function jsonSchemaOf(schema: unknown, where: string): JsonObject {
  try {
    return JSON.parse(
      JSON.stringify(standardSchemaToJSONSchema(toStandardSchema(schema as never))),
    ) as JsonObject
  } catch (error) {
    return invalidOptions(
      `${where}: workingMemory.schema must be a schema Mastra takes (a zod schema, a JSON Schema or a standard schema): ${error instanceof Error ? error.message : String(error)}.`,
    )
  }
}

/**
 * The problem a JSON working memory has with its schema, or undefined when it fits (or the schema
 * cannot validate: Mastra does not validate working memory either).
 */
export async function schemaProblem(schema: unknown, value: unknown): Promise<string | undefined> {
  let standard: { '~standard'?: { validate?: (value: unknown) => unknown } }
  try {
    standard = toStandardSchema(schema as never) as typeof standard
  } catch {
    return undefined
  }
  const validate = standard['~standard']?.validate
  if (typeof validate !== 'function') return undefined
  const result = (await validate(value)) as {
    issues?: readonly { message: string; path?: readonly unknown[] }[]
  }
  if (result.issues === undefined || result.issues.length === 0) return undefined
  return result.issues
    .slice(0, 3)
    .map((issue) => {
      const path = (issue.path ?? [])
        .map((key) =>
          typeof key === 'object' && key !== null && 'key' in key ? String(key.key) : String(key),
        )
        .join('.')
      return path === '' ? issue.message : `${path}: ${issue.message}`
    })
    .join('; ')
}
