import {
  type MemoryQueryInput,
  type MemoryRetrieveInput,
  type MemoryStoreInput,
  type MemoryUpdateWorkingInput,
  memoryTools,
  type ThreadWithContent,
} from '../content'
import { StrataError } from '../errors'
import type { JsonObject, JsonValue } from '../items'

/** A tool as a framework needs it before it can run: its name, its description and its input's JSON Schema. */
export interface ToolDefinition {
  name: string
  description: string
  inputSchema: JsonObject
}

/** The memory tools whose input schemas adapters build: the three of every thread, and the resource's. */
export interface MemoryToolInputs {
  memory_store: MemoryStoreInput
  memory_retrieve: MemoryRetrieveInput
  memory_query: MemoryQueryInput
  memory_update_working: MemoryUpdateWorkingInput
}

/** The name of a memory tool an adapter gives a model. */
export type MemoryToolSchemaName = keyof MemoryToolInputs

/** The three memory tools of every thread, in the order adapters list them. */
export const MEMORY_TOOL_NAMES = ['memory_store', 'memory_retrieve', 'memory_query'] as const

const never = () => Promise.reject(new Error('a tool definition is read, never executed'))

const definitionOf = (tool: { name: string; description: string; inputSchema: JsonObject }) => ({
  name: tool.name,
  description: tool.description,
  inputSchema: tool.inputSchema,
})

/**
 * Core's definitions of the three memory tools (`memory_store`, `memory_retrieve`, `memory_query`):
 * names, descriptions and JSON Schemas, taken without a thread (`memoryTools` reads a thread's content
 * only when a tool runs), so an adapter can build its framework's tools before any thread is open.
 */
export function memoryToolDefinitions(): Record<(typeof MEMORY_TOOL_NAMES)[number], ToolDefinition> {
  const tools = memoryTools({} as ThreadWithContent)
  return {
    memory_store: definitionOf(tools.memory_store),
    memory_retrieve: definitionOf(tools.memory_retrieve),
    memory_query: definitionOf(tools.memory_query),
  }
}

/**
 * Core's definition of `memory_update_working`, which core adds only for a thread with a resource: its
 * description ends with the resource's working-memory guide (`workingGuide`, the memory's size, template
 * and schema). Taken with a resource whose store is never called: read, never executed.
 */
export function workingToolDefinition(workingGuide: () => string = () => ''): ToolDefinition {
  const resource = { id: '', workingGuide, readWorking: never, writeWorking: never, queryHits: never }
  const tool = memoryTools({ resource } as unknown as ThreadWithContent).memory_update_working
  if (tool === undefined) throw new Error('core gives a thread with a resource memory_update_working')
  return definitionOf(tool)
}

/**
 * The input JSON Schemas of the memory tools, core's own: the one source every adapter builds its
 * framework's schemas from ({@link buildToolSchema}), and checks them against in its tests.
 */
export function memoryToolInputSchemas(): Record<MemoryToolSchemaName, JsonObject> {
  const definitions = memoryToolDefinitions()
  return {
    memory_store: definitions.memory_store.inputSchema,
    memory_retrieve: definitions.memory_retrieve.inputSchema,
    memory_query: definitions.memory_query.inputSchema,
    memory_update_working: workingToolDefinition().inputSchema,
  }
}

/**
 * How a framework builds a schema, one call per JSON Schema keyword the memory tools use: an adapter
 * implements it with its schema library ({@link zodSchemaBuilder} does for zod) and
 * {@link buildToolSchema} calls it.
 */
export interface SchemaBuilder<S> {
  string(): S
  number(): S
  /** A whole number, at least `minimum` when given. */
  integer(minimum: number | undefined): S
  array(items: S): S
  /** One of `values` (strings). */
  enum(values: readonly [string, ...string[]]): S
  /** An object whose properties are `properties`; those not in `required` were already made optional. */
  object(properties: Record<string, S>): S
  describe(schema: S, description: string): S
  optional(schema: S): S
}

/** A keyword of a tool schema that the builder does not know: a core schema grew past what adapters build. */
function unsupported(path: string, what: string): never {
  throw new StrataError({
    code: 'STRATA_INVALID_OPTIONS',
    message: `buildToolSchema(): ${path} uses ${what}, which tool schemas do not (type object, string, number, integer with minimum, array, enum, description, required). Extend SchemaBuilder first.`,
    details: { path },
  })
}

const KNOWN = new Set(['type', 'properties', 'required', 'items', 'enum', 'minimum', 'description'])

