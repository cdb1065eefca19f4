import { StrataError } from '../errors'
import type { StrataStore } from '../stores/store'
import type { Item } from './item'
import {
  type ComparableMessage,
  IncomingConversation,
  isConversation,
  type StoredPattern,
  storedPatternOf,
} from './message-matching'

export type { ComparableMessage } from './message-matching'
export { messageFingerprint } from './message-matching'

/**
 * What an adapter knows about the message list a framework hands it on each call:
 * - `'auto'`: either the whole history or only new messages; the stored tail is looked for in it.
 * - `'full'`: always the whole history (the usual AI SDK route handler); only an incoming list that
 *   holds the stored tail in full counts as a re-send.
 * - `'new'`: only messages the framework has not sent before (plus, in a tool loop, the step's own
 *   re-sent messages): at least one incoming message is always new.
 */
export type HistoryMode = 'auto' | 'full' | 'new'

/** Options of {@link unseenMessages}. */
export interface UnseenMessagesOptions<T = ComparableMessage> {
  /**
   * What the incoming list holds; see {@link HistoryMode}.
   * @default 'auto'
   */
  history?: HistoryMode
  /**
   * The most stored conversation messages compared, newest first. A longer matching run counts as
   * the same history, so the cost per call stays flat however long the thread grows.
   * @default 64
   */
  window?: number
  /**
   * Maps an incoming message to the form it is compared in, for frameworks whose messages are not
   * core's: only the few messages actually compared are mapped. `index` is the message's position in
   * the incoming list (system messages included).
   * @default the message itself
   */
  toComparable?: (message: T, index: number) => ComparableMessage
}

/** What {@link unseenMessages} found. */
export interface UnseenMessagesResult<T> {
  /** The incoming conversation messages the thread has not stored, in order (system messages left out). */
  unseen: T[]
  /** How many incoming conversation messages matched the stored tail (0: none). */
  matched: number
}

const HISTORY_MODES: readonly HistoryMode[] = ['auto', 'full', 'new']
export const DEFAULT_WINDOW = 64

/**
 * The incoming messages a thread has not stored yet, for adapters whose framework re-sends the whole
 * history on every call, sends only the new message, or re-sends a tool loop's earlier steps.
 *
 * The end of the thread's stored conversation (messages only; scope openings, transitions, summaries,
 * facts and system messages are not part of what a framework sends) is aligned with the incoming list:
 * for each position, newest first, the messages before it are compared with the stored tail, newest
 * first, until one differs, the stored tail is exhausted (at most `window` messages), or the incoming
 * list is. The newest position where the run is not broken wins, and what follows it is new. Only the
 * active tail is needed, so budget compaction archiving old turns does not disturb it. A part the
 * content channel offloaded is stored as a citation: it matches the re-sent original by what the
 * citation keeps (a tool result by call id and tool name, a file by media type, a text by being
 * text), so offloading does not make a re-sent history look new.
 *
 * The ambiguity no alignment can settle: an incoming message identical (role and content) to the last
 * stored message may be a re-send (a retry after a failed call) or a new message that repeats it.
 * `'auto'` and `'full'` take it for a re-send; `'new'` stores it again, because in that mode at least one
 * incoming message is always new. `'full'` also refuses to align an incoming list that holds only the
 * end of the stored tail (its first message would then be mid-history, which a full history never is),
 * so a new conversation that happens to repeat the last stored messages is stored.
 *
 * @example
 * const { unseen } = unseenMessages(await thread.items(), incoming, { history: 'auto' })
 * if (unseen.length > 0) await thread.append(unseen)
 */
export function unseenMessages<T extends { role: string }>(
  stored: readonly Item[],
  incoming: readonly T[],
  options: UnseenMessagesOptions<T> = {},
): UnseenMessagesResult<T> {
  const { history = 'auto', window = DEFAULT_WINDOW } = options
  const toComparable = options.toComparable ?? ((message: T) => message as unknown as ComparableMessage)
  checkMatchingOptions({ history, window })
  const messages = new IncomingConversation(incoming, toComparable)
  const { indexes, matched } = alignTail(stored, messages, history, window)
  return { unseen: indexes.map((index) => incoming[index]!), matched }
}

