import {
  invalidOptions,
  type Memory,
  type MessageItem,
  StrataError,
  type Thread,
  type ThreadHold,
} from '@strata-memory/core'
import { generateId as defaultGenerateId, safeValidateUIMessages, type UIMessage } from 'ai'
import type { StrataChatRequestBody } from '../client/send-last-message'
import { assertChatId, openChatThread } from '../threads/chat-thread'
import { loadUIMessages, uiMessageIdOf } from '../ui/load-ui-messages'
import { conversationBefore } from '../ui/missed-transitions'

/** Options of {@link openChatRequest}. */
export interface OpenChatRequestOptions {
  memory: Memory
  /**
   * The request, whose JSON body `sendLastMessage` sent (`{ id, message, trigger, messageId?,
   * lastSeq? }`); a body that is not JSON is `STRATA_INVALID_OPTIONS` (a 400). Or pass `body`.
   */
  request?: Request
  /** The body already read (`await request.json()`), in place of `request`. */
  body?: unknown
  /**
   * The id of the response's UI message.
   * @default the AI SDK's `generateId`
   */
  generateId?: () => string
}

/** What {@link openChatRequest} returns: the request's thread, held, and what to stream. */
export interface ChatRequest<M extends UIMessage = UIMessage> {
  /**
   * The chat's id as the page sent it (any non-empty string), for Strata's helpers, which map it as
   * this request did. The store's id of the thread is `thread.id` (the same for an id valid as a
   * store thread id): use it with `memory.store` and to match `memory.on` events' `threadId`.
   */
  threadId: string
  thread: Thread
  /** The thread's hold: pass it to `strataMiddleware({ memory, hold })`, release it when the stream ends. */
  hold: ThreadHold
  /** The message to send the model (`convertToModelMessages([message])`): the new one, or the one regenerated. */
  message: M
  /** The id of the response's UI message: write it in the `start` chunk. */
  messageId: string
  /**
   * The last seq the page shows, when it sent one (for `writeMissedTransitions({ lastSeq })`). For a
   * regenerate or an edit, whether or not the page sent one, the seq of the answer before the question
   * (0 for none): the page drops the replaced answer (and the edited question), so what the thread
   * kept after the answer before and showed on what was dropped (a compaction the replaced answer
   * ran, a transition made between the answers) is written again at the new answer's start.
   */
  lastSeq?: number
  /** `providerOptions` for `streamText`: the thread and the UI ids the middleware stores with the items. */
  providerOptions: {
    strata: {
      threadId: string
      messageId: string
      userMessageId: string
      /** The tool approvals the page answered, by call id (a continued answer only). */
      approvals?: Record<string, { id: string; approved: boolean; reason?: string }>
    }
  }
}

const TRIGGERS = ['submit-message', 'regenerate-message'] as const

/** The body, checked: a malformed body is `STRATA_INVALID_OPTIONS` (a 400) before anything is read. */
function checkBody(body: unknown): StrataChatRequestBody {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    invalidOptions(
      'The chat request body must be a JSON object { id, message, trigger } (send it with sendLastMessage).',
    )
  }
  const { id, message, trigger = 'submit-message', messageId, lastSeq } = body as Record<string, unknown>
  if (typeof id !== 'string') invalidOptions('The chat request body needs the chat id: { id }.', { id })
  assertChatId(id)
  if (!TRIGGERS.includes(trigger as (typeof TRIGGERS)[number])) {
    invalidOptions(
      `The chat request's trigger must be 'submit-message' or 'regenerate-message' (got ${JSON.stringify(trigger)}).`,
      { trigger },
    )
  }
  if (messageId !== undefined && (typeof messageId !== 'string' || messageId === '')) {
    invalidOptions("The chat request's messageId must be a message id when given.", { messageId })
  }
  if (lastSeq !== undefined && (!Number.isSafeInteger(lastSeq) || (lastSeq as number) < 0)) {
    invalidOptions("The chat request's lastSeq must be a whole number when given.", { lastSeq })
  }
  if (trigger === 'submit-message') {
    const candidate = message as Partial<UIMessage> | undefined
    if (
      typeof candidate !== 'object' ||
      candidate === null ||
      typeof candidate.id !== 'string' ||
      candidate.id === '' ||
      !Array.isArray(candidate.parts)
    ) {
      invalidOptions(
        'The chat request needs the message sent: { message: { id, role, parts } } (sendLastMessage sends the last one).',
      )
    }
    const answers =
      candidate.role === 'assistant' && (approvalsOf(candidate).length > 0 || outputsOf(candidate).length > 0)
    if (candidate.role !== 'user' && !answers) {
      throw new StrataError({
        code: 'STRATA_INVALID_MESSAGE',
        message: `The chat request's message must be the user's, or the last answer with tool approvals or client-side tool outputs answered (got role ${JSON.stringify(candidate.role)}); this route takes one new message per request.`,
        details: { role: String(candidate.role) },
      })
    }
  }
  return body as StrataChatRequestBody
}

