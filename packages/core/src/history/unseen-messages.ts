import { invalidOptions, StrataError, shownValue } from '../errors'
import type { Item } from '../items/item'
import type { StrataStore } from '../stores/store'
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
  /**
   * False when the thread holds a conversation that the list does not continue: a `'full'` list
   * without the stored tail before its new messages, or an `'auto'` list that matches no stored tail
   * yet re-sends an answer the thread stored (a regenerated or edited history, or one that lost stored
   * messages). Storing `unseen` would then store part of the history a second time: look for the
   * point where the list leaves the thread (`thread.divergence`) instead.
   */
  aligned: boolean
}

/** Every {@link HistoryMode}, in the order error messages list them. */
export const HISTORY_MODES: readonly HistoryMode[] = ['auto', 'full', 'new']
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
 * A client that keeps only the text of a conversation (as chat UIs often persist it) re-sends it
 * without what the thread stored of its tool loops. When the exact comparison finds no match, the
 * list may leave out tool messages and answers holding only tool calls, and an answer that made tool
 * calls matches its text alone; a user message or an answer's text is never left out, so an edited
 * message or a regenerated answer still does not align. Such an alignment must match a message, and
 * its new messages must not name a tool call the list left out.
 *
 * The ambiguity no alignment can settle: an incoming message identical (role and content) to the last
 * stored message may be a re-send (a retry after a failed call) or a new message that repeats it.
 * `'auto'` and `'full'` take it for a re-send; `'new'` stores it again, because in that mode at least one
 * incoming message is always new. `'full'` also refuses to align an incoming list that holds only the
 * end of the stored tail (its first message would then be mid-history, which a full history never is).
 * A list that does not continue the thread is reported with `aligned: false` (see
 * {@link UnseenMessagesResult.aligned}): storing its `unseen` would store the history a second time.
 *
 * @example
 * const { unseen, aligned } = unseenMessages(await thread.items(), incoming, { history: 'auto' })
 * if (aligned && unseen.length > 0) await thread.append(unseen)
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
  const { indexes, matched, aligned } = alignTail(stored, messages, history, window)
  return { unseen: indexes.map((index) => incoming[index]!), matched, aligned }
}

/**
 * The stored conversation's last `window` messages, newest first, as the matchers compare them. Only
 * the active log is read, back to where compaction archived items (a gap in the seqs that an episodic
 * summary covers): the incoming list still holds what budget compaction archived — old turns, or old
 * tool steps inside a turn — where the active log no longer does. A gap a rewind left (no summary
 * covers it) is walked over: the list no longer holds what was rewound either.
 */
export function storedTail(stored: readonly Item[], window: number): readonly StoredPattern[] {
  const last = stored[stored.length - 1]
  const kept = lastTails.get(stored)
  if (kept !== undefined && kept.length === stored.length && kept.last === last && kept.window === window) {
    return kept.tail
  }
  const tail: StoredPattern[] = []
  if (walkTail(stored, window, tail)) lastTails.set(stored, { length: stored.length, last, window, tail })
  return tail
}

/**
 * The last tail worked out of each list: a call that re-sends its history aligns it twice against the
 * same log (once to look for a divergence, once to append what it has not seen), and a call that
 * retries once more. The list is the log's own array, which only changes by growing, by losing items
 * (either changes its length or its last entry) or by an entry sealed, unsealed or frozen in place (the
 * same item), as `LevelViews` relies on. Kept only when every item the walk read was frozen: a pattern
 * of a frozen item is the one `storedPatternOf` keeps for it, while one of an item frozen later would
 * lack what the frozen item's pattern holds (its parts, which match without a fingerprint).
 */
const lastTails = new WeakMap<
  readonly Item[],
  { length: number; last: Item | undefined; window: number; tail: StoredPattern[] }
>()

/** Fills `tail` (see {@link storedTail}); true when every item it read was frozen. */
function walkTail(stored: readonly Item[], window: number, tail: StoredPattern[]): boolean {
  let frozen = true
  for (let index = stored.length - 1; index >= 0 && tail.length < window; index--) {
    const item = stored[index]!
    if (frozen && !Object.isFrozen(item)) frozen = false
    if (isConversation(item)) tail.push(storedPatternOf(item))
    const older = stored[index - 1]
    if (older !== undefined && older.seq !== item.seq - 1 && compacted(stored, older.seq, item.seq)) break
  }
  return frozen
}

