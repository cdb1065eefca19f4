import { referenceOf, restoredPart } from '../content/content-reference'
import { invalidOptions } from '../errors'
import type {
  Item,
  JsonObject,
  MessageItem,
  MessagePart,
  SeqRange,
  SummaryItem,
  TransitionItem,
} from '../items'
import { isSealed, type LogEntry, type SealedItem } from '../items/sealed-item'
import { readArchiveRange } from '../stores/archive-pages'
import type { ThreadState } from '../thread-state/thread-state'
import type { WritePath } from '../thread-state/write-path'

/** The key of the thread's stored state that lists the seq ranges rewinds archived. */
export const REWOUND_STATE_KEY = 'rewound'

/** Options of {@link Thread.transcript}. */
export interface TranscriptOptions {
  /**
   * Include the turns a compaction archived (the conversation as people saw it); `false`: only the
   * active log. Messages a rewind archived (a regenerated answer, an edited message and what followed
   * it) are never included.
   * @default true
   */
  archived?: boolean
  /**
   * At most this many turns (a turn starts with a user message), the newest ones.
   * @default all
   */
  turns?: number
  /** Only items with a lower seq: the `fromSeq` of the page already read, to read the one before it. */
  beforeSeq?: number
  /**
   * Only items with a higher seq: what is new since a point a reader saw (read in time proportional
   * to what is new, not to the thread).
   */
  afterSeq?: number
  /**
   * Read offloaded parts back whole from the content channel; `false` leaves the citations in place
   * (a reader that needs only ids, roles or transitions reads no content).
   * @default true
   */
  restore?: boolean
  /**
   * Also list the budget and manual compactions of the page: the episodic summaries they wrote (with
   * their `compaction` record), in `compactions`, for a chat that shows each one where it happened.
   * @default false
   */
  compactions?: boolean
}

/** What {@link Thread.transcript} returns. */
export interface Transcript<L extends string = string> {
  /** Messages (scope openings included) and transitions, oldest first, offloaded parts restored. */
  items: (MessageItem<L> | TransitionItem<L>)[]
  /** The seq of the first item returned (pass it as `beforeSeq` for the page before); 0 when empty. */
  fromSeq: number
  /** Whether earlier items exist before this page. */
  more: boolean
  /** With `compactions`: the episodic summaries of the page's compactions, oldest first (by seq). */
  compactions?: SummaryItem<L>[]
}

/** What `transcript` needs from its thread. */
export interface TranscriptParts<L extends string> {
  state: ThreadState<L>
  writes: WritePath<L>
}

/** The rewound ranges as stored; anything malformed is left out. */
export function rewoundRanges(stored: JsonObject | undefined): SeqRange[] {
  const value: unknown = stored?.[REWOUND_STATE_KEY]
  if (!Array.isArray(value)) return []
  return value.filter(
    (range): range is SeqRange =>
      typeof range === 'object' &&
      range !== null &&
      typeof (range as SeqRange).fromSeq === 'number' &&
      typeof (range as SeqRange).toSeq === 'number',
  )
}

const isChat = <L extends string>(item: Item<L>): item is MessageItem<L> | TransitionItem<L> =>
  item.type === 'message' || item.type === 'transition'

/** {@link isChat} of an active entry: a sealed one by the type it keeps. */
const isChatEntry = <L extends string>(
  entry: LogEntry<L>,
): entry is MessageItem<L> | TransitionItem<L> | SealedItem<L> =>
  isSealed(entry) ? entry.itemType === 'message' || entry.itemType === 'transition' : isChat(entry)

function checkOptions(options: TranscriptOptions): void {
  if (typeof options !== 'object' || options === null) invalidOptions('transcript() takes an options object.')
  const { turns, beforeSeq, afterSeq, archived, restore, compactions } = options
  if (restore !== undefined && typeof restore !== 'boolean')
    invalidOptions('transcript(): restore must be a boolean.', { restore })
  if (compactions !== undefined && typeof compactions !== 'boolean')
    invalidOptions('transcript(): compactions must be a boolean.', { compactions })
  if (afterSeq !== undefined && (!Number.isSafeInteger(afterSeq) || afterSeq < 0)) {
    invalidOptions(
      `transcript(): afterSeq must be a whole number of at least 0 (got ${JSON.stringify(afterSeq)}).`,
      { afterSeq },
    )
  }
  if (turns !== undefined && (!Number.isSafeInteger(turns) || turns < 1)) {
    invalidOptions(
      `transcript(): turns must be a whole number of at least 1 (got ${JSON.stringify(turns)}).`,
      {
        turns,
      },
    )
  }
  if (beforeSeq !== undefined && (!Number.isSafeInteger(beforeSeq) || beforeSeq < 1)) {
    invalidOptions(
      `transcript(): beforeSeq must be a whole number of at least 1 (got ${JSON.stringify(beforeSeq)}).`,
      { beforeSeq },
    )
  }
  if (archived !== undefined && typeof archived !== 'boolean')
    invalidOptions('transcript(): archived must be a boolean.', { archived })
}

