import { convertToOpenAITool } from '@langchain/core/utils/function_calling'

/** One tool as a provider receives it, as JSON; a tool that cannot be written so counts by its name. */
function definitionText(tool: unknown): string {
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
 * The tool definitions of a model request as a provider receives them (each tool's name, description
 * and JSON schema, in the function format LangChain's chat models bind), as one text, or `''` when
 * the request has none. A provider counts them as input on every call, so the middleware passes them
 * with the system text in `context({ alongside })`: the first call, before any usage report, is
 * within the budget too.
 */
export function toolDefinitionsText(tools: readonly unknown[] | undefined): string {
  if (tools === undefined || tools.length === 0) return ''
  return `[${tools.map(definitionText).join(',')}]`
}
