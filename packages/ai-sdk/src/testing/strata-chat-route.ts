import type { Memory } from '@strata-memory/core'
import {
  convertToModelMessages,
  createUIMessageStream,
  createUIMessageStreamResponse,
  isStepCount,
  type LanguageModel,
  streamText,
  type ToolSet,
  toUIMessageStream,
  wrapLanguageModel,
} from 'ai'
import { strataMiddleware } from '../middleware/strata-middleware'
import { openChatRequest } from '../route/chat-request'
import { storeFinalToolResults } from '../route/final-tool-results'
import { strataErrorResponse, strataOnError } from '../route/route-errors'
import type { StrataUIMessage } from '../ui/memory-ui-parts'
import { writeMemoryParts } from '../ui/memory-ui-parts'
import { writeMissedTransitions } from '../ui/missed-transitions'

/**
 * The README's persistence route, as an app copies it: the page sends only its last message
 * (`sendLastMessage`), the thread is the chat's store. `model` is the provider's model (unwrapped).
 */
export function strataChatRoute(options: {
  memory: Memory
  model: Exclude<LanguageModel, string>
  tools?: ToolSet
  /** Stream errors, as `streamText`'s `onError` sees them. */
  errors?: unknown[]
  /** The most steps of one answer (`stopWhen: isStepCount(steps)`). @default 10 */
  steps?: number
}) {
  const { memory, model, tools = {}, errors = [], steps = 10 } = options
  return async (request: Request): Promise<Response> => {
    let chat: Awaited<ReturnType<typeof openChatRequest<StrataUIMessage>>>
    try {
      chat = await openChatRequest<StrataUIMessage>({ memory, request })
    } catch (error) {
      return strataErrorResponse(error) // 400 a bad body, 409 a busy chat or a page behind it
    }
    const { thread, threadId, hold, message, messageId, lastSeq, providerOptions } = chat
    // Per request: the middleware's calls are this request's, inside its hold.
    const wrapped = wrapLanguageModel({ model, middleware: strataMiddleware({ memory, hold }) })
    const stream = createUIMessageStream<StrataUIMessage>({
      execute: async ({ writer }) => {
        let stop: (() => void) | undefined
        try {
          writer.write({ type: 'start', messageId })
          if (lastSeq !== undefined) await writeMissedTransitions({ writer, memory, threadId, lastSeq })
          stop = writeMemoryParts({ writer, memory, threadId })
          const result = streamText({
            model: wrapped,
            messages: await convertToModelMessages([message], { tools }),
            tools,
            stopWhen: isStepCount(steps),
            providerOptions,
            onError: ({ error }) => {
              errors.push(error)
            },
          })
          // Read to its end here, whether or not the page still listens: the answer is stored.
          const chunks = toUIMessageStream<ToolSet, StrataUIMessage>({
            stream: result.stream,
            tools,
            sendStart: false,
            sendFinish: false,
            onError: strataOnError,
          }).getReader()
          for (let read = await chunks.read(); !read.done; read = await chunks.read())
            writer.write(read.value)
          // An answer that stopped on a tool step: its results reach no further model call.
          // A model call that failed wrote its error above (strataOnError); its response rejects too.
          const response = await Promise.resolve(result.response).catch(() => undefined)
          if (response === undefined) return
          await storeFinalToolResults({ thread, response, messageId })
          // A compaction the answer's last step asked for ends inside the answer: its part is written
          // here, where loadUIMessages places it, and the seq below covers it.
          await thread.settled()
          const { lastSeq: seq } = await memory.store.head(thread.id)
          writer.write({ type: 'finish', messageMetadata: { strata: { seq } } })
        } finally {
          stop?.()
          await hold.release()
          void thread.settled()
        }
      },
      onError: strataOnError,
    })
    return createUIMessageStreamResponse({ stream })
  }
}
