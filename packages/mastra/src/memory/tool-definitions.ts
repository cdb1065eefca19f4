import { standardSchemaToJSONSchema, toStandardSchema } from '@mastra/core/schema'

/** A step's tool as Mastra hands it to `processInputStep`: converted, its schema as JSON schema. */
interface StepTool {
  type?: unknown
  id?: unknown
  description?: unknown
  args?: unknown
  parameters?: { jsonSchema?: unknown } | unknown
  inputSchema?: { jsonSchema?: unknown } | unknown
}

const jsonSchemaOf = (schema: unknown): unknown =>
  typeof schema === 'object' && schema !== null && 'jsonSchema' in schema
    ? (schema as { jsonSchema: unknown }).jsonSchema
    : schema

/** One tool as the provider receives it: a function's name, description and input schema. */
function definition(name: string, tool: StepTool): unknown {
  // A provider's built-in tool (web search, code execution) is sent by id with its arguments.
  if (tool.type === 'provider-defined' || tool.type === 'provider') {
    return { type: tool.type, id: tool.id, name, args: tool.args ?? {} }
  }
  return {
    type: 'function',
    name,
    ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
    inputSchema: jsonSchemaOf(tool.parameters ?? tool.inputSchema) ?? {},
  }
}

const text = (value: unknown, name: string) => {
  try {
    return JSON.stringify(value) ?? ''
  } catch {
    return JSON.stringify({ type: 'function', name })
  }
}

/**
 * The tool definitions of a step as the provider receives them (name, description and JSON schema
 * of each tool the step offers; only the `activeTools` when Mastra narrowed them), as one text, or
 * `''` when there are none. A provider counts them as input on every call, so the processor passes
 * them with the agent's instructions in `context({ alongside })`: the first call, before any usage
 * report, is within the budget too.
 */
export function toolDefinitionsText(
  tools: Record<string, unknown> | undefined,
  activeTools?: readonly string[],
): string {
  if (tools === undefined) return ''
  const names = Object.keys(tools).filter((name) => activeTools === undefined || activeTools.includes(name))
  if (names.length === 0) return ''
  return `[${names.map((name) => text(definition(name, (tools[name] ?? {}) as StepTool), name)).join(',')}]`
}

/**
 * The JSON schema of a call's structured output as the provider receives it (`responseFormat:
 * { type: 'json', schema }`, converted as Mastra converts it), as text, or `''` when the call has
 * none, when a separate model does the structuring (`structuredOutput.model`: the main call does not
 * send it), or when the schema cannot give its JSON schema.
 */
export function responseFormatText(
  structuredOutput: { schema?: unknown; model?: unknown } | undefined,
): string {
  if (structuredOutput?.schema === undefined || structuredOutput.model !== undefined) return ''
  try {
    const schema = standardSchemaToJSONSchema(toStandardSchema(structuredOutput.schema as never))
    return JSON.stringify({ type: 'json', schema })
  } catch {
    return ''
  }
}
