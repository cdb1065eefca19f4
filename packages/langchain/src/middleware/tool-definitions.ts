import { convertToOpenAITool } from '@langchain/core/utils/function_calling'
import { toJsonSchema } from '@langchain/core/utils/json_schema'
import { ProviderStrategy, ToolStrategy } from 'langchain'

/** Each tool's text: an agent binds the same tool objects on every model call of its loop. */
const definitions = new WeakMap<object, string>()

/** One tool as a provider receives it, as JSON; a tool that cannot be written so counts by its name. */
function definitionText(tool: unknown): string {
  if (typeof tool !== 'object' || tool === null) return convertedText(tool)
  let text = definitions.get(tool)
  if (text === undefined) {
    text = convertedText(tool)
    definitions.set(tool, text)
  }
  return text
}

function convertedText(tool: unknown): string {
  try {
    // LangChain's own tools become { type: 'function', function: { name, description, parameters } };
    // a provider's built-in tool, given as a plain object, is sent as it is.
    return JSON.stringify(convertToOpenAITool(tool as Parameters<typeof convertToOpenAITool>[0]))
  } catch {
    const name = (tool as { name?: unknown } | null)?.name
    return JSON.stringify({ name: typeof name === 'string' ? name : 'tool' })
  }
}

/**
 * A structured-output format as the provider receives it: a `toolStrategy` as the tool the agent binds
 * for it, a `providerStrategy` or a raw schema (zod, standard or JSON schema) as its JSON schema.
 */
function formatText(format: unknown): string {
  if (format instanceof ToolStrategy) return JSON.stringify(format.tool)
  if (format instanceof ProviderStrategy) return JSON.stringify(format.schema)
  try {
    return JSON.stringify(toJsonSchema(format as Parameters<typeof toJsonSchema>[0]))
  } catch {
    return ''
  }
}

/**
 * The tool definitions of a model request as a provider receives them (each tool's name, description
 * and JSON schema, in the function format LangChain's chat models bind), with the structured-output
 * format the agent adds to the call (`responseFormat`), as one text, or `''` when the request has
 * none. A provider counts them as input on every call, so the middleware passes them with the system
 * text in `context({ alongside })`: the first call, before any usage report, is within the budget too.
 */
export function toolDefinitionsText(tools: readonly unknown[] | undefined, responseFormat?: unknown): string {
  const definitions = (tools ?? []).map(definitionText)
  const formats = responseFormat === undefined || responseFormat === null ? [] : [responseFormat].flat()
  // createAgent's placeholder for "no structured output".
  const real = formats.filter(
    (format) => !(typeof format === 'object' && format !== null && '__responseFormatUndefined' in format),
  )
  definitions.push(...real.map(formatText).filter((text) => text.length > 0))
  return definitions.length === 0 ? '' : `[${definitions.join(',')}]`
}
