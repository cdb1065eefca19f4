import { StrataError } from '../errors'
import type { HistoryMode } from '../history'
import type { MessageInput, MessageItem } from '../items'
import type { RewindRefusal } from '../rewind'
import type { Thread } from './thread'
import type { AppendFitOptions } from './thread-types'

/** What an adapter does with a history that does not continue its thread. */
export type DivergenceHandling = 'rewind' | 'reject'

/** Options of {@link followHistory}. */
export interface FollowHistoryOptions<T> {
  /** What the messages hold (see `unseenMessages`). @default 'auto' */
  history?: HistoryMode
  /** Maps a framework message to core's message input. @default the message itself */
  toMessage?: (message: T) => MessageInput
  /**
   * `'rewind'`: a history that leaves the thread rewinds it to where it leaves it; `'reject'`: such a
   * history is refused. @default 'rewind'
   */
  onDivergence?: DivergenceHandling
  /**
   * What the next model call sends besides the context: with it, a request that cannot fit the input
   * budget is refused with `STRATA_BUDGET_EXCEEDED` before anything is stored (see `appendUnseen`).
   */
  fit?: AppendFitOptions
  /**
   * The messages hold only the conversation's newest messages, not its start: another middleware
   * put a summary in place of the older ones, or cleared them (see `thread.divergence`). A fork
   * from an earlier checkpoint of such a history is then followed like any other. @default false
   */
  partial?: boolean
}

/** Why a rewind was refused, in the words of someone who regenerated or edited a message. */
const UNSAFE: Record<RewindRefusal, string> = {
  compacted: 'the messages from there on are already compacted into a summary.',
  'scope-changed': 'a scope was opened or closed after that point.',
  'tool-call-split': 'it would split a tool call from its result.',
}

const NOT_CONTINUING =
  'its last stored message is not among them, though earlier ones are (a regenerated answer or an edited message?).'

/**
 * Before anything is stored: a history that does not continue the thread (a regenerated answer, an
 * edited message, a fork from an earlier checkpoint) makes the thread rewind to where the history
 * leaves it (`'rewind'`: the messages after that point move to the archive), or is refused with
 * `STRATA_INVALID_MESSAGE` (`'reject'`). Both questions are positional: the stored tail must line up
 * with the end of the history (`thread.divergence`, `unseenMessages`). A rewind that is not safe (the
 * point lies in a compacted range, a scope was opened or closed after it, it would split a tool call
 * from its result) is refused the same way, with the reason; a writer that appended meanwhile makes it
 * `STRATA_SEQ_CONFLICT`. With `fit`, a request that could not fit the budget is refused
 * (`STRATA_BUDGET_EXCEEDED`) before the rewind. Refused, nothing is stored or archived.
 */
async function followDivergence<T extends { role: string }>(
  thread: Thread,
  messages: readonly T[],
  history: HistoryMode,
  handling: DivergenceHandling,
  toMessage: ((message: T) => MessageInput) | undefined,
  fit: AppendFitOptions | undefined,
  partial: boolean,
): Promise<void> {
  if (history === 'new' || messages.length === 0 || (history === 'auto' && loneRequest(messages))) return
  const divergence = await thread.divergence(messages, {
    history,
    ...(toMessage ? { toMessage } : {}),
    ...(partial ? { partial } : {}),
  })
  const refuse = (why: string, details: Record<string, unknown> = {}, cause?: unknown): never => {
    throw new StrataError({
      code: 'STRATA_INVALID_MESSAGE',
      message: `The messages sent do not continue thread '${thread.id}': ${why} Nothing was stored: send the history the thread holds, or go on in a new thread.`,
      details: { threadId: thread.id, ...details },
      ...(cause === undefined ? {} : { cause }),
    })
  }
  // No point to rewind to: the history continues the thread, holds only new messages, or neither; the
  // append that follows tells them apart on the thread's own log (see noDivergencePoint).
  if (divergence === undefined) return
  const where = { lastStoredSeq: divergence.lastSeq }
  if (handling === 'reject') {
    refuse(
      `${NOT_CONTINUING} The adapter was created with onDivergence: 'reject', so the thread is not rewound to where they leave it.`,
      where,
    )
  }
  // A request that could not fit is refused before the rewind archives anything: the newest user
  // message of the history is the request the context would have to keep.
  const request = messages.findLast((message) => message.role === 'user')
  if (fit !== undefined && request !== undefined) {
    await thread.checkFit(toMessage ? toMessage(request) : (request as unknown as MessageInput), fit)
  }
  try {
    await rewindTo(thread, divergence.afterSeq, divergence.lastSeq)
  } catch (error) {
    if (!StrataError.isInstance(error, 'STRATA_REWIND_UNSAFE')) throw error
    const reason = error.details.reason as RewindRefusal
    refuse(
      `they leave it after seq ${divergence.lastKeptSeq} (a regenerated answer or an edited message), and it cannot be rewound there: ${UNSAFE[reason] ?? error.message}`,
      { ...where, reason, afterSeq: divergence.afterSeq },
      error,
    )
  }
}