/** Whether an episodic summary among `stored` covers seqs strictly between `after` and `before`. */
function compacted(stored: readonly Item[], after: number, before: number): boolean {
  return stored.some(
    (item) =>
      item.type === 'summary' &&
      item.tier === 'episodic' &&
      item.range.fromSeq < before &&
      item.range.toSeq > after,
  )
}

/** How an incoming list lines up with the stored tail (see {@link alignTail}). */
export interface TailAlignment {
  /** The indexes in `incoming` of the unseen messages, oldest first. */
  indexes: number[]
  /** How many incoming messages matched the stored tail (0: none). */
  matched: number
  /**
   * False when the list holds messages and the thread a conversation, but the list does not continue
   * it: a `'full'` list without the stored tail before its new messages, or an `'auto'` list that
   * matches no stored tail yet re-sends an answer the thread stored. Every conversation message then
   * counts as unseen, and storing them would store part of the history a second time.
   */
  aligned: boolean
  /** Whether the match covered the whole compared tail (`window` messages, or all there are). */
  complete: boolean
  /** Whether only the tolerant comparison matched: the list left out tool steps the thread stored. */
  tolerated: boolean
}

/** What comparing the stored tail with the incoming list before its `skipped` newest messages found. */
interface Run {
  /** Incoming messages matched. */
  run: number
  /** Whether the whole compared tail was matched or left out. */
  complete: boolean
  /** Whether the incoming list ran out first. */
  exhausted: boolean
  /** Ids of tool calls and results the incoming list left out of the stored messages it matched. */
  dropped: string[]
}

/**
 * Compares the stored tail, newest first, with the incoming list before its `skipped` newest
 * messages. Tolerant, it lets the list leave out what a client that keeps only the text of a
 * conversation drops: tool messages and tool-call-only answers are skipped once a newer message
 * matched, and an answer that made tool calls matches its text alone. A user message or an answer's
 * text is never left out.
 */
function compareRun<T extends { role: string }>(
  tail: readonly StoredPattern[],
  messages: IncomingConversation<T>,
  skipped: number,
  tolerant: boolean,
): Run {
  let run = 0
  const dropped: string[] = []
  for (const pattern of tail) {
    const index = messages.fromEnd(skipped + run)
    if (index !== undefined && messages.matches(index, pattern)) {
      run++
      continue
    }
    if (tolerant && index !== undefined && messages.matchesWithoutTools(index, pattern)) {
      dropped.push(...pattern.toolCallIds)
      run++
      continue
    }
    // Only between matched messages: a list that ends where the stored tool steps begin may as well
    // be a regenerated answer (the steps are then part of what it discards).
    if (tolerant && pattern.omittable && run > 0) {
      dropped.push(...pattern.toolCallIds)
      continue
    }
    return { run, complete: false, exhausted: index === undefined, dropped }
  }
  return { run, complete: true, exhausted: false, dropped }
}

/**
 * The rule of {@link unseenMessages}, on an incoming list the caller keeps (so a thread maps each
 * message once however often it matches). The exact comparison is tried first, at every position;
 * only when it finds no match is the tolerant one tried (never with `exact`), so a history re-sent in
 * full aligns as it always did. A tolerant alignment must match at least one message, and its new messages must not
 * hold a tool call or result the list left out (that would store a second one for the same call).
 */
export function alignTail<T extends { role: string }>(
  stored: readonly Item[],
  messages: IncomingConversation<T>,
  history: HistoryMode,
  window: number,
  { exact = false }: { exact?: boolean } = {},
): TailAlignment {
  const tail = storedTail(stored, window)
  // The same list against the same stored tail (the patterns of the same frozen items) aligns the same.
  const key = `${history}:${window}:${exact}`
  const last = messages.lastAlignment
  if (last !== undefined && last.key === key && sameTail(last.tail, tail)) {
    const result = last.result as TailAlignment
    return { ...result, indexes: [...result.indexes] }
  }
  const result = alignWithTail(tail, messages, history, exact)
  messages.lastAlignment = { tail, key, result: { ...result, indexes: [...result.indexes] } }
  return result
}

/** Whether two stored tails are the patterns of the same items (a pattern is kept per frozen item). */
const sameTail = (a: readonly StoredPattern[], b: readonly StoredPattern[]) =>
  a.length === b.length && a.every((pattern, index) => pattern === b[index])