function build<S>(schema: JsonObject, builder: SchemaBuilder<S>, path: string): S {
  for (const key of Object.keys(schema)) if (!KNOWN.has(key)) unsupported(path, `the keyword "${key}"`)
  let built: S
  if (schema.enum !== undefined) {
    const values = schema.enum as JsonValue[]
    if (values.length === 0 || values.some((value) => typeof value !== 'string'))
      unsupported(path, 'an enum of other values than strings')
    built = builder.enum(values as [string, ...string[]])
  } else {
    switch (schema.type) {
      case 'string':
        built = builder.string()
        break
      case 'number':
        built = builder.number()
        break
      case 'integer':
        built = builder.integer(typeof schema.minimum === 'number' ? schema.minimum : undefined)
        break
      case 'array':
        built = builder.array(build(schema.items as JsonObject, builder, `${path}.items`))
        break
      case 'object': {
        const required = new Set((schema.required as string[] | undefined) ?? [])
        const properties: Record<string, S> = {}
        for (const [name, property] of Object.entries((schema.properties as JsonObject | undefined) ?? {})) {
          const value = build(property as JsonObject, builder, `${path}.${name}`)
          properties[name] = required.has(name) ? value : builder.optional(value)
        }
        built = builder.object(properties)
        break
      }
      default:
        unsupported(path, `the type ${JSON.stringify(schema.type)}`)
    }
  }
  return typeof schema.description === 'string' ? builder.describe(built, schema.description) : built
}

/**
 * A tool's input JSON Schema (one of {@link memoryToolInputSchemas}, or a scope tool's) as a
 * framework's schema, through `builder`. Descriptions are kept, properties not `required` are optional.
 * A keyword the builder cannot express is `STRATA_INVALID_OPTIONS`, so a schema core changes is never
 * built short.
 *
 * @example
 * const schema = buildToolSchema(memoryToolInputSchemas().memory_store, zodSchemaBuilder(z))
 */
export function buildToolSchema<S>(schema: JsonObject, builder: SchemaBuilder<S>): S {
  return build(schema, builder, '$')
}

/** A schema of a zod-like library, as {@link zodSchemaBuilder} uses it. */
export interface ZodLikeSchema {
  describe(description: string): ZodLikeSchema
  optional(): ZodLikeSchema
}

/** A number schema of a zod-like library. */
export interface ZodLikeNumber extends ZodLikeSchema {
  int(): ZodLikeNumber
  min(value: number): ZodLikeNumber
}

/** What {@link zodSchemaBuilder} calls of a zod-like namespace (zod 3 and 4 both have it). */
export interface ZodLike {
  string(): ZodLikeSchema
  number(): ZodLikeNumber
  // biome-ignore lint/suspicious/noExplicitAny: each library's own element schema type
  array(items: any): ZodLikeSchema
  enum(values: readonly [string, ...string[]]): ZodLikeSchema
  // biome-ignore lint/suspicious/noExplicitAny: each library's own shape type
  object(shape: Record<string, any>): ZodLikeSchema
}

/**
 * A {@link SchemaBuilder} over a zod namespace, passed in by the adapter (core does not depend on zod):
 * `buildToolSchema(schema, zodSchemaBuilder(z))` is the zod schema of the tool.
 */
export function zodSchemaBuilder(z: ZodLike): SchemaBuilder<ZodLikeSchema> {
  return {
    string: () => z.string(),
    number: () => z.number(),
    integer: (minimum) => (minimum === undefined ? z.number().int() : z.number().int().min(minimum)),
    array: (items) => z.array(items),
    enum: (values) => z.enum(values),
    object: (properties) => z.object(properties),
    describe: (schema, description) => schema.describe(description),
    optional: (schema) => schema.optional(),
  }
}

/**
 * The memory tools' input schemas in a framework's schema type, built from core's JSON Schemas:
 * `memoryToolSchemasWith(zodSchemaBuilder(z))` gives the zod schemas the AI SDK and LangChain adapters export.
 */
export function memoryToolSchemasWith<S>(builder: SchemaBuilder<S>): Record<MemoryToolSchemaName, S> {
  const schemas = memoryToolInputSchemas()
  return {
    memory_store: buildToolSchema(schemas.memory_store, builder),
    memory_retrieve: buildToolSchema(schemas.memory_retrieve, builder),
    memory_query: buildToolSchema(schemas.memory_query, builder),
    memory_update_working: buildToolSchema(schemas.memory_update_working, builder),
  }
}

/** JSON Schema keywords that say nothing about a tool's input: a library's dialect marker and defaults. */
const DIALECT = new Set(['$schema', 'additionalProperties'])

/** The whole-number bounds zod 4 writes for `.int()`: the safe integer range, no bound of the tool's. */
const SAFE_BOUNDS: Record<string, number> = {
  minimum: Number.MIN_SAFE_INTEGER,
  maximum: Number.MAX_SAFE_INTEGER,
}

function normalized(schema: JsonValue): JsonValue {
  if (Array.isArray(schema)) return schema.map(normalized)
  if (typeof schema !== 'object' || schema === null) return schema
  const result: JsonObject = {}
  for (const [key, value] of Object.entries(schema)) {
    if (DIALECT.has(key) || SAFE_BOUNDS[key] === value) continue
    result[key] = key === 'required' ? [...(value as string[])].sort() : normalized(value as JsonValue)
  }
  return result
}

/**
 * A framework's schema of a tool, rendered as JSON Schema (`z.toJSONSchema(schema)`, a framework's own
 * export), in the form core's tool schemas take: without a dialect's markers (`$schema`,
 * `additionalProperties`) or zod's safe-integer bounds, `required` sorted. An adapter's test compares
 * it with `normalizedToolSchema(core's)`, so a schema that says anything else fails.
 */
export function normalizedToolSchema(schema: JsonObject): JsonObject {
  return normalized(schema) as JsonObject
}
