import type { LanguageModelV4Message } from '@ai-sdk/provider'
import {
  type HistoryMode,
  type Item,
  type Memory,
  messageFingerprint,
  readConversationTail,
  StrataError,
  unseenMessages,
} from '@strata-memory/core'
import { fromProviderMessage } from '../messages/provider-prompt'

type ConversationMessage = Exclude<LanguageModelV4Message, { role: 'system' }>

/** How far from the end of the prompt the thread's last stored message is looked for. */
const NEAR_END = 64

const isConversation = (item: Item): boolean =>
  item.type === 'message' && item.role !== 'system' && item.scope === undefined

/**
 * Refuses, before anything is stored, a history that shares messages with the thread but does not
 * continue it: its last stored message is not near the end of the prompt, yet earlier ones are there.
 * That is what `useChat` sends after regenerating an answer or editing a message; matching it against
 * the stored tail finds no alignment, and the whole history would be stored a second time.
 *
 * With `history: 'full'` every call holds the whole history, so a missing last message is enough.
 * With `'auto'` a call may hold only new messages: the prompt must also repeat two consecutive stored
 * messages just before its last one. `'new'` calls are never checked.
 */
export async function assertContinuesThread(
  memory: Memory,
  threadId: string,
  conversation: readonly ConversationMessage[],
  history: HistoryMode,
): Promise<void> {
  if (history === 'new' || conversation.length === 0) return
  if (history === 'auto' && conversation.length < 3) return
  const tail = await readConversationTail(memory.store, threadId, { window: 1 })
  let last: Item | undefined
  for (const item of tail) if (isConversation(item)) last = item
  if (last === undefined) return
  const nearEnd = conversation.slice(-NEAR_END)
  // Core's matching, so a part the content channel replaced by a citation still matches its original.
  const { matched } = unseenMessages([last], nearEnd, { history: 'auto', toComparable: fromProviderMessage })
  if (matched > 0) return
  if (history === 'auto' && !(await repeatsStoredPair(memory, threadId, conversation))) return
  throw new StrataError({
    code: 'STRATA_INVALID_MESSAGE',
    message:
      `The messages sent do not continue thread '${threadId}': its last stored message is not among them, ` +
      'though earlier ones are (a regenerated answer or an edited message?). Strata keeps an append-only ' +
      'log and cannot take stored messages back, so nothing was stored: send the history the thread ' +
      'holds, or go on in a new thread.',
    details: { threadId, lastStoredSeq: last.seq },
  })
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