/**
 * Refuses a user message the route cannot store as the page meant it, before the thread is taken:
 * one the AI SDK's own `safeValidateUIMessages` rejects (a text part whose text is not a string, an
 * unknown part), and one with nothing in it (no part, or only empty text), which would be stored and
 * answered as an empty message. `STRATA_INVALID_MESSAGE`, a 400.
 */
async function checkUserMessage(message: UIMessage): Promise<void> {
  const checked = await safeValidateUIMessages({ messages: [message] })
  if (!checked.success) {
    throw new StrataError({
      code: 'STRATA_INVALID_MESSAGE',
      message: `The chat request's message is not a message useChat sends (${checked.error.message.split('\n')[0]}): send it as useChat builds it. Nothing was stored.`,
      details: { reason: 'invalid-ui-message' },
      cause: checked.error,
    })
  }
  if (message.parts.every((part) => part.type === 'text' && part.text.trim() === '')) {
    throw new StrataError({
      code: 'STRATA_INVALID_MESSAGE',
      message: "The chat request's message holds nothing to send (no text, no file): nothing was stored.",
      details: { reason: 'empty' },
    })
  }
}

/** A tool approval the page answered (`addToolApprovalResponse`): its call, and the decision. */
export interface AnsweredApproval {
  toolCallId: string
  id: string
  approved: boolean
  reason?: string
}

/** The tool parts of a message whose approval the page answered and whose call has no result yet. */
export function approvalsOf(message: Partial<UIMessage>): AnsweredApproval[] {
  const answered: AnsweredApproval[] = []
  for (const part of message.parts ?? []) {
    const tool = part as {
      type?: string
      state?: string
      toolCallId?: unknown
      approval?: { id?: unknown; approved?: unknown; reason?: unknown }
    }
    if (tool.state !== 'approval-responded' || typeof tool.toolCallId !== 'string') continue
    const { id, approved, reason } = tool.approval ?? {}
    if (typeof id !== 'string' || typeof approved !== 'boolean') continue
    answered.push({
      toolCallId: tool.toolCallId,
      id,
      approved,
      ...(typeof reason === 'string' ? { reason } : {}),
    })
  }
  return answered
}

/**
 * The call ids of the message's tool parts that hold an output or an error (`output-available`,
 * `output-error`): a client-side tool's, added on the page (`addToolOutput`), or a result the answer
 * streamed already.
 */
export function outputsOf(message: Partial<UIMessage>): string[] {
  const ids: string[] = []
  for (const part of message.parts ?? []) {
    const tool = part as { state?: string; toolCallId?: unknown; providerExecuted?: unknown }
    if (typeof tool.toolCallId !== 'string' || tool.providerExecuted === true) continue
    if (tool.state === 'output-available' || tool.state === 'output-error') ids.push(tool.toolCallId)
  }
  return ids
}

