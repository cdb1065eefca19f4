import type { LanguageModelV4 } from '@ai-sdk/provider'
import {
  type StrataScopeTools,
  type StrataTools,
  strataErrorResponse,
  strataMiddleware,
  strataOnError,
  strataTools,
  writeMemoryParts,
  writeMissedTransitions,
} from '@strata-memory/ai-sdk'
import type { HistoryMode, Memory, Thread, ThreadHold } from '@strata-memory/core'
import {
  convertToModelMessages,
  createUIMessageStream,
  createUIMessageStreamResponse,
  generateId,
  isStepCount,
  type ModelMessage,
  streamText,
  toUIMessageStream,
  type UIMessageStreamWriter,
  wrapLanguageModel,
} from 'ai'
import { agentTools } from './agent-tools'
import type { AppUIMessage } from './app-ui-message'
import { type ChatBody, readChatBody } from './chat-body'
import { loadChat } from './chat-load'
import { recordRun, replayRun, stopRun } from './chat-runs'
import { writeCompactionParts } from './compaction-parts'
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

type AppTools = StrataTools & StrataScopeTools & ReturnType<typeof agentTools>

const badRequest = (message: string) =>
  Response.json({ error: { code: 'BAD_REQUEST', message } }, { status: 400 })

/** The page's copy is behind the thread: the answer it names is not (or no longer) in it. */
const staleChat = (messageId: string) =>
  Response.json(
    {
      error: {
        code: 'STALE_CHAT',
        message: `The answer to regenerate (${messageId}) is no longer the thread's: another tab or device changed this chat. Reload the page to see it as it is.`,
      },
    },
    { status: 409 },
  )

/** What the model is sent for a request, and how Strata reads it. */
interface Prompt {
  messages: ModelMessage[]
  history: HistoryMode
}

/**
 * The prompt of a request, read under the request's hold. A new message: that message alone, stored
 * as new (`history: 'new'`), whatever the page's copy holds. A regenerate: the thread's own chat up
 * to the answer named by id (`loadUIMessages`), sent whole (`history: 'full'`) so Strata rewinds the
 * thread to it; an id the thread does not hold is a stale copy, refused with nothing changed.
 */
async function promptOf(chat: ChatBody, memory: Memory, tools: AppTools): Promise<Prompt | Response> {
  if (chat.trigger === 'submit-message') {
    return { messages: await convertToModelMessages([chat.message], { tools }), history: 'new' }
  }
  const { messages } = await loadChat(memory, chat.id)
  const index = messages.findIndex((message) => message.id === chat.messageId)
  if (index === -1 || messages[index]!.role !== 'assistant') return staleChat(chat.messageId!)
  const before = messages.slice(0, index)
  if (before.at(-1)?.role !== 'user')
    return badRequest('Only an answer to a user message can be regenerated.')
  return { messages: await convertToModelMessages(before, { tools }), history: 'full' }
}

/**
 * Writes the thread's transitions that the page has not seen (after its `lastSeq`) into the answer. A
 * page that says nothing of what it has seen gets none: it sent no copy to compare with.
 */
async function writeUnseenTransitions(
  writer: UIMessageStreamWriter<AppUIMessage>,
  memory: Memory,
  threadId: string,
  lastSeq: number | undefined,
) {
  if (lastSeq === undefined) return
  const unseen: UIMessageStreamWriter<AppUIMessage> = {
    ...writer,
    write: (chunk) => {
      if (chunk.type === 'data-memory-transition' && chunk.data.seq <= lastSeq) return
      writer.write(chunk)
    },
  }
  await writeMissedTransitions({ writer: unseen, memory, threadId, messages: [] })
}

/**
 * POST /api/chat, the recipe to copy: the page's last message in, a UI message stream out; the
 * thread is the chat's only store. The request holds its thread before the response starts
 * (`thread.hold()`), so a second request on the chat (a second tab, a double submit) is a 409
 * `STRATA_THREAD_BUSY` with nothing stored, not an error inside a streamed 200; the hold ends when the
 * model's stream has ended (finished, failed or aborted). The response runs to its end on the server
 * whether or not the page stays (`consumeStream`; recorded for a page that reloads, see chat-runs.ts).
 * Strata stores the new message, sends the model the thread's context at its current level, gives it
 * the memory and scope tools, and writes transitions, compactions and context statistics into the
 * stream. Bad input is a 400 with a message before anything streams; an error while streaming reaches
 * the page with its Strata code.
 */
