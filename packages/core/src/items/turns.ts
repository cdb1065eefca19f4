import type { MessageItem } from './item'

/** True for a message that starts a turn: a user's own message (not a scope's opening item). */
export const startsTurn = (item: Pick<MessageItem, 'role' | 'scope'>) =>
  item.role === 'user' && item.scope === undefined

/** The number of a `turn_0012` turn id; 0 for none. */
export function turnNumber(turnId: string | undefined): number {
  const match = turnId === undefined ? null : /^turn_(\d+)$/.exec(turnId)
  return match ? Number(match[1]) : 0
}