/**
 * Rewinds the thread to after `afterSeq`. A point between a tool call and its result (a history that
 * keeps the call and gives it another result: a replay that ran the tool again, a corrected result)
 * moves back to before the call's message, which the history holds and stores again with its new
 * result: a call and its result move to the archive together.
 */
async function rewindTo(thread: Thread, afterSeq: number, lastSeq: number): Promise<void> {
  try {
    await thread.rewind({ afterSeq, expectedLastSeq: lastSeq })
  } catch (error) {
    if (!StrataError.isInstance(error, 'STRATA_REWIND_UNSAFE') || error.details.reason !== 'tool-call-split')
      throw error
    const toolCallId = error.details.toolCallId
    const { items } = await thread.transcript({
      archived: false,
      restore: false,
      turns: 1,
      beforeSeq: afterSeq + 1,
    })
    const call = items.findLast(
      (item) =>
        item.type === 'message' &&
        item.content.some((part) => part.type === 'tool-call' && part.toolCallId === toolCallId),
    )
    if (call === undefined) throw error
    await thread.rewind({ afterSeq: call.seq - 1, expectedLastSeq: lastSeq })
  }
}

/**
 * Whether the list holds one conversation message and it is not an answer: what the persistence
 * recipe sends on every call. In `'auto'` such a list has no point to rewind to whatever the thread
 * holds (see `divergencePoint`: it cannot match more of the stored tail than one message, nor re-send
 * an answer), so the thread is not asked; `appendUnseen` tells a re-send from a new message.
 */
function loneRequest(messages: readonly { role: string }[]): boolean {
  // Anything else (not a list) is the thread's to refuse.
  if (!Array.isArray(messages)) return false
  let conversation: { role: string } | undefined
  for (const message of messages) {
    if (message.role === 'system') continue
    if (conversation !== undefined) return false
    conversation = message
  }
  return conversation !== undefined && conversation.role !== 'assistant'
}

/**
 * The refusal of a history that neither continues its thread nor has a point to rewind it to, from the
 * thread's own refusal to store it (`appendUnseen`'s `STRATA_INVALID_MESSAGE` with reason
 * `not-continuing`), in an adapter's words; any other error (a malformed message among them) as it is.
 */
export function noDivergencePoint(error: unknown, threadId: string, history: HistoryMode): unknown {
  if (!StrataError.isInstance(error, 'STRATA_INVALID_MESSAGE') || error.details.reason !== 'not-continuing') {
    return error
  }
  return new StrataError({
    code: 'STRATA_INVALID_MESSAGE',
    message: `The messages sent do not continue thread '${threadId}': ${NOT_CONTINUING} No stored message they still hold in order was found to rewind the thread to (the first message edited, one more than 256 messages back, stored messages before it left out, or another conversation sent with history: '${history}'?). Nothing was stored: send the history the thread holds, or go on in a new thread.`,
    details: { threadId, history, reason: 'no-divergence-point' },
    cause: error,
  })
}

/**
 * What every adapter does with the history a framework sends: a history that does not continue the
 * thread rewinds it (or is refused, see `onDivergence`), then the messages the thread has not seen are
 * stored (`thread.appendUnseen`). Returns the stored items. Refused, nothing is stored.
 *
 * @example
 * await followHistory(thread, request.messages, { history: 'auto', toMessage: fromFrameworkMessage })
 */
export async function followHistory<T extends { role: string }, L extends string = string>(
  thread: Thread<L>,
  messages: readonly T[],
  options: FollowHistoryOptions<T> = {},
): Promise<MessageItem<L>[]> {
  const { history = 'auto', toMessage, onDivergence = 'rewind', fit, partial = false } = options
  await followDivergence(
    thread as unknown as Thread,
    messages,
    history,
    onDivergence,
    toMessage,
    fit,
    partial,
  )
  return thread
    .appendUnseen(messages, { history, ...(toMessage ? { toMessage } : {}), ...(fit ? { fit } : {}) })
    .catch((error: unknown) => {
      throw noDivergencePoint(error, thread.id, history)
    })
}