/**
 * The stored conversation's last `window` messages, newest first, as the matchers compare them. Only
 * the active log's tail is read, so budget compaction archiving old turns does not disturb it.
 */
export function storedTail(stored: readonly Item[], window: number): StoredPattern[] {
  const tail: StoredPattern[] = []
  for (let index = stored.length - 1; index >= 0 && tail.length < window; index--) {
    const item = stored[index]!
    if (isConversation(item)) tail.push(storedPatternOf(item))
  }
  return tail
}

/**
 * The rule of {@link unseenMessages}, on an incoming list the caller keeps (so a thread maps each
 * message once however often it matches): the indexes in `incoming` of the unseen messages, oldest
 * first, and how many incoming messages matched the stored tail. `aligned` is false when the list
 * holds messages but no alignment was found, so every conversation message counts as unseen.
 */
export function alignTail<T extends { role: string }>(
  stored: readonly Item[],
  messages: IncomingConversation<T>,
  history: HistoryMode,
  window: number,
): { indexes: number[]; matched: number; aligned: boolean } {
  const tail = storedTail(stored, window)
  if (tail.length === 0 || messages.fromEnd(0) === undefined) {
    return { indexes: messages.last(messages.length), matched: 0, aligned: true }
  }
  // `skipped` counts the newest messages taken for unseen; the run before them is compared with the
  // stored tail. In 'new' mode the whole list can never be a re-send: the last message is always new.
  for (let skipped = history === 'new' ? 1 : 0; messages.fromEnd(skipped) !== undefined; skipped++) {
    let run = 0
    let incomingExhausted = false
    while (run < tail.length) {
      const index = messages.fromEnd(skipped + run)
      if (index === undefined) {
        incomingExhausted = true
        break
      }
      if (!messages.matches(index, tail[run]!)) break
      run++
    }
    const tailExhausted = run === tail.length
    if (tailExhausted || (incomingExhausted && history !== 'full')) {
      return { indexes: messages.last(skipped), matched: run, aligned: true }
    }
  }
  return { indexes: messages.last(messages.length), matched: 0, aligned: false }
}

/** Throws `STRATA_INVALID_OPTIONS` for an unknown history mode or a window that is not a count. */
export function checkMatchingOptions({ history, window }: { history: HistoryMode; window: number }) {
  if (!HISTORY_MODES.includes(history)) {
    throw new StrataError({
      code: 'STRATA_INVALID_OPTIONS',
      message: `history must be 'auto', 'full' or 'new' (got ${JSON.stringify(history)}).`,
      details: { history },
    })
  }
  checkWindow(window)
}

function checkWindow(window: number) {
  if (!Number.isInteger(window) || window < 1) {
    throw new StrataError({
      code: 'STRATA_INVALID_OPTIONS',
      message: `window must be a whole number of at least 1 (got ${String(window)}).`,
      details: { window },
    })
  }
}

/**
 * The newest items of a thread's active log, enough to hold its last `window` conversation messages
 * (fewer when the log has fewer), read straight from the store by seq range, oldest first. It costs
 * the tail, not the log: pass it to {@link unseenMessages} on every model call of a long thread.
 *
 * @example
 * const tail = await readConversationTail(memory.store, thread.id)
 * const { unseen } = unseenMessages(tail, incoming)
 */
export async function readConversationTail(
  store: StrataStore,
  threadId: string,
  { window = DEFAULT_WINDOW }: { window?: number } = {},
): Promise<Item[]> {
  checkWindow(window)
  const { lastSeq } = await store.head(threadId)
  const chunks: Item[][] = []
  let found = 0
  let toSeq = lastSeq
  // Scopes, transitions and summaries sit between messages, and archived seqs read as gaps: read
  // backwards in growing ranges until the window is full or the log begins.
  for (let size = window * 2; toSeq >= 1 && found < window; size *= 2) {
    const fromSeq = Math.max(1, toSeq - size + 1)
    const items = await store.read(threadId, { fromSeq, toSeq })
    chunks.unshift(items)
    for (const item of items) if (isConversation(item)) found++
    toSeq = fromSeq - 1
  }
  return chunks.flat()
}
