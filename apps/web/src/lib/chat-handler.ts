import type { LanguageModelV4 } from '@ai-sdk/provider'
import {
  type StrataScopeTools,
  type StrataTools,
  type StrataUIMessage,
  strataErrorResponse,
  strataMiddleware,
  strataOnError,
  strataTools,
  writeMemoryParts,
  writeMissedTransitions,
} from '@strata-memory/ai-sdk'
import type { Memory, Thread, ThreadHold } from '@strata-memory/core'
import {
  convertToModelMessages,
  createUIMessageStream,
  createUIMessageStreamResponse,
  type ModelMessage,
  stepCountIs,
  streamText,
  wrapLanguageModel,
} from 'ai'
import { agentTools } from './agent-tools'
import { readChatBody } from './chat-body'
import { SYSTEM_PROMPT } from './project-plan'

/** What the chat route runs on. */
export interface ChatRouteDependencies {
  memory: Memory
  model: LanguageModelV4
  /** Hands background work to the platform: `after` from `next/server` in the route. */
  waitUntil?: (work: Promise<unknown>) => void
  /** Tool steps of one request at most. @default 60 */
  maxSteps?: number
}

const badRequest = (message: string) =>
  Response.json({ error: { code: 'BAD_REQUEST', message } }, { status: 400 })

/**
 * POST /api/chat, the recipe to copy: `useChat`'s body in, a UI message stream out. The request holds
 * its thread before the response starts (`thread.hold()`), so a second request on the chat (a second
 * tab, a double submit) is a 409 `STRATA_THREAD_BUSY` with nothing stored, not an error inside a
 * streamed 200; the hold ends when the model's stream has ended (finished, failed or aborted). Strata
 * stores what the thread has not seen (`history: 'full'`: useChat re-sends the whole chat), sends the
 * model the thread's context at its current level, gives it the memory and scope tools, and writes
 * transitions and context statistics into the stream. Bad input is a 400 with a message before
 * anything streams; an error while streaming reaches the page with its Strata code.
 */
export async function handleChat(request: Request, dependencies: ChatRouteDependencies): Promise<Response> {
  const { memory, model, waitUntil, maxSteps = 60 } = dependencies
  let body: unknown
  try {
    body = await request.json()
  } catch {
    return badRequest('The request body is not JSON: send { id, messages } as useChat does.')
  }
  const chat = readChatBody(body)
  if ('error' in chat) return badRequest(chat.error)
  const { id: threadId, messages } = chat

  let thread: Thread
  let tools: StrataTools & StrataScopeTools & ReturnType<typeof agentTools>
  try {
    // Both check the thread id and throw a StrataError on a bad one: a 400 with Strata's message.
    tools = { ...strataTools(memory, { threadId, scopes: true }), ...agentTools() }
    thread = await memory.thread(threadId)
  } catch (error) {
    return strataErrorResponse(error)
  }

  let modelMessages: ModelMessage[]
  try {
    modelMessages = await convertToModelMessages(messages, { tools })
  } catch (error) {
    return badRequest(`The messages cannot be converted for the model: ${(error as Error).message}`)
  }

  // Last before the response: from here on the hold is released when the stream's work ends.
  let hold: ThreadHold
  try {
    hold = await thread.hold()
  } catch (error) {
    return strataErrorResponse(error) // 409 { error: { code: 'STRATA_THREAD_BUSY', message } }
  }

  // One middleware per request: its calls are the hold's (see strataMiddleware's `hold`).
  const wrapped = wrapLanguageModel({
    model,
    middleware: strataMiddleware({ memory, history: 'full', system: SYSTEM_PROMPT, hold }),
  })
  const stream = createUIMessageStream<StrataUIMessage>({
    originalMessages: messages,
    execute: async ({ writer }) => {
      let stop: (() => void) | undefined
      try {
        // The message starts here, so that the parts written before the model's own are kept (a client
        // resets a message whose start chunk comes after its first parts); then scopes closed between
        // responses (a control on the page, an automatic transition).
        writer.write({ type: 'start' })
        await writeMissedTransitions({ writer, memory, threadId, messages })
        stop = writeMemoryParts({ writer, memory, threadId })
        const result = streamText({
          model: wrapped,
          messages: modelMessages,
          tools,
          stopWhen: stepCountIs(maxSteps),
          providerOptions: { strata: { threadId } },
        })
        writer.merge(result.toUIMessageStream<StrataUIMessage>({ onError: strataOnError, sendStart: false }))
        await result.consumeStream({ onError: () => {} })
      } finally {
        stop?.()
        // The request's last write is done (the answer is stored before its stream ends).
        await hold.release()
        // Compaction started by this request finishes after the response, not cut off by the platform.
        waitUntil?.(thread.settled())
      }
    },
    onError: strataOnError,
  })
  return createUIMessageStreamResponse({ stream })
}
