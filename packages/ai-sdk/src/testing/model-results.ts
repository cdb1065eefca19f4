import type {
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
  LanguageModelV4Usage,
} from '@ai-sdk/provider'
import { convertArrayToReadableStream } from 'ai/test'

/** Usage as a provider reports it. */
export const usage = (inputTokens: number, outputTokens = 5): LanguageModelV4Usage => ({
  inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: outputTokens, text: outputTokens, reasoning: undefined },
})

/** A tool call as a model returns it: the input is JSON text. */
export const toolCall = (toolCallId: string, toolName: string, input: unknown): LanguageModelV4Content => ({
  type: 'tool-call',
  toolCallId,
  toolName,
  input: JSON.stringify(input),
})

/** A generate result for `MockLanguageModelV4`'s `doGenerate`. */
export function generated(
  content: LanguageModelV4Content[] | string,
  { inputTokens = 100, responseId }: { inputTokens?: number; responseId?: string } = {},
): LanguageModelV4GenerateResult {
  const parts: LanguageModelV4Content[] =
    typeof content === 'string' ? [{ type: 'text', text: content }] : content
  return {
    content: parts,
    finishReason: {
      unified: parts.some((part) => part.type === 'tool-call') ? 'tool-calls' : 'stop',
      raw: undefined,
    },
    usage: usage(inputTokens),
    warnings: [],
    ...(responseId === undefined ? {} : { response: { id: responseId } }),
  }
}

/** The stream parts a provider sends for the same content: text in two deltas, then finish. */
export function streamParts(
  content: LanguageModelV4Content[] | string,
  { inputTokens = 100 }: { inputTokens?: number } = {},
): LanguageModelV4StreamPart[] {
  const parts: LanguageModelV4Content[] =
    typeof content === 'string' ? [{ type: 'text', text: content }] : content
  const stream: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }]
  stream.push({ type: 'response-metadata', id: 'response-1', modelId: 'mock-model' })
  parts.forEach((part, index) => {
    if (part.type === 'text' || part.type === 'reasoning') {
      const id = `${part.type}-${index}`
      const half = Math.ceil(part.text.length / 2)
      stream.push({ type: `${part.type}-start`, id })
      stream.push({ type: `${part.type}-delta`, id, delta: part.text.slice(0, half) })
      stream.push({ type: `${part.type}-delta`, id, delta: part.text.slice(half) })
      stream.push({ type: `${part.type}-end`, id })
    } else {
      stream.push(part as LanguageModelV4StreamPart)
    }
  })
  stream.push({
    type: 'finish',
    usage: usage(inputTokens),
    finishReason: {
      unified: parts.some((part) => part.type === 'tool-call') ? 'tool-calls' : 'stop',
      raw: undefined,
    },
  })
  return stream
}

/** A stream result for `MockLanguageModelV4`'s `doStream`. */
export const streamed = (
  content: LanguageModelV4Content[] | string,
  options?: { inputTokens?: number },
): LanguageModelV4StreamResult => ({
  stream: convertArrayToReadableStream(streamParts(content, options)),
})

/** The text of a prompt message (its text parts joined), '' for none. */
export const promptText = (message: LanguageModelV4Prompt[number] | undefined): string =>
  message === undefined || typeof message.content === 'string'
    ? String(message?.content ?? '')
    : message.content.map((part) => (part.type === 'text' ? part.text : '')).join('')
