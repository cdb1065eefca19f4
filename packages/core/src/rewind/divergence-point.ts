import type { HistoryMode, Item } from '../items'
import { type IncomingConversation, isConversation } from '../items/message-matching'
import { alignTail } from '../items/unseen-messages'

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
 * `window` messages, or all of them, right before its new ones) is the divergence. At least one stored message must be kept: a list that shares nothing with the thread
 * (the first message edited, or only new messages sent) is no divergence anyone can tell.
 */
export function divergencePoint<T extends { role: string }>(
  stored: readonly Item[],
  messages: IncomingConversation<T>,
  history: HistoryMode,
  window: number,
): DivergencePoint | undefined {
  if (history === 'new' || messages.fromEnd(0) === undefined) return undefined
  // Positions of the stored conversation messages, newest first, as deep as the search goes.
  const positions: number[] = []
  for (let index = stored.length - 1; index >= 0 && positions.length <= MAX_DIVERGENCE_DEPTH; index--) {
    if (isConversation(stored[index]!)) positions.push(index)
  }
  if (positions.length === 0) return undefined
  const whole = alignTail(stored, messages, history, window)
  if (whole.aligned && whole.matched > 0) return undefined
  for (let dropped = 1; dropped < positions.length && dropped <= MAX_DIVERGENCE_DEPTH; dropped++) {
    const cut = positions[dropped - 1]!
    // Aligned as a whole history, whatever the mode: the list must hold the kept conversation's last
    // `window` messages (or all of it), so a few repeated messages never rewind a long thread.
    const { aligned, matched } = alignTail(stored.slice(0, cut), messages, 'full', window)
    if (aligned && matched > 0) {
      return {
        afterSeq: stored[cut]!.seq - 1,
        lastKeptSeq: stored[positions[dropped]!]!.seq,
        dropped,
        matched,
      }
    }
  }
  return undefined
}
