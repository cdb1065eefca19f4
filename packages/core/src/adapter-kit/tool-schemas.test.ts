import { describe, expect, it } from 'vitest'
import { memoryTools } from '../content'
import { StrataError } from '../errors'
import type { JsonObject } from '../items'
import { createMemory } from '../memory'
import { inMemoryStore } from '../stores'
import {
  buildToolSchema,
  MEMORY_TOOL_NAMES,
  memoryToolDefinitions,
  memoryToolInputSchemas,
  memoryToolSchemasWith,
  normalizedToolSchema,
  type SchemaBuilder,
  workingToolDefinition,
} from './tool-schemas'

/** A builder that writes JSON Schema back: what it builds shows every call buildToolSchema made. */
const jsonBuilder: SchemaBuilder<JsonObject> = {
  string: () => ({ type: 'string' }),
  number: () => ({ type: 'number' }),
  integer: (minimum) => ({ type: 'integer', ...(minimum === undefined ? {} : { minimum }) }),
  array: (items) => ({ type: 'array', items }),
  enum: (values) => ({ type: 'string', enum: [...values] }),
  object: (properties) => {
    const required = Object.keys(properties).filter((name) => properties[name]!.optional !== true)
    const plain = Object.fromEntries(
      Object.entries(properties).map(([name, { optional: _, ...schema }]) => [name, schema]),
    )
    return { type: 'object', properties: plain, ...(required.length === 0 ? {} : { required }) }
  },
  describe: (schema, description) => ({ ...schema, description }),
  optional: (schema) => ({ ...schema, optional: true }),
}

describe('the memory tools’ schemas', () => {
  it("are core's own definitions, the same a thread's tools carry", async () => {
    const memory = createMemory({ store: inMemoryStore() })
    const thread = await memory.thread('tools', { resource: 'user-42' })
    const tools = memoryTools(thread)
    const definitions = memoryToolDefinitions()
    for (const name of MEMORY_TOOL_NAMES) {
      expect(definitions[name]).toEqual({
        name,
        description: tools[name].description,
        inputSchema: tools[name].inputSchema,
      })
    }
    const working = tools.memory_update_working!
    expect(
      workingToolDefinition(() =>
        (memory.resource('user-42') as unknown as { workingGuide(): string }).workingGuide(),
      ),
    ).toEqual({
      name: 'memory_update_working',
      description: working.description,
      inputSchema: working.inputSchema,
    })
    expect(memoryToolInputSchemas().memory_update_working).toEqual(working.inputSchema)
  })

  it('build through a builder into exactly the JSON Schema they came from', () => {
    const schemas = memoryToolInputSchemas()
    const built = memoryToolSchemasWith(jsonBuilder)
    for (const name of Object.keys(schemas) as (keyof typeof schemas)[]) {
      expect(normalizedToolSchema(built[name]), name).toEqual(normalizedToolSchema(schemas[name]))
    }
    // Optional properties are marked by the builder, required ones are not.
    expect(Object.keys(schemas.memory_retrieve.properties as JsonObject)).toContain('transform')
    expect(
      buildToolSchema(
        {
          type: 'object',
          properties: { id: { type: 'string' }, n: { type: 'integer' } },
          required: ['id'],
        },
        jsonBuilder,
      ),
    ).toEqual({
      type: 'object',
      properties: { id: { type: 'string' }, n: { type: 'integer' } },
      required: ['id'],
    })
  })

  it('refuse a keyword the builder cannot express, naming where it is', () => {
    const schema = { type: 'object', properties: { when: { type: 'string', format: 'date-time' } } }
    let caught: unknown
    try {
      buildToolSchema(schema, jsonBuilder)
    } catch (error) {
      caught = error
    }
    expect(StrataError.isInstance(caught, 'STRATA_INVALID_OPTIONS')).toBe(true)
    expect((caught as StrataError).message).toContain('$.when uses the keyword "format"')
    expect(() => buildToolSchema({ type: 'boolean' }, jsonBuilder)).toThrow('the type "boolean"')
    expect(() => buildToolSchema({ enum: [1, 2] }, jsonBuilder)).toThrow('an enum of other values')
  })

  it('compare as schemas, not as one library’s dialect', () => {
    expect(
      normalizedToolSchema({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: {
          n: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
          m: { type: 'integer', minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
        },
        required: ['n', 'm'],
        additionalProperties: false,
      }),
    ).toEqual({
      type: 'object',
      properties: { n: { type: 'integer', minimum: 1 }, m: { type: 'integer' } },
      required: ['m', 'n'],
    })
  })
})
