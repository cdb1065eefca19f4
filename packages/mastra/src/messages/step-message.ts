import type { ProcessOutputStepArgs } from '@mastra/core/processors'
import type { JsonValue, MessageInput, MessagePart } from '@strata-memory/core'

type Step = ProcessOutputStepArgs['steps'][number]

const json = (value: unknown): JsonValue =>
  value === undefined ? {} : (JSON.parse(JSON.stringify(value)) as JsonValue)

/**
 * One model response as core's assistant message: its text, reasoning and tool calls, from the step
 * result (the model's content), else from the step's text and tool calls. Undefined when it holds
 * nothing to store.
 */
export function stepMessage(
  step: Step | undefined,
  toolCalls: ProcessOutputStepArgs['toolCalls'],
  text: string | undefined,
): MessageInput | undefined {
  const content: MessagePart[] = []
  const parts = (step as { content?: readonly Record<string, unknown>[] } | undefined)?.content
  // The step result, when Mastra has it for this step already: its calls must be this step's calls.
  const callIds = (parts ?? []).filter((part) => part.type === 'tool-call').map((part) => part.toolCallId)
  const current =
    Array.isArray(parts) &&
    callIds.length === (toolCalls ?? []).length &&
    (toolCalls ?? []).every((call, index) => call.toolCallId === callIds[index])
  if (current) {
    for (const part of parts ?? []) {
      if ((part.type === 'text' || part.type === 'reasoning') && typeof part.text === 'string') {
        if (part.text.length > 0) content.push({ type: part.type, text: part.text })
      } else if (part.type === 'tool-call') {
        content.push({
          type: 'tool-call',
          toolCallId: String(part.toolCallId),
          toolName: String(part.toolName),
          input: json(part.input),
          ...(part.providerExecuted === true ? { providerExecuted: true } : {}),
        })
      }
    }
  } else {
    if (text !== undefined && text.length > 0) content.push({ type: 'text', text })
    for (const call of toolCalls ?? []) {
      content.push({
        type: 'tool-call',
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        input: json(call.args),
      })
    }
  }
  return content.length === 0 ? undefined : { role: 'assistant', content }
}
