import type { LanguageModelV4Message } from '@ai-sdk/provider'
import {
  type HistoryMode,
  type Item,
  type Memory,
  messageFingerprint,
  type RewindRefusal,
  readConversationTail,
  StrataError,
  type Thread,
  unseenMessages,
} from '@strata-memory/core'
import { fromProviderMessage } from '../messages/provider-prompt'

type ConversationMessage = Exclude<LanguageModelV4Message, { role: 'system' }>

/** How far from the end of the prompt the thread's last stored message is looked for. */
const NEAR_END = 64

const isConversation = (item: Item): boolean =>
  item.type === 'message' && item.role !== 'system' && item.scope === undefined

/** What the middleware does with a history that does not continue its thread. */
export type DivergenceHandling = 'rewind' | 'reject'

/**
 * Whether the prompt shares messages with the thread but does not continue it: its last stored message
 * is not near the end of the prompt, yet earlier ones are there. That is what `useChat` sends after
 * regenerating an answer or editing a message; matching it against the stored tail finds no alignment,
 * and the whole history would be stored a second time. Returns the last stored message's seq, or
 * undefined when the prompt continues the thread (or cannot be told apart from new messages).
 *
 * With `history: 'full'` every call holds the whole history, so a missing last message is enough.
 * With `'auto'` a call may hold only new messages: the prompt must also repeat two consecutive stored
 * messages just before its last one. `'new'` calls are never checked.
 */
async function lastStoredSeqIfDiverged(
  memory: Memory,
  threadId: string,
  conversation: readonly ConversationMessage[],
  history: HistoryMode,
): Promise<number | undefined> {
  if (history === 'new' || conversation.length === 0) return undefined
  if (history === 'auto' && conversation.length < 3) return undefined
  const tail = await readConversationTail(memory.store, threadId, { window: 1 })
  let last: Item | undefined
  for (const item of tail) if (isConversation(item)) last = item
  if (last === undefined) return undefined
  const nearEnd = conversation.slice(-NEAR_END)
  // Core's matching, so a part the content channel replaced by a citation still matches its original.
  const { matched } = unseenMessages([last], nearEnd, { history: 'auto', toComparable: fromProviderMessage })
  if (matched > 0) return undefined
  if (history === 'auto' && !(await repeatsStoredPair(memory, threadId, conversation))) return undefined
  return last.seq
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
 * Before anything is stored: a prompt that does not continue the thread (`useChat`'s regenerate or
 * edit) makes the thread rewind to where the prompt leaves it (`'rewind'`: the messages after that
 * point move to the archive, and the prompt's new messages are then stored as usual), or is refused
 * with `STRATA_INVALID_MESSAGE` (`'reject'`). A rewind that is not safe (the point lies in a compacted
 * range, a scope was opened or closed after it, it would split a tool call from its result) or that
 * finds no point is refused the same way, with the reason; a writer that appended meanwhile makes it
 * `STRATA_SEQ_CONFLICT`. Refused, nothing is stored or archived.
 */
export async function followDivergence(
  memory: Memory,
  thread: Thread,
  conversation: readonly ConversationMessage[],
  history: HistoryMode,
  handling: DivergenceHandling,
): Promise<void> {
  const lastStoredSeq = await lastStoredSeqIfDiverged(memory, thread.id, conversation, history)
  if (lastStoredSeq === undefined) return
  const refuse = (why: string, details: Record<string, unknown> = {}, cause?: unknown): never => {
    throw new StrataError({
      code: 'STRATA_INVALID_MESSAGE',
      message: `The messages sent do not continue thread '${thread.id}': ${why} Nothing was stored: send the history the thread holds, or go on in a new thread.`,
      details: { threadId: thread.id, lastStoredSeq, ...details },
      ...(cause === undefined ? {} : { cause }),
    })
  }
  if (handling === 'reject') {
    refuse(
      `${NOT_CONTINUING} The middleware was created with onDivergence: 'reject', so the thread is not rewound to where they leave it.`,
    )
  }
  const divergence = await thread.divergence(conversation, { history, toMessage: fromProviderMessage })
  if (divergence === undefined) {
    return refuse(
      `${NOT_CONTINUING} No stored message they still hold in order was found to rewind the thread to (the first message edited, one more than 256 messages back, or stored messages before it left out?).`,
      { reason: 'no-divergence-point' },
    )
  }
  try {
    await thread.rewind({ afterSeq: divergence.afterSeq, expectedLastSeq: divergence.lastSeq })
  } catch (error) {
    if (!StrataError.isInstance(error, 'STRATA_REWIND_UNSAFE')) throw error
    const reason = error.details.reason as RewindRefusal
    refuse(
      `they leave it after seq ${divergence.lastKeptSeq} (a regenerated answer or an edited message), and it cannot be rewound there: ${UNSAFE[reason] ?? error.message}`,
      { reason, afterSeq: divergence.afterSeq },
      error,
    )
  }
}

/** Whether the two messages before the prompt's last one are stored, one after the other. */
async function repeatsStoredPair(
  memory: Memory,
  threadId: string,
  conversation: readonly ConversationMessage[],
): Promise<boolean> {
  const [first, second] = conversation
    .slice(-3, -1)
    .map((message) => messageFingerprint(fromProviderMessage(message)))
  const stored = (await readConversationTail(memory.store, threadId)).filter(isConversation)
  for (let index = 0; index + 1 < stored.length; index++) {
    const item = stored[index]!
    const next = stored[index + 1]!
    if (item.type !== 'message' || next.type !== 'message') continue
    if (messageFingerprint(item) === first && messageFingerprint(next) === second) return true
  }
  return false
}