/** {@link alignTail} on the stored tail. */
function alignWithTail<T extends { role: string }>(
  tail: readonly StoredPattern[],
  messages: IncomingConversation<T>,
  history: HistoryMode,
  exact: boolean,
): TailAlignment {
  if (tail.length === 0 || messages.fromEnd(0) === undefined) {
    return {
      indexes: messages.last(messages.length),
      matched: 0,
      aligned: true,
      complete: tail.length === 0,
      tolerated: false,
    }
  }
  // A match of the whole tail beats one that ran out of the incoming list (the list then holds only
  // the tail's newest messages): with answers that read the same, the latter can line up by chance.
  let partial: TailAlignment | undefined
  for (const tolerant of exact ? [false] : [false, true]) {
    // `skipped` counts the newest messages taken for unseen; the run before them is compared with the
    // stored tail. In 'new' mode the whole list can never be a re-send: the last message is always new.
    for (let skipped = history === 'new' ? 1 : 0; messages.fromEnd(skipped) !== undefined; skipped++) {
      const { run, complete, exhausted, dropped } = compareRun(tail, messages, skipped, tolerant)
      if (!(complete || (exhausted && history !== 'full'))) continue
      if (tolerant && (run === 0 || leavesOutNew(messages, skipped, dropped))) continue
      const alignment = {
        indexes: messages.last(skipped),
        matched: run,
        aligned: true,
        complete,
        tolerated: tolerant,
      }
      if (complete) return alignment
      partial ??= alignment
    }
  }
  if (partial !== undefined) return partial
  const aligned = history === 'new' || (history === 'auto' && !resendsAnAnswer(tail, messages))
  return { indexes: messages.last(messages.length), matched: 0, aligned, complete: false, tolerated: false }
}

/** Whether one of the `skipped` newest incoming messages holds a tool call or result left out. */
function leavesOutNew<T extends { role: string }>(
  messages: IncomingConversation<T>,
  skipped: number,
  dropped: readonly string[],
): boolean {
  if (dropped.length === 0) return false
  const left = new Set(dropped)
  return messages.last(skipped).some((index) => messages.toolCallIds(index).some((id) => left.has(id)))
}

/**
 * Whether the incoming list, near its end, re-sends a finished answer of the stored tail: a list of
 * new messages never holds one (a framework sends the user's messages and a tool loop's own steps,
 * whose calls are new), so such a list is a history that does not continue the thread.
 */
function resendsAnAnswer<T extends { role: string }>(
  tail: readonly StoredPattern[],
  messages: IncomingConversation<T>,
): boolean {
  const depth = tail.length * 2
  // Only an assistant message can be an answer: a list of new messages (a user's message) holds none,
  // and the stored answers need not be gathered.
  if (!messages.holdsRole('assistant', depth)) return false
  const answers = new Set<string>()
  for (const pattern of tail) if (pattern.answer !== undefined) answers.add(pattern.answer)
  if (answers.size === 0) return false
  for (let back = 0; back < depth; back++) {
    const index = messages.fromEnd(back)
    if (index === undefined) return false
    const answer = messages.answer(index)
    if (answer !== undefined && answers.has(answer)) return true
  }
  return false
}

/** Throws `STRATA_INVALID_OPTIONS` for an unknown history mode or a window that is not a count. */
export function checkMatchingOptions({ history, window }: { history: HistoryMode; window: number }) {
  if (!HISTORY_MODES.includes(history)) {
    invalidOptions(`history must be 'auto', 'full' or 'new' (got ${JSON.stringify(history)}).`, { history })
  }
  checkWindow(window)
}

function checkWindow(window: number) {
  if (!Number.isInteger(window) || window < 1) {
    invalidOptions(`window must be a whole number of at least 1 (got ${shownValue(window)}).`, { window })
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

/**
 * `STRATA_INVALID_MESSAGE` (`details.reason: 'not-continuing'`) for a list that does not continue the
 * thread (`aligned: false`): storing it would store the history a second time, and showing it after
 * the thread's context (`readOnly`, a read-only request) would show it twice. Nothing was done.
 */
export function notContinuing(threadId: string, history: HistoryMode, readOnly = false): StrataError {
  const why = readOnly
    ? 'showing them after the thread would show its history twice. Nothing was sent to the model: '
    : 'storing them would store history a second time. Nothing was stored: rewind the thread to where they leave it (divergence() and rewind()), '
  return new StrataError({
    code: 'STRATA_INVALID_MESSAGE',
    message:
      `The messages sent do not continue thread '${threadId}': they do not hold its stored conversation ` +
      'before their new messages (a regenerated answer, an edited message, a history that lost stored ' +
      `messages, or another conversation?), so ${why}send the history the thread holds, or send only new ` +
      "messages with history: 'new'.",
    details: { threadId, history, reason: 'not-continuing', ...(readOnly ? { readOnly } : {}) },
  })
}