/** The page is behind the thread: a 409 that tells it to reload. */
function outOfDate(
  threadId: string,
  reason: string,
  lastSeq: number,
  pageSeq?: number,
  /** What the page asked of a message that is not the thread's last (`details.reason`): a page behind, or an older message. */
  notLast?: 'not-last-answer' | 'not-last-message',
): StrataError {
  return new StrataError({
    code: 'STRATA_SEQ_CONFLICT',
    message: `Chat '${threadId}' changed since the page loaded it (${reason}): load it again with loadUIMessages and send again. Nothing was stored.`,
    details: {
      threadId,
      expectedSeq: pageSeq ?? lastSeq,
      actualSeq: lastSeq,
      ...(notLast === undefined ? {} : { reason: notLast }),
    },
  })
}

/** How many turns back a message id the page sends is looked for (a re-sent or stale message). */
const RECENT_TURNS = 20

/** The body of the request, parsed; a body that is not JSON is a 400, not a 500. */
async function readBody(request: Request): Promise<unknown> {
  const text = await request.text()
  try {
    return JSON.parse(text)
  } catch {
    invalidOptions('The chat request body is not JSON: send { id, message, trigger } (sendLastMessage does).')
  }
}

/** The UI message ids of the recent turns' messages (citations left in place: no content is read). */
async function recentIds(thread: Thread): Promise<Set<string>> {
  const { items } = await thread.transcript({ archived: false, turns: RECENT_TURNS, restore: false })
  const ids = new Set<string>()
  for (const item of items) if (item.type === 'message') ids.add(uiMessageIdOf(item) ?? item.id)
  return ids
}

/**
 * Moves what the thread holds after `afterSeq` to the archive (a regenerate, an edit). The seq it
 * expects is the thread's own last seq, read here: a compaction's summary and facts stored after the
 * turn's last item put it past that item, and the rewind keeps them. Only these paths pay the read.
 */
async function rewindTurn(memory: Memory, thread: Thread, afterSeq: number): Promise<void> {
  const { lastSeq } = await memory.store.head(thread.id)
  await thread.rewind({ afterSeq, expectedLastSeq: lastSeq })
}

/**
 * The seq of the newest conversation message before `seq` (archived turns included), 0 when none: the
 * answer a page keeps when it drops the question at `seq` (an edit) or the answer after it (a
 * regenerate). What the thread holds after it and the page showed on what it drops (a transition
 * made between the answers, a compaction of the rewound turn) is written again at the new answer's
 * start (see `writeMissedTransitions`).
 */
async function keptSeq(thread: Thread, seq: number): Promise<number> {
  return (await conversationBefore(thread, seq, true))?.seq ?? 0
}

/** The stored items of the last turn: its user message and what follows it (scope openings aside). */
async function lastTurn(thread: Thread) {
  const { items } = await thread.transcript({ archived: false, turns: 1, restore: false })
  const start = items.findIndex(
    (item) => item.type === 'message' && item.role === 'user' && item.scope === undefined,
  )
  if (start === -1) return undefined
  const request = items[start] as MessageItem
  const after = items.slice(start + 1)
  const answer = after.find(
    (item): item is MessageItem =>
      item.type === 'message' && item.role === 'assistant' && item.scope === undefined,
  )
  return {
    request,
    requestId: uiMessageIdOf(request) ?? request.id,
    answer,
    after,
    lastSeq: items.at(-1)!.seq,
  }
}

/**
 * Checks a page's answered approvals and client-side tool outputs against the thread: the message must
 * be its last answer, each answered approval one of that answer's calls still without a result, and
 * an answer without approvals must carry an output for such a call; else the page is behind.
 */
