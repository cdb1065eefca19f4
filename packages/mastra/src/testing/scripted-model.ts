import { MastraLanguageModelV2Mock } from '@mastra/core/test-utils/llm-mock'

/** One scripted model response: text, or tool calls (`input` as an object). */
export type ScriptedResponse =
  | { text: string; inputTokens?: number }
  | { toolCalls: { id: string; name: string; input: object }[]; inputTokens?: number }

/** A response, or a function of the prompt received that gives one. */
export type ScriptedStep = ScriptedResponse | ((prompt: ReceivedPrompt) => ScriptedResponse)

type StreamPart =
  Awaited<ReturnType<MastraLanguageModelV2Mock['doStream']>>['stream'] extends ReadableStream<infer P>
    ? P
    : never
type CallOptions = Parameters<MastraLanguageModelV2Mock['doGenerate']>[0]
/** A prompt the model received. */
export type ReceivedPrompt = CallOptions['prompt']
type Prompt = ReceivedPrompt

const usageOf = (step: ScriptedResponse) => ({
  inputTokens: step.inputTokens ?? 100,
  outputTokens: 10,
  totalTokens: (step.inputTokens ?? 100) + 10,
})

const contentOf = (step: ScriptedResponse) =>
  'text' in step
    ? [{ type: 'text' as const, text: step.text }]
    : step.toolCalls.map((call) => ({
        type: 'tool-call' as const,
        toolCallId: call.id,
        toolName: call.name,
        input: JSON.stringify(call.input),
      }))

/**
 * A Mastra language model (the AI SDK's v2 model mock Mastra ships) that answers with the scripted
 * steps in order, by generate or by stream, and records every prompt it received.
 */
export function scriptedModel(steps: readonly ScriptedStep[]): {
  model: MastraLanguageModelV2Mock
  prompts: ReceivedPrompt[]
} {
  const prompts: Prompt[] = []
  let next = 0
  const take = (options: CallOptions): ScriptedResponse => {
    const prompt = structuredClone(options.prompt)
    prompts.push(prompt)
    const step = steps[next++]
    if (step === undefined)
      throw new Error(`The scripted model has no step ${next} (it has ${steps.length}).`)
    return typeof step === 'function' ? step(prompt) : step
  }
  const model = new MastraLanguageModelV2Mock({
    modelId: 'scripted',
    doGenerate: async (options) => {
      const step = take(options)
      return {
        content: contentOf(step),
        finishReason: 'text' in step ? 'stop' : 'tool-calls',
        usage: usageOf(step),
        warnings: [],
      }
    },
    doStream: async (options) => {
      const step = take(options)
      const parts: StreamPart[] = [{ type: 'stream-start', warnings: [] }]
      if ('text' in step) {
        parts.push(
          { type: 'text-start', id: 't1' },
          { type: 'text-delta', id: 't1', delta: step.text },
          { type: 'text-end', id: 't1' },
        )
      } else {
        for (const call of contentOf(step)) parts.push(call as StreamPart)
      }
      parts.push({
        type: 'finish',
        finishReason: 'text' in step ? 'stop' : 'tool-calls',
        usage: usageOf(step),
      })
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const part of parts) controller.enqueue(part)
            controller.close()
          },
        }),
      }
    },
  })
  return { model, prompts }
}
