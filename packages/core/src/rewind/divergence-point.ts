import { type IncomingConversation, isConversation } from '../history/message-matching'
import type { HistoryMode } from '../history/unseen-messages'
import { alignTail } from '../history/unseen-messages'
import type { Item } from '../items'

/**
 * How many stored conversation messages back a divergence is looked for: an edit further back is
 * not recognised (a bound on the cost, which grows with it times the incoming list).
 */
export const MAX_DIVERGENCE_DEPTH = 256

/** Where an incoming history leaves a thread's stored conversation (see {@link divergencePoint}). */
export interface DivergencePoint {
  /**
   * Rewind after this seq: the seq just before the first stored conversation message the incoming
   * list no longer holds, so what the thread wrote between two turns (a scope's transition, a
   * compaction's summary) stays.
   */
  afterSeq: number
  /** The seq of the last stored conversation message the incoming list still holds, in order. */
  lastKeptSeq: number
  /** Stored conversation messages the incoming list no longer holds: the ones a rewind archives. */
  dropped: number
  /** Stored messages compared with the incoming list and found there, up to the divergence. */
  matched: number
}

/**
 * The point where `incoming` (a framework's re-sent history) leaves the stored conversation
 * `stored` (the active log, oldest first), or undefined when it does not: it continues the thread,
 * holds only new messages, or shares no stored message with it. The stored conversation is cut one
 * message at a time from its end; the first cut whose end aligns with the incoming list as a whole
 * history (the rule of `unseenMessages` in `'full'` mode: the list holds the kept conversation's last
 * `window` messages, or all of them, right before its new ones) is the divergence. The comparison is
 * positional, so a history whose answers all read the same still shows which one it left out. At
 * least one stored message must be kept: a list that shares nothing with the thread (the first
 * message edited, or only new messages sent) is no divergence anyone can tell.
 *
 * In `'auto'` mode a list may hold only new messages, so a cut must explain more than that reading:
 * - a list that matched the stored tail's newest messages and then ran out (a tool loop's re-sent
 *   step, a retry) continues the thread, unless a cut aligns with more of its messages;
 * - a list that matched nothing must hold at least two kept messages, or a finished answer among its
 *   new ones (only a whole history holds answers). A single user message that repeats the first
 *   stored one is taken for a new message: it may be one, and `'auto'` cannot tell it from
 *   `useChat` regenerating the very first answer (use `'full'` for that).
 *
 * `partial`: the list holds only the conversation's newest messages, not its start (another
 * middleware put a summary in place of the older ones, or cleared them). A cut then aligns where the
 * list runs out, as an `'auto'` alignment may, and a single re-sent message is a reading, as in
 * `'full'`: all of the list's messages before its new ones must match the kept conversation's newest.
 */
export function divergencePoint<T extends { role: string }>(
  stored: readonly Item[],
  messages: IncomingConversation<T>,
  history: HistoryMode,
  window: number,
  partial = false,
): DivergencePoint | undefined {
  if (history === 'new' || messages.fromEnd(0) === undefined) return undefined
  // A list that continues the thread (every call of a route that re-sends it) is settled here; so is
  // a thread without conversation messages (its empty tail is complete).
  const whole = alignTail(stored, messages, history, window)
  if (whole.complete) return undefined
  // Positions of the stored conversation messages, newest first, as deep as the search goes.
  const positions: number[] = []
  for (let index = stored.length - 1; index >= 0 && positions.length <= MAX_DIVERGENCE_DEPTH; index--) {
    if (isConversation(stored[index]!)) positions.push(index)
  }
  if (positions.length === 0) return undefined
  // What a cut must match to be a better reading of the list than the one the whole tail gave. A
  // partial list is a history, not new messages: one re-sent message is a reading, as in 'full'.
  const least = whole.matched > 0 ? whole.matched + 1 : history === 'auto' && !partial ? 2 : 1
  // A partial list begins inside the conversation, so a cut may align where the list runs out.
  const cutMode: HistoryMode = partial ? 'auto' : 'full'
  // No cut can be that reading when the list holds fewer messages than it must match and (nothing
  // having matched) no answer: a single new user message, what the persistence recipe sends on every
  // call, is settled here rather than by aligning up to MAX_DIVERGENCE_DEPTH cuts of the thread.
  if (messages.length < least && (whole.matched > 0 || !holdsAnAnswer(messages))) return undefined
  for (let dropped = 1; dropped < positions.length && dropped <= MAX_DIVERGENCE_DEPTH; dropped++) {
    const cut = positions[dropped - 1]!
    // Aligned as a whole history, whatever the mode: the list must hold the kept conversation's last
    // `window` messages (or all of it), so a few repeated messages never rewind a long thread.
    const alignment = alignTail(stored.slice(0, cut), messages, cutMode, window)
    if (!alignment.aligned || alignment.matched === 0) continue
    // The first cut that aligns is the reading; one that explains too little is no divergence.
    const answered =
      whole.matched === 0 && alignment.indexes.some((index) => messages.answer(index) !== undefined)
    if (alignment.matched < least && !answered) return undefined
    // A cut that aligns only if the list left out tool steps competes with a deeper one that aligns
    // exactly as far: a regenerated answer that ran tools discards its tool steps with it.
    const chosen = (alignment.tolerated
      ? exactCut(stored, positions, dropped, messages, window, alignment.matched, cutMode)
      : undefined) ?? { dropped, matched: alignment.matched }
    return {
      afterSeq: stored[positions[chosen.dropped - 1]!]!.seq - 1,
      lastKeptSeq: stored[positions[chosen.dropped]!]!.seq,
      ...chosen,
    }
  }
  return undefined
}

/** Whether any conversation message of the list is a finished answer. */
function holdsAnAnswer<T extends { role: string }>(messages: IncomingConversation<T>): boolean {
  for (let back = 0; ; back++) {
    const index = messages.fromEnd(back)
    if (index === undefined) return false
    if (messages.answer(index) !== undefined) return true
  }
}

/** The first cut deeper than `dropped` that aligns exactly, with at least `matched` messages. */
function exactCut<T extends { role: string }>(
  stored: readonly Item[],
  positions: readonly number[],
  dropped: number,
  messages: IncomingConversation<T>,
  window: number,
  matched: number,
  mode: HistoryMode,
): { dropped: number; matched: number } | undefined {
  for (let deeper = dropped + 1; deeper < positions.length && deeper <= MAX_DIVERGENCE_DEPTH; deeper++) {
    const kept = stored.slice(0, positions[deeper - 1]!)
    const alignment = alignTail(kept, messages, mode, window, { exact: true })
    if (alignment.aligned && alignment.matched >= matched)
      return { dropped: deeper, matched: alignment.matched }
  }
  return undefined
}