function checkApprovals(
  threadId: string,
  turn: Awaited<ReturnType<typeof lastTurn>>,
  message: UIMessage,
  pageSeq: number | undefined,
) {
  const answerId = turn?.answer === undefined ? undefined : (uiMessageIdOf(turn.answer) ?? turn.answer.id)
  if (turn === undefined || answerId !== message.id) {
    throw outOfDate(threadId, `message '${message.id}' is not its last answer`, turn?.lastSeq ?? 0, pageSeq)
  }
  const open = new Set<string>()
  for (const item of turn.after) {
    if (item.type !== 'message') continue
    for (const part of item.content) {
      if (part.type === 'tool-call') open.add(part.toolCallId)
      if (part.type === 'tool-result') open.delete(part.toolCallId)
    }
  }
  for (const approval of approvalsOf(message)) {
    if (!open.has(approval.toolCallId)) {
      throw outOfDate(
        threadId,
        `tool call '${approval.toolCallId}' is answered already`,
        turn.lastSeq,
        pageSeq,
      )
    }
  }
  // Client-side tool outputs: at least one for a call the thread holds no result for (the others are
  // results the answer streamed). Or none, when the answer stopped after its tool results (a step
  // limit, `stopWhen`) and the page sends it back for the model to go on, as `useChat` does with
  // `lastAssistantMessageIsCompleteWithToolCalls`: the thread's last item is then a tool result.
  if (approvalsOf(message).length > 0 || outputsOf(message).some((id) => open.has(id))) return
  const last = turn.after.at(-1)
  if (last?.type === 'message' && last.role === 'tool') return
  throw outOfDate(threadId, 'its tool calls are answered already', turn.lastSeq, pageSeq)
}

/** The UI message of a stored user message, as `loadUIMessages` gives it. */
async function storedMessage(memory: Memory, threadId: string) {
  const messages = await loadUIMessages(memory, threadId, { limit: 1, visibleOnly: true })
  return messages.find((message) => message.role === 'user')
}

/**
 * Opens a chat request in a route that receives only the newest message (`sendLastMessage`): checks
 * the body, takes the thread (`thread.hold()`: another request on the chat is `STRATA_THREAD_BUSY`,
 * a 409, before anything is written), then tells what the page asks for from its `trigger` and ids:
 *
 * - a new message: continues the thread (a page that was behind, or a new device with an empty chat,
 *   continues it too: the model sees the whole thread);
 * - the thread's last message sent again with no answer after it (a retry after a failure or a
 *   reload): continues without storing it twice;
 * - `regenerate-message` of the last answer: the answer moves to the archive (`thread.rewind`), and
 *   its question is answered again;
 * - an edit of the last user message (`messageId` is the message's own id): it and its answer move to
 *   the archive, and the edited message is stored.
 *
 * A regenerate of a chat that holds no message is `STRATA_INVALID_MESSAGE` (a 400), unless the page
 * says it shows messages (`lastSeq`): then the page is behind a deleted chat, as below.
 *
 * A regenerate or edit of anything but the last turn, or a message the thread already answered, comes
 * from a page that is behind: `STRATA_SEQ_CONFLICT` (a 409; the page reloads), and nothing is
 * archived, so a stale copy never rewinds newer turns. Every error releases the hold; pass any thrown
 * error to `strataErrorResponse`. On success release the hold when the response's stream has ended.
 *
 * @example
 * let chat
 * try {
 *   chat = await openChatRequest({ memory, request })
 * } catch (error) {
 *   return strataErrorResponse(error) // 400 bad body, 409 busy or out of date
 * }
 */
