import type { LanguageModelV4 } from '@ai-sdk/provider'
import {
  type ChatRequest,
  openChatRequest,
  storeFinalToolResults,
  strataErrorResponse,
  strataMiddleware,
  strataOnError,
  strataTools,
  writeMemoryParts,
  writeMissedTransitions,
} from '@strata-memory/ai-sdk'
import type { Memory } from '@strata-memory/core'
import {
  convertToModelMessages,
  createUIMessageStream,
  createUIMessageStreamResponse,
  isStepCount,
  streamText,
  toUIMessageStream,
  UI_MESSAGE_STREAM_HEADERS,
  wrapLanguageModel,
} from 'ai'
import { agentTools } from './agent-tools'
import type { AppTools, AppUIMessage } from './app-ui-message'
import { lastMessageBody } from './chat-body'
import { loadChat, loadTurns } from './chat-load'
import { recordRun, replayRun, stopRun } from './chat-runs'
import { SYSTEM_PROMPT } from './project-plan'
import type { SharedRuns } from './shared-runs'

/** What the chat route runs on. */
export interface ChatRouteDependencies {
  memory: Memory
  model: LanguageModelV4
  /** Hands background work to the platform: `after` from `next/server` in the route. */
  waitUntil?: (work: Promise<unknown>) => void
  /** Tool steps of one request at most. @default 60 */
  maxSteps?: number
  /**
   * Responses kept where every server process reaches them (`redisRuns` with `REDIS_URL`), so a page
   * that reloads onto another process resumes the answer there.
   * @default this process only (chat-runs.ts)
   */
  runs?: SharedRuns
}

const badRequest = (message: string) =>
  Response.json({ error: { code: 'BAD_REQUEST', message } }, { status: 400 })

/**
 * POST /api/chat, the recipe to copy (the adapter README's persistence route): the page's last
 * message in, a UI message stream out; the thread is the chat's only store. `openChatRequest` reads
 * the body, holds the thread before the response starts (a second request on the chat, from another
 * tab or a double submit, is a 409 `STRATA_THREAD_BUSY` with nothing stored) and tells a new message,
 * a retry, a regenerate of the last answer (rewound) and a page behind the thread (a 409
 * `STRATA_SEQ_CONFLICT`, nothing rewound) apart. The response runs to its end on the server whether or
 * not the page stays (recorded for a page that reloads, see chat-runs.ts); the page's Stop ends it.
 * Strata stores the message, sends the model the thread's context at its current level, gives it the
 * memory and scope tools, and writes transitions (those the page has not seen first), compactions
 * and context statistics into the stream; the finish chunk carries the thread's last seq.
 */
