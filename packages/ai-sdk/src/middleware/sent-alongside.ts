import type { LanguageModelV4CallOptions, LanguageModelV4Message } from '@ai-sdk/provider'

/** The text of a call's system messages. */
const systemText = (messages: readonly LanguageModelV4Message[]) =>
  messages.map((message) => (message.role === 'system' ? message.content : '')).join('\n\n')

/**
 * The tool definitions of a call as text, one JSON line per tool, in the shape providers send them:
 * a function tool's name, description, JSON schema (and input examples); a provider tool's name, id
 * and arguments (the provider adds its own definition, which no middleware can see). Under a budget
 * they are counted with the call's system text, so the very first call, before any usage report, is
 * within the budget too.
 */
export function toolDefinitionsText(tools: LanguageModelV4CallOptions['tools']): string {
  if (tools === undefined) return ''
  return tools
    .map((tool) =>
      tool.type === 'function'
        ? JSON.stringify({
            name: tool.name,
            ...(tool.description === undefined ? {} : { description: tool.description }),
            parameters: tool.inputSchema,
            ...(tool.inputExamples === undefined ? {} : { examples: tool.inputExamples }),
          })
        : JSON.stringify({ name: tool.name, id: tool.id, args: tool.args }),
    )
    .join('\n')
}

/** The JSON schema a structured-output call sends with the prompt, as text. */
function responseFormatText(format: LanguageModelV4CallOptions['responseFormat']): string {
  if (format?.type !== 'json' || format.schema === undefined) return ''
  return JSON.stringify({
    ...(format.name === undefined ? {} : { name: format.name }),
    ...(format.description === undefined ? {} : { description: format.description }),
    schema: format.schema,
  })
}

/**
 * Everything a call sends the provider besides the thread's context: its own system messages, its
 * tool definitions and its output schema. This is the `alongside` of `thread.context()`: what the
 * model is sent is what the budget counts.
 */
export function sentAlongside(
  params: Pick<LanguageModelV4CallOptions, 'tools' | 'responseFormat'>,
  system: readonly LanguageModelV4Message[],
): string | undefined {
  const text = [
    systemText(system),
    toolDefinitionsText(params.tools),
    responseFormatText(params.responseFormat),
  ]
    .filter((part) => part.length > 0)
    .join('\n\n')
  return text.length === 0 ? undefined : text
}
