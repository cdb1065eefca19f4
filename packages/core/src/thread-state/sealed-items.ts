import { isConversation } from '../history/message-matching'
import { DEFAULT_WINDOW } from '../history/unseen-messages'
import type { Item, SeqRange } from '../items'
import { isSealed, type LogEntry, type SealedItem } from '../items/sealed-item'
import { startsTurn } from '../items/turns'
import type { LevelLadder } from '../levels'
import { isContextMemoryItem } from '../views/context-memory-item'

/**
 * The stub that stands for `item` while it is sealed. One object, built field by field: an open of a
 * long thread builds one for most of its items.
 */
export function sealedOf<L extends string>(item: Item<L>): SealedItem<L> {
  const { seq, id, level, turnId } = item
  if (item.type !== 'message') {
    return Object.freeze({ type: 'sealed', seq, id, level, turnId, itemType: item.type, conversation: false })
  }
  // Calls listed in an array of their own length (a first `push` on an empty array reserves 16 slots),
  // and each stub made whole by one literal (a property added later goes to a separate store).
  let calls: string[] | undefined
  const { content } = item
  for (let index = 0; index < content.length; index++) {
    const part = content[index]!
    if (part.type !== 'tool-call') continue
    if (calls === undefined) calls = [part.toolCallId]
    else calls.push(part.toolCallId)
  }
  const { role } = item
  const conversation = isConversation(item)
  if (calls === undefined) {
    return Object.freeze({ type: 'sealed', seq, id, level, turnId, itemType: 'message', role, conversation })
  }
  return Object.freeze({
    type: 'sealed',
    seq,
    id,
    level,
    turnId,
    itemType: 'message',
    role,
    conversation,
    calls: Object.freeze(calls),
  })
}

/** What an open seals, and how sealed items are read back. */
export interface SealOptions<L extends string> {
  /** The rank of a level on the memory's ladder (0 the broadest), undefined for a level not on it. */
  rank: (level: L) => number | undefined
  /**
   * How many of the newest conversation messages stay whole, with every item after the oldest of them:
   * what history matching and divergence read on every call.
   */
  keepConversation: number
  /** Seals only once the log holds this many items (see `SEALING`). */
  fromItems: number
  /** Reads the items of a seq range back from the store (active, or archived since), all of them. */
  read: (range: SeqRange) => Promise<readonly Item[]>
}

/**
 * The indexes of the entries an open may seal: items a broader item follows (no view shows them again:
 * a walk at their level or a narrower one stops at that item, a broader walk skips them), older than
 * the newest `keepConversation` conversation messages and than the outermost open scope's opening, and
 * none of what contexts and lookups read whole: context-memory items (they neither show in views nor
 * end them, so they do not count as the broader item either) and messages that start a turn (a turn's
 * request, which every context shows). Levels not on the ladder are left alone.
 */
export function sealableIndexes<L extends string>(
  entries: readonly LogEntry<L>[],
  options: Pick<SealOptions<L>, 'rank' | 'keepConversation' | 'fromItems'>,
  openScopeFrom: number,
): number[] {
  if (entries.length < options.fromItems) return []
  let tailStart = entries.length
  for (let found = 0; tailStart > 0 && found < options.keepConversation; ) {
    const entry = entries[--tailStart]!
    if (isConversationEntry(entry)) found++
  }
  const indexes: number[] = []
  let broadest = Number.POSITIVE_INFINITY
  for (let index = entries.length - 1; index >= 0; index--) {
    const entry = entries[index]!
    if (!isSealed(entry) && isContextMemoryItem(entry)) continue
    const rank = options.rank(entry.level)
    if (rank === undefined) continue
    if (rank > broadest && index < tailStart && entry.seq < openScopeFrom && !isSealed(entry)) {
      if (!(entry.type === 'message' && startsTurn(entry))) indexes.push(index)
    }
    if (rank < broadest) broadest = rank
  }
  return indexes.reverse()
}

/** Whether an entry is a message of the conversation (see `isConversation`), sealed or not. */
export const isConversationEntry = <L extends string>(entry: LogEntry<L>): boolean =>
  isSealed(entry) ? entry.conversation : isConversation(entry)

/**
 * `keepConversation`: the conversation messages an open keeps whole at the end of the log (history
 * matching's window and the depth a divergence search reads, `MAX_DIVERGENCE_DEPTH`), so that a route
 * re-sending its history reads nothing back. `fromItems`: an open seals only once it has taken this
 * many items. A read of every item soon after the open (a page load's transcript) reads the sealed
 * ones again, which on a short thread costs more than their memory. Tests lower both.
 */
export const SEALING = { keepConversation: DEFAULT_WINDOW + 256, fromItems: 20_000 }

/**
 * What an open of a thread with these dependencies seals, or undefined when it seals nothing: under the
 * waterfall or a budget, whose compactions plan over every active item, the log stays whole.
 */
export function sealOptionsFor<L extends string>(deps: {
  ladder: LevelLadder<L>
  compaction: { waterfall: unknown; budget?: unknown }
}): Omit<SealOptions<L>, 'read'> | undefined {
  if (deps.compaction.waterfall !== false || deps.compaction.budget !== false) return undefined
  const ranks = new Map<string, number>(deps.ladder.levels.map((name, index) => [name, index]))
  return {
    rank: (level) => ranks.get(level),
    keepConversation: SEALING.keepConversation,
    fromItems: SEALING.fromItems,
  }
}
