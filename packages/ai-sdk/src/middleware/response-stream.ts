import type {
  LanguageModelV4Content,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from '@ai-sdk/provider'
import type { ResponseMeta } from '../messages/provider-prompt'

/**
 * Assembles a streamed response into the content a generate call would have returned, as the SDK
 * does: text and reasoning deltas joined per id, in the order their parts started.
 */
export class ResponseCollector {
  readonly content: LanguageModelV4Content[] = []
  readonly #open = new Map<string, Extract<LanguageModelV4Content, { type: 'text' | 'reasoning' }>>()
  usage: LanguageModelV4Usage | undefined
  /** Whether the `finish` part arrived: a stream that ends without it was cut off. */
  finished = false
  /** The error of the last `error` part: why a stream that ends without `finish` failed. */
  error: unknown
  readonly meta: ResponseMeta = {}

  add(part: LanguageModelV4StreamPart) {
    switch (part.type) {
      case 'text-start':
      case 'reasoning-start': {
        const type = part.type === 'text-start' ? 'text' : 'reasoning'
        const started: Extract<LanguageModelV4Content, { type: 'text' | 'reasoning' }> = {
          type,
          text: '',
          ...(part.providerMetadata ? { providerMetadata: part.providerMetadata } : {}),
        }
        this.#open.set(`${type}:${part.id}`, started)
        this.content.push(started)
        break
      }
      case 'text-delta':
      case 'reasoning-delta': {
        const open = this.#open.get(`${part.type === 'text-delta' ? 'text' : 'reasoning'}:${part.id}`)
        if (open !== undefined) open.text += part.delta
        break
      }
      case 'text-end':
      case 'reasoning-end': {
        const key = `${part.type === 'text-end' ? 'text' : 'reasoning'}:${part.id}`
        const open = this.#open.get(key)
        if (open !== undefined && part.providerMetadata !== undefined)
          open.providerMetadata = part.providerMetadata
        this.#open.delete(key)
        break
      }
      case 'tool-call':
      case 'tool-result':
      case 'file':
      case 'reasoning-file':
      case 'source':
      case 'custom':
      case 'tool-approval-request':
        if (part.type !== 'tool-result' || part.preliminary !== true) this.content.push(part)
        break
      case 'response-metadata':
        if (part.id !== undefined) this.meta.responseId = part.id
        if (part.modelId !== undefined) this.meta.modelId = part.modelId
        break
      case 'error':
        this.error = part.error
        break
      case 'finish':
        this.usage = part.usage
        this.finished = true
        break
    }
  }
}

/**
 * Passes every part of a provider stream through untouched (the same objects, in order) while the
 * collector assembles the response. The response is stored when the stream ends with its `finish`
 * part, before the caller sees the end, so the next step of a tool loop finds it. A stream that
 * fails, is cancelled (an aborted request) or ends without `finish` stores nothing of its response.
 */
export function tapStream(
  source: ReadableStream<LanguageModelV4StreamPart>,
  {
    onEnd,
    onFail,
  }: {
    onEnd: (collector: ResponseCollector) => Promise<void>
    /** With the error when the stream failed or was cut off; without when the caller cancelled it. */
    onFail: (error?: unknown) => Promise<void>
  },
): ReadableStream<LanguageModelV4StreamPart> {
  const reader = source.getReader()
  const collector = new ResponseCollector()
  return new ReadableStream<LanguageModelV4StreamPart>({
    async pull(controller) {
      let next: Awaited<ReturnType<typeof reader.read>>
      try {
        next = await reader.read()
      } catch (error) {
        await onFail(error)
        throw error
      }
      if (next.done) {
        if (collector.finished) await onEnd(collector)
        else
          await onFail(
            collector.error ?? new Error('The model stream ended without a finish part (cut off).'),
          )
        controller.close()
        return
      }
      collector.add(next.value)
      controller.enqueue(next.value)
    },
    async cancel(reason) {
      await onFail()
      await reader.cancel(reason)
    },
  })
}
