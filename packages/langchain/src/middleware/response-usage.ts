import type { AIMessage } from '@langchain/core/messages'

/** What an answer says the call cost, as `thread.reportUsage` takes it. */
export interface ResponseUsage {
  inputTokens: number
  outputTokens?: number
}

/** A token count the thread can take: a non-negative integer, or nothing. */
const count = (value: unknown) =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined

const record = (value: unknown) =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined

/** Reads one usage record whose input and output counts are under the given keys. */
function read(source: unknown, input: string, output: string): ResponseUsage | undefined {
  const usage = record(source)
  const inputTokens = count(usage?.[input])
  if (inputTokens === undefined) return undefined
  const outputTokens = count(usage?.[output])
  return outputTokens === undefined ? { inputTokens } : { inputTokens, outputTokens }
}

/**
 * The usage a model's answer reports, wherever the chat model put it: LangChain's `usage_metadata`
 * (streamed answers carry it on the merged message), else the provider's own record in
 * `response_metadata` (`usage` with `input_tokens` or `prompt_tokens`, `tokenUsage` with
 * `promptTokens`), as integrations that predate `usage_metadata` report it. Undefined when the answer
 * reports none: absent usage is not zero. A record whose counts are present is read as given, zeros
 * included.
 */
export function responseUsage(answer: AIMessage): ResponseUsage | undefined {
  if (answer.usage_metadata !== undefined) return read(answer.usage_metadata, 'input_tokens', 'output_tokens')
  const metadata = record(answer.response_metadata)
  return (
    read(metadata?.usage, 'input_tokens', 'output_tokens') ??
    read(metadata?.usage, 'prompt_tokens', 'completion_tokens') ??
    read(metadata?.tokenUsage, 'promptTokens', 'completionTokens')
  )
}
