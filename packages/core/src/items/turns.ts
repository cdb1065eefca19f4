import type { MessageItem } from './item'

/** True for a message that starts a turn: a user's own message (not a scope's opening item). */
export const startsTurn = (item: Pick<MessageItem, 'role' | 'scope'>) =>
  item.role === 'user' && item.scope === undefined

const TURN_PREFIX = 'turn_'

/**
 * The number of a `turn_0012` turn id; 0 for none. Read digit by digit, not by a regular expression:
 * an open reads the turn of every item.
 */
export function turnNumber(turnId: string | undefined): number {
  if (typeof turnId !== 'string' || turnId.length <= TURN_PREFIX.length || !turnId.startsWith(TURN_PREFIX))
    return 0
  for (let index = TURN_PREFIX.length; index < turnId.length; index++) {
    const code = turnId.charCodeAt(index)
    if (code < 48 || code > 57) return 0
  }
  return Number(turnId.slice(TURN_PREFIX.length))
}
