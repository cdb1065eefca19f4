import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Middleware,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
} from '@ai-sdk/provider'

/** The stream a provider sends for a short answer: what the middleware's tap passes through and stores. */
export function answerParts(turn: number): LanguageModelV4StreamPart[] {
  const text = `Answer ${turn}: done.`
  return [
    { type: 'stream-start', warnings: [] },
    { type: 'response-metadata', id: `response-${turn}`, modelId: 'bench' },
    { type: 'text-start', id: 't' },
    { type: 'text-delta', id: 't', delta: text.slice(0, 8) },
    { type: 'text-delta', id: 't', delta: text.slice(8) },
    { type: 'text-end', id: 't' },
    {
      type: 'finish',
      finishReason: { unified: 'stop', raw: undefined },
      usage: {
        inputTokens: { total: 900 + turn, noCache: 900 + turn, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: 6, text: 6, reasoning: undefined },
      },
    },
  ]
}

/**
 * The answer of call `turn` streamed through the middleware's tap and read to its end, as the SDK
 * reads it: the tap stores the answer and reports the usage when the stream ends.
 */
export async function streamAnswer(
  middleware: LanguageModelV4Middleware,
  params: LanguageModelV4CallOptions,
  model: LanguageModelV4,
  turn: number,
): Promise<void> {
  const doStream = async (): Promise<LanguageModelV4StreamResult> => ({
    stream: ReadableStream.from(answerParts(turn)),
  })
  const result = await middleware.wrapStream!({
    doStream,
    doGenerate: () => Promise.reject(new Error('not used')),
    params,
    model,
  })
  const reader = result.stream.getReader()
  while (!(await reader.read()).done) {}
}