/** Two seq-sorted lists as one. */
function merge<T extends { seq: number }>(left: readonly T[], right: readonly T[]): T[] {
  if (left.length === 0) return right.slice()
  if (right.length === 0) return left.slice()
  const out: T[] = []
  let i = 0
  let j = 0
  while (i < left.length && j < right.length)
    out.push(left[i]!.seq <= right[j]!.seq ? left[i++]! : right[j++]!)
  while (i < left.length) out.push(left[i++]!)
  while (j < right.length) out.push(right[j++]!)
  return out
}

/** The index the page starts at: `turns` user messages back from the end (scope openings are not turns). */
function pageStart(items: readonly LogEntry<string>[], turns: number | undefined): number {
  if (turns === undefined) return 0
  let seen = 0
  for (let index = items.length - 1; index >= 0; index--) {
    const item = items[index]!
    if (item.type === 'message' && item.role === 'user' && item.scope === undefined && ++seen === turns)
      return index
  }
  return 0
}

/** Whether an item has a part that stands for stored content. */
const cites = (item: Item) =>
  item.type === 'message' && item.content.some((part) => referenceOf(part) !== undefined)

/** The item with each cited part replaced by the content it stands for (a missing record: the citation). */
async function restored<L extends string>(
  item: MessageItem<L> | TransitionItem<L>,
  get: (id: string) => Promise<{ data: string } | undefined>,
): Promise<MessageItem<L> | TransitionItem<L>> {
  if (item.type !== 'message' || !item.content.some((part) => referenceOf(part) !== undefined)) return item
  const content: MessagePart[] = []
  for (const part of item.content) {
    const reference = referenceOf(part)
    const record = reference === undefined ? undefined : await get(reference.id)
    content.push(
      reference === undefined || record === undefined ? part : restoredPart(part, reference, record.data),
    )
  }
  return { ...item, content }
}

/** The thread's conversation as it was shown (see `Thread.transcript`). */
export async function threadTranscript<L extends string>(
  { state, writes }: TranscriptParts<L>,
  options: TranscriptOptions,
  get: (id: string) => Promise<{ data: string } | undefined>,
): Promise<Transcript<L>> {
  checkOptions(options)
  const { archived = true, turns, beforeSeq, afterSeq, restore = true, compactions = false } = options
  const inRange = (seq: number) =>
    (beforeSeq === undefined || seq < beforeSeq) && (afterSeq === undefined || seq > afterSeq)
  const {
    active,
    stored,
    summaries: activeSummaries,
    anyArchived,
  } = await writes.exclusive(async () => {
    await writes.refresh()
    // A thread that never archived anything has no archive to read (most chats, on every page load).
    const anyArchived = archived && state.log.archivedCount > 0
    // Sealed items (see `SealedItem`) stay stubs until the page is known: only its own are read back.
    const items = state.log.entriesAfter(afterSeq ?? 0)
    return {
      active: (beforeSeq === undefined ? items : items.filter((item) => item.seq < beforeSeq)).filter(
        isChatEntry,
      ),
      stored: anyArchived ? await state.deps.store.getState(state.id) : undefined,
      anyArchived,
      // Summaries are few and kept apart (frozen), so this reads no more of a long log.
      summaries: compactions
        ? state.log.memoryItems.filter(
            (item): item is SummaryItem<L> =>
              item.type === 'summary' && item.compaction !== undefined && inRange(item.seq),
          )
        : undefined,
    }
  })
  let all: (MessageItem<L> | TransitionItem<L> | SealedItem<L>)[] = active
  let summaries = activeSummaries
  if (anyArchived) {
    const rewound = rewoundRanges(stored)
    const inRewind = (seq: number) => rewound.some((range) => seq >= range.fromSeq && seq <= range.toSeq)
    const read = await readArchiveRange(state.deps.store, state.id, {
      ...(beforeSeq === undefined ? {} : { toSeq: beforeSeq - 1 }),
      ...(afterSeq === undefined ? {} : { fromSeq: afterSeq + 1 }),
    })
    const shown = (read as Item<L>[]).filter(
      (item): item is MessageItem<L> | TransitionItem<L> => isChat(item) && !inRewind(item.seq),
    )
    all = merge(shown, active)
    // A compaction's summary that a later roll-up archived still marks where that compaction happened.
    if (summaries !== undefined) {
      const rolledUp = (read as Item<L>[]).filter(
        (item): item is SummaryItem<L> =>
          item.type === 'summary' && item.compaction !== undefined && inRange(item.seq),
      )
      if (rolledUp.length > 0) summaries = [...rolledUp, ...summaries].sort((a, b) => a.seq - b.seq)
    }
  }
  const start = pageStart(all, turns)
  const page = (await state.log.whole(all.slice(start))) as (MessageItem<L> | TransitionItem<L>)[]
  // The page's compactions: those at or after its first item (earlier ones belong to the page before).
  const fromSeq = start > 0 ? page[0]!.seq : 0
  const listed =
    summaries === undefined ? {} : { compactions: summaries.filter((item) => item.seq >= fromSeq) }
  if (!restore) return { items: page, fromSeq: page[0]?.seq ?? 0, more: start > 0, ...listed }
  const items: (MessageItem<L> | TransitionItem<L>)[] = []
  // Most items cite nothing: they are kept as they are, without a wait each (a long page is thousands).
  for (const item of page) items.push(cites(item) ? await restored(item, get) : item)
  return { items, fromSeq: page[0]?.seq ?? 0, more: start > 0, ...listed }
}
