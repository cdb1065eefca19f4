import type { Item, MessageItem } from './item'

/**
 * An active item that no view can show again, held by an open log as the little its indexes, counts
 * and walks read, its content left in the store (see `ThreadLog.seal`). A view never reaches it: a
 * broader item follows it, which ends every walk that could keep it. Paths that need its content read
 * it back (`ThreadLog.full`, `unsealAfter`, `unsealTail`).
 */
export interface SealedItem<L extends string = string> {
  readonly type: 'sealed'
  readonly seq: number
  readonly id: string
  readonly level: L
  readonly turnId: string
  /** The item's own type and, for a message, its role: what counts and walks for answers read. */
  readonly itemType: Item['type']
  readonly role?: MessageItem['role']
  /** Whether it was a message of the conversation (not a system message, not a scope's opening). */
  readonly conversation: boolean
  /** The ids of the tool calls it made, for the index of calls. */
  readonly calls?: readonly string[]
}

/** An entry of a log's active items: the item, or what is kept of it while it is sealed. */
export type LogEntry<L extends string> = Item<L> | SealedItem<L>

export const isSealed = <L extends string>(entry: LogEntry<L>): entry is SealedItem<L> =>
  entry.type === 'sealed'

/** Whether an entry is an assistant message (an answer), sealed or not. */
export function isAnswerEntry(entry: LogEntry<string>): boolean {
  if (isSealed(entry)) return entry.itemType === 'message' && entry.role === 'assistant'
  return entry.type === 'message' && entry.role === 'assistant'
}