export async function handleChat(request: Request, dependencies: ChatRouteDependencies): Promise<Response> {
  const { memory, model, waitUntil, maxSteps = 60 } = dependencies
  let body: unknown
  try {
    body = await request.json()
  } catch {
    return badRequest('The request body is not JSON: send { id, message, trigger }.')
  }
  const chat = readChatBody(body)
  if ('error' in chat) return badRequest(chat.error)
  const threadId = chat.id

  let thread: Thread
  let tools: AppTools
  let hold: ThreadHold
  try {
    // Both check the thread id and throw a StrataError on a bad one: a 400 with Strata's message.
    tools = { ...strataTools(memory, { threadId, scopes: true }), ...agentTools() }
    thread = await memory.thread(threadId)
    // Before the response: from here on the hold is released when the stream's work ends.
    hold = await thread.hold()
  } catch (error) {
    return strataErrorResponse(error) // 409 { error: { code: 'STRATA_THREAD_BUSY', message } }, 400 …
  }

  let prompt: Prompt
  try {
    const read = await promptOf(chat, memory, tools)
    if (read instanceof Response) {
      await hold.release()
      return read
    }
    prompt = read
  } catch (error) {
    await hold.release()
    return badRequest(`The message cannot be converted for the model: ${(error as Error).message}`)
  }

  // One middleware per request: its calls are the hold's (see strataMiddleware's `hold`).
  const wrapped = wrapLanguageModel({
    model,
    middleware: strataMiddleware({ memory, history: prompt.history, system: SYSTEM_PROMPT, hold }),
  })
  const messageId = generateId()
  // The page's Stop ends the run (POST /api/chat/ID/stop); a page that goes away does not.
  const abort = new AbortController()
  // The request's message is stored when its first context is built (the middleware stores, then builds).
  let stopWatching = () => {}
  const stored = new Promise<void>((resolve) => {
    stopWatching = memory.on('context', (event) => {
      if (event.threadId !== threadId) return
      stopWatching()
      resolve()
    })
  })
  const stream = createUIMessageStream<AppUIMessage>({
    execute: async ({ writer }) => {
      const stops: (() => void)[] = []
      try {
        // The message starts here, so that the parts written before the model's own are kept (a client
        // resets a message whose start chunk comes after its first parts); then scopes closed since the
        // page last looked (a control on the page, an automatic transition, another tab).
        writer.write({ type: 'start', messageId })
        await writeUnseenTransitions(writer, memory, threadId, chat.lastSeq)
        stops.push(writeMemoryParts({ writer, memory, threadId }))
        stops.push(writeCompactionParts({ writer, memory, threadId }))
        const result = streamText({
          model: wrapped,
          messages: prompt.messages,
          tools,
          stopWhen: isStepCount(maxSteps),
          abortSignal: abort.signal,
          providerOptions: { strata: { threadId } },
          // Traced when the app registers a telemetry integration (`registerTelemetry`), grouped by route.
          telemetry: { functionId: 'strata-web-chat' },
        })
        writer.merge(
          toUIMessageStream<AppTools, AppUIMessage>({
            stream: result.stream,
            tools,
            onError: strataOnError,
            sendStart: false,
          }),
        )
        // The run goes on to its end when the page goes away: its answer is stored either way.
        await result.consumeStream({ onError: () => {} })
      } finally {
        stopWatching()
        for (const stop of stops) stop()
        // The request's last write is done (the answer is stored before its stream ends).
        await hold.release()
        // Compaction started by this request finishes after the response, not cut off by the platform.
        waitUntil?.(thread.settled())
      }
    },
    onError: strataOnError,
  })
  return createUIMessageStreamResponse({ stream: recordRun(threadId, stream, { stored, abort }) })
}

/** GET /api/chat?id=THREAD: the chat as the thread holds it (see `loadChat`), for a page to catch up. */
export async function handleChatGet(request: Request, memory: Memory): Promise<Response> {
  const threadId = new URL(request.url).searchParams.get('id')
  if (threadId === null) return badRequest('Name the chat: /api/chat?id=THREAD.')
  try {
    return Response.json(await loadChat(memory, threadId), { headers: { 'cache-control': 'no-store' } })
  } catch (error) {
    return strataErrorResponse(error)
  }
}

/**
 * GET /api/chat/THREAD/stream: the response streaming on the chat in this process, from its first
 * chunk (a page that reloaded mid-stream resumes it); 204 when there is none.
 */
export function handleResume(threadId: string): Response {
  const stream = replayRun(threadId)
  if (stream === undefined) return new Response(null, { status: 204 })
  return createUIMessageStreamResponse({ stream })
}

/** POST /api/chat/THREAD/stop: stops the response running on the chat (the page's Stop button). */
export function handleStop(threadId: string): Response {
  return Response.json({ stopped: stopRun(threadId) })
}
