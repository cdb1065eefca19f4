import type { LanguageModelV4Message } from '@ai-sdk/provider'
import { type HistoryMode, type RewindRefusal, StrataError, type Thread } from '@strata-memory/core'
import { fromProviderMessage } from '../messages/provider-prompt'

type ConversationMessage = Exclude<LanguageModelV4Message, { role: 'system' }>

/** What the middleware does with a history that does not continue its thread. */
export type DivergenceHandling = 'rewind' | 'reject'

/** Why a rewind was refused, in the words of someone who regenerated or edited a message. */
const UNSAFE: Record<RewindRefusal, string> = {
  compacted: 'the messages from there on are already compacted into a summary.',
  'scope-changed': 'a scope was opened or closed after that point.',
  'tool-call-split': 'it would split a tool call from its result.',
}

const NOT_CONTINUING =
  'its last stored message is not among them, though earlier ones are (a regenerated answer or an edited message?).'

/**
 * Before anything is stored: a prompt that does not continue the thread (`useChat`'s regenerate or
 * edit) makes the thread rewind to where the prompt leaves it (`'rewind'`: the messages after that
 * point move to the archive, and the prompt's new messages are then stored as usual), or is refused
 * with `STRATA_INVALID_MESSAGE` (`'reject'`). Both questions are core's, and positional: the stored
 * tail must line up with the end of the prompt (`thread.divergence`, `unseenMessages`), so answers
 * that all read the same do not hide a regenerate, and a history that left out the thread's tool
 * messages (a client that keeps only text) still continues it. A rewind that is not safe (the point
 * lies in a compacted range, a scope was opened or closed after it, it would split a tool call from
 * its result), or a prompt that does not continue the thread yet has no point to rewind to, is
 * refused the same way, with the reason; a writer that appended meanwhile makes it
 * `STRATA_SEQ_CONFLICT`. Refused, nothing is stored or archived.
 */
export async function followDivergence(
  thread: Thread,
  conversation: readonly ConversationMessage[],
  history: HistoryMode,
  handling: DivergenceHandling,
): Promise<void> {
  if (history === 'new' || conversation.length === 0) return
  const divergence = await thread.divergence(conversation, { history, toMessage: fromProviderMessage })
  const refuse = (why: string, details: Record<string, unknown> = {}, cause?: unknown): never => {
    throw new StrataError({
      code: 'STRATA_INVALID_MESSAGE',
      message: `The messages sent do not continue thread '${thread.id}': ${why} Nothing was stored: send the history the thread holds, or go on in a new thread.`,
      details: { threadId: thread.id, ...details },
      ...(cause === undefined ? {} : { cause }),
    })
  }
  // No point to rewind to: the prompt continues the thread, holds only new messages, or neither; the
  // append that follows tells them apart on the thread's own log (see noDivergencePoint).
  if (divergence === undefined) return
  const where = { lastStoredSeq: divergence.lastSeq }
  if (handling === 'reject') {
    refuse(
      `${NOT_CONTINUING} The middleware was created with onDivergence: 'reject', so the thread is not rewound to where they leave it.`,
      where,
    )
  }
  try {
    await thread.rewind({ afterSeq: divergence.afterSeq, expectedLastSeq: divergence.lastSeq })
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
 * The refusal of a prompt that neither continues its thread nor has a point to rewind it to, from the
 * thread's own refusal to store it (`appendUnseen`'s `STRATA_INVALID_MESSAGE` with reason
 * `not-continuing`), in the middleware's words; any other error (a malformed message among them) as
 * it is.
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