export async function openChatRequest<M extends UIMessage = UIMessage>(
  options: OpenChatRequestOptions,
): Promise<ChatRequest<M>> {
  const { memory, request, generateId = defaultGenerateId } = options ?? ({} as OpenChatRequestOptions)
  if (typeof memory?.thread !== 'function') {
    invalidOptions('openChatRequest() needs { memory }: the memory from createMemory().')
  }
  const body = checkBody(request === undefined ? options.body : await readBody(request))
  if (body.trigger !== 'regenerate-message' && body.message?.role === 'user')
    await checkUserMessage(body.message)
  const threadId = body.id
  // Any chat id: one outside the store's rule opens its mapped thread, which keeps the chat's id.
  const thread = await openChatThread(memory, threadId)
  const hold = await thread.hold()
  try {
    const turn = await lastTurn(thread)
    let message: M
    let pageSeq = body.lastSeq
    if (body.trigger === 'regenerate-message') {
      if (turn === undefined) {
        // A page that shows messages the thread no longer holds (a deleted chat) is out of date; one
        // that shows none, or says nothing of what it shows, asked for what no chat can do.
        if ((body.lastSeq ?? 0) > 0) throw outOfDate(threadId, 'it holds no message', 0, body.lastSeq)
        throw new StrataError({
          code: 'STRATA_INVALID_MESSAGE',
          message: `Chat '${threadId}' holds no answer to generate again: send a message first. Nothing was stored.`,
          details: { reason: 'nothing-to-regenerate', threadId },
        })
      }
      const target = body.messageId
      const answerId = turn.answer === undefined ? undefined : (uiMessageIdOf(turn.answer) ?? turn.answer.id)
      if (target !== undefined && target !== answerId && target !== turn.requestId) {
        throw outOfDate(
          threadId,
          `message '${target}' is not its last answer`,
          turn.lastSeq,
          body.lastSeq,
          'not-last-answer',
        )
      }
      // `regenerate()` without an id names the page's last answer by the question before it: a page
      // behind the thread sends an older question, and the thread's newer turns stay.
      if (body.message !== undefined && body.message.id !== turn.requestId) {
        throw outOfDate(
          threadId,
          `message '${body.message.id}' is not the question of its last answer`,
          turn.lastSeq,
          body.lastSeq,
        )
      }
      if (turn.after.length > 0) await rewindTurn(memory, thread, turn.request.seq)
      const stored = await storedMessage(memory, threadId)
      if (stored === undefined)
        throw outOfDate(threadId, 'it holds no message to answer again', turn.lastSeq, body.lastSeq)
      message = stored as unknown as M
      pageSeq = await keptSeq(thread, turn.request.seq)
    } else if (body.message?.role === 'assistant') {
      // The page answered tool approvals or client-side tools of the last answer: the answer goes on,
      // under its own id (the tool results are stored as the model's prompt carries them).
      message = body.message as M
      checkApprovals(threadId, turn, message, body.lastSeq)
      const answerId = message.id
      return {
        threadId,
        thread,
        hold,
        message,
        messageId: answerId,
        ...(body.lastSeq === undefined ? {} : { lastSeq: body.lastSeq }),
        providerOptions: {
          strata: {
            threadId,
            messageId: answerId,
            userMessageId: turn!.requestId,
            approvals: Object.fromEntries(
              approvalsOf(message).map(({ toolCallId, ...approval }) => [toolCallId, approval]),
            ),
          },
        },
      }
    } else {
      message = body.message as M
      const edit = body.messageId !== undefined && body.messageId === message.id
      if (turn !== undefined && message.id === turn.requestId) {
        if (edit) {
          pageSeq = await keptSeq(thread, turn.request.seq)
          await rewindTurn(memory, thread, turn.request.seq - 1)
        } else if (turn.answer !== undefined) {
          throw outOfDate(threadId, `message '${message.id}' is already answered`, turn.lastSeq, body.lastSeq)
        }
        // Else a retry: the middleware recognises the stored message and stores it once.
      } else if (edit || (await recentIds(thread)).has(message.id)) {
        throw outOfDate(
          threadId,
          `message '${message.id}' is ${edit ? 'not its last message' : 'already in it'}`,
          turn?.lastSeq ?? 0,
          body.lastSeq,
          edit ? 'not-last-message' : undefined,
        )
      }
    }
    const messageId = generateId()
    return {
      threadId,
      thread,
      hold,
      message,
      messageId,
      ...(pageSeq === undefined ? {} : { lastSeq: pageSeq }),
      providerOptions: { strata: { threadId, messageId, userMessageId: message.id } },
    }
  } catch (error) {
    await hold.release()
    throw error
  }
}