export async function handleChat(request: Request, dependencies: ChatRouteDependencies): Promise<Response> {
  const { memory, model, waitUntil, maxSteps = 60, runs } = dependencies
  let body: unknown
  try {
    body = await request.json()
  } catch {
    return badRequest('The request body is not JSON: send { id, message, trigger } (sendLastMessage does).')
  }
  let chat: ChatRequest<AppUIMessage>
  let tools: AppTools
  try {
    chat = await openChatRequest<AppUIMessage>({ memory, body: lastMessageBody(body) })
  } catch (error) {
    return strataErrorResponse(error) // 400 a bad body or thread id, 409 a busy chat or a page behind it
  }
  const { thread, threadId, hold, message, messageId, lastSeq, providerOptions } = chat
  let messages: Awaited<ReturnType<typeof convertToModelMessages>>
  try {
    tools = { ...strataTools(memory, { threadId, scopes: true }), ...agentTools() }
    messages = await convertToModelMessages([message], { tools })
  } catch (error) {
    await hold.release()
    return badRequest(`The message cannot be converted for the model: ${(error as Error).message}`)
  }

  // One middleware per request: its calls are the hold's (see strataMiddleware's `hold`).
  const wrapped = wrapLanguageModel({
    model,
    middleware: strataMiddleware({ memory, system: SYSTEM_PROMPT, hold }),
  })
  // The page's Stop ends the run (POST /api/chat/ID/stop); a page that goes away does not.
  const abort = new AbortController()
  // The request's message is stored when its first context is built (the middleware stores, then builds).
  let stopWatching = () => {}
  const stored = new Promise<void>((resolve) => {
    stopWatching = memory.on('context', (event) => {
      // Events name the store's thread id (the chat's own id, mapped when it is outside the store's rule).
      if (event.threadId !== thread.id) return
      stopWatching()
      resolve()
    })
  })
  // The run outlives the response when the page goes away: the platform is told to wait for it.
  let ended = () => {}
  waitUntil?.(new Promise<void>((resolve) => (ended = resolve)))
  const stream = createUIMessageStream<AppUIMessage>({
    execute: async ({ writer }) => {
      let stop: (() => void) | undefined
      try {
        // The message starts here, so that the parts written before the model's own are kept (a client
        // resets a message whose start chunk comes after its first parts); then scopes closed since the
        // page last looked (a control on the page, an automatic transition, another tab).
        writer.write({ type: 'start', messageId })
        if (lastSeq !== undefined) await writeMissedTransitions({ writer, memory, threadId, lastSeq })
        stop = writeMemoryParts({ writer, memory, threadId })
        const result = streamText({
          model: wrapped,
          messages,
          tools,
          stopWhen: isStepCount(maxSteps),
          abortSignal: abort.signal,
          providerOptions,
          // Traced when the app registers a telemetry integration (`registerTelemetry`), grouped by route.
          telemetry: { functionId: 'strata-web-chat' },
        })
        // Read to its end here, whether or not the page still listens: the answer is stored either way.
        const chunks = toUIMessageStream<AppTools, AppUIMessage>({
          stream: result.stream,
          tools,
          sendStart: false,
          sendFinish: false,
          onError: strataOnError,
        }).getReader()
        for (let read = await chunks.read(); !read.done; read = await chunks.read()) writer.write(read.value)
        // An answer that stopped on a tool step: its results reach no further model call.
        await storeFinalToolResults({ thread, response: await result.response, messageId })
        // A compaction the answer's last step asked for ends inside the answer: its part is written
        // here, where a reload shows it (loadUIMessages places it by its summary's seq).
        await thread.settled()
        // The thread's last seq this answer shows: the page sends it back (`lastSeq`) with its next message.
        const { lastSeq: seq } = await memory.store.head(thread.id)
        writer.write({ type: 'finish', messageMetadata: { strata: { seq } } })
      } finally {
        stopWatching()
        stop?.()
        // The request's last write is done (the answer is stored before its stream ends).
        await hold.release()
        // Compaction started by this request finishes after the response, not cut off by the platform.
        waitUntil?.(thread.settled())
        ended()
      }
    },
    // The page gets the text for people; the server's log keeps the developer's message.
    onError: (error) => {
      console.error(error)
      return strataOnError(error)
    },
  })
  return createUIMessageStreamResponse({
    stream: recordRun(threadId, stream, { stored, abort }),
    // A copy of the response for the shared store: a page on another process resumes from it.
    // A store that fails leaves the page its own copy (no resume on another process), not a crash.
    ...(runs === undefined
      ? {}
      : { consumeSseStream: ({ stream: sse }) => runs.record(threadId, sse).catch(() => undefined) }),
  })
}

/**
 * GET /api/chat?id=THREAD: the chat as the thread holds it (see `loadChat`), for a page to catch up;
 * with `&before=MESSAGE`, the turns before that message (`{ messages, hasEarlier }`), for a page that
 * shows earlier ones.
 */
export async function handleChatGet(request: Request, memory: Memory, runs?: SharedRuns): Promise<Response> {
  const query = new URL(request.url).searchParams
  const threadId = query.get('id')
  if (threadId === null) return badRequest('Name the chat: /api/chat?id=THREAD.')
  const before = query.get('before')
  try {
    const body =
      before === null
        ? await loadChat(memory, threadId, runs === undefined ? {} : { runs })
        : await loadTurns(memory, threadId, { before })
    return Response.json(body, { headers: { 'cache-control': 'no-store' } })
  } catch (error) {
    return strataErrorResponse(error)
  }
}

/**
 * GET /api/chat/THREAD/stream: the response streaming on the chat, from its first chunk (a page that
 * reloaded mid-stream resumes it): this process's, else, with shared `runs`, another process's;
 * 204 when there is none.
 */
export async function handleResume(threadId: string, runs?: SharedRuns): Promise<Response> {
  // The shared store first: it holds every process's runs (this one's once it has recorded it).
  const shared = await runs?.resume(threadId)
  if (shared !== undefined) {
    return new Response(shared.pipeThrough(new TextEncoderStream()), { headers: UI_MESSAGE_STREAM_HEADERS })
  }
  const stream = replayRun(threadId)
  if (stream === undefined) return new Response(null, { status: 204 })
  return createUIMessageStreamResponse({ stream })
}

/** POST /api/chat/THREAD/stop: stops the response running on the chat (the page's Stop button). */
export function handleStop(threadId: string): Response {
  return Response.json({ stopped: stopRun(threadId) })
}
