import { invalidOptions } from '../errors'
import type { Item, JsonObject, MessageItem } from '../items'
import { isAnswerEntry, isSealed } from '../items/sealed-item'
import { indexAfterSeq } from '../items/seq-search'
import type { ThreadState } from '../thread-state/thread-state'
import type { WritePath } from '../thread-state/write-path'

/** How many failure marks a thread's state keeps: the newest ones (a bound, not a tuning knob). */
export const MAX_REQUEST_FAILURES = 20

/** The longest `reason` a mark keeps, in characters; a longer one is cut (provider errors can be long). */
export const MAX_FAILURE_REASON_LENGTH = 1000

/** The key of the thread's stored state (`store.getState`) that holds the marks. */
const STATE_KEY = 'requestFailures'

/** What {@link Thread.markFailed} is told. */
export interface MarkFailedOptions {
  /** Why the request failed: the provider's error message. Cut to 1,000 characters. */
  reason: string
  /** The error's code, when it has one (a provider's, an HTTP status, a `StrataError`'s). */
  code?: string
  /**
   * The stored user message whose request failed.
   * @default the turn's request: the newest user message that started a turn
   */
  itemId?: string
}

/**
 * A request marked failed: its user message stays in the log (nothing in the log changes), and the
 * mark, kept in the thread's state, says its model call failed after it was stored.
 */
export interface RequestFailure {
  /** The id of the user message whose request failed. */
  itemId: string
  /** That message's seq. */
  seq: number
  reason: string
  code?: string
  /** When it was marked (the memory's clock, epoch ms). */
  ts: number
  /**
   * The thread's last seq when it was marked: an assistant message stored after it answers the
   * request, and the mark no longer counts (see {@link Thread.failures}).
   */
  lastSeq: number
}

/** What `markFailed` and `failures` need from their thread. */
export interface RequestFailureParts<L extends string> {
  state: ThreadState<L>
  writes: WritePath<L>
}

/** Whether a stored value is a well-formed mark (a hand-edited state may hold anything). */
function isMark(value: unknown): value is RequestFailure {
  if (typeof value !== 'object' || value === null) return false
  const mark = value as Record<string, unknown>
  return (
    typeof mark.itemId === 'string' &&
    typeof mark.seq === 'number' &&
    typeof mark.lastSeq === 'number' &&
    typeof mark.reason === 'string'
  )
}

/** The marks as stored; anything that is not a well-formed mark is left out. */
function storedMarks(stored: JsonObject | undefined): RequestFailure[] {
  const value: unknown = stored?.[STATE_KEY]
  return Array.isArray(value) ? value.filter(isMark) : []
}

/**
 * The marks that still count: their message is active (a rewind archives it with its mark) and no
 * assistant message was stored after the mark. One walk of the items after the oldest mark.
 */
function openMarks<L extends string>(state: ThreadState<L>, marks: readonly RequestFailure[]) {
  if (marks.length === 0) return []
  const oldest = Math.min(...marks.map((mark) => mark.seq))
  const active = new Set<string>()
  let lastAnswerSeq = 0
  // Ids and answers only: sealed entries (see `SealedItem`) keep both.
  const entries = state.log.entries
  for (let index = indexAfterSeq(entries, oldest - 1); index < entries.length; index++) {
    const entry = entries[index]!
    active.add(entry.id)
    if (isAnswerEntry(entry)) lastAnswerSeq = entry.seq
  }
  return marks.filter((mark) => active.has(mark.itemId) && lastAnswerSeq <= mark.lastSeq)
}

/** The active user message `itemId` names, or the turn's request; anything else is refused. */
async function markedMessage<L extends string>(state: ThreadState<L>, itemId: string | undefined) {
  if (itemId === undefined) {
    const request = state.log.request
    if (request === undefined) {
      invalidOptions(
        `markFailed(): thread '${state.id}' has no user message to mark failed; store the request first, or pass { itemId }.`,
        { threadId: state.id },
      )
    }
    return request
  }
  const entries = state.log.entries
  let found: Item<L> | undefined
  // The failed request is almost always near the end.
  for (let index = entries.length - 1; index >= 0; index--) {
    const entry = entries[index]!
    if (entry.id === itemId) {
      // A user's request is never sealed; anything else an open sealed is read back to say what it is.
      found = isSealed(entry) ? await state.log.sealedItem(entry.seq) : entry
      break
    }
  }
  if (found === undefined) {
    invalidOptions(
      `markFailed(): thread '${state.id}' has no active item '${itemId}'; pass the id of a stored user message.`,
      { threadId: state.id, itemId },
    )
  }
  if (found.type === 'message' && found.scope !== undefined) {
    invalidOptions(
      `markFailed(): item '${itemId}' of thread '${state.id}' is the opening of scope '${found.scope.title}', not a request; pass the id of the user message whose model call failed.`,
      { threadId: state.id, itemId },
    )
  }
  if (found.type !== 'message' || found.role !== 'user') {
    invalidOptions(
      `markFailed(): item '${itemId}' of thread '${state.id}' is a${found.type === 'message' ? ` ${found.role} message` : ` ${found.type}`}, not a user message; only a request (a user message) can be marked failed.`,
      { threadId: state.id, itemId },
    )
  }
  return found as MessageItem<L>
}

/** Checks `markFailed`'s options before anything is read or written. */
function checkOptions(options: MarkFailedOptions): void {
  if (typeof options !== 'object' || options === null)
    invalidOptions("markFailed() needs { reason }, e.g. markFailed({ reason: 'Provider returned 529' }).")
  const { reason, code, itemId } = options
  if (typeof reason !== 'string' || reason === '')
    invalidOptions('markFailed(): reason must be a non-empty string (the error message).', { reason })
  if (code !== undefined && typeof code !== 'string')
    invalidOptions('markFailed(): code must be a string when given.', { code })
  if (itemId !== undefined && (typeof itemId !== 'string' || itemId === ''))
    invalidOptions('markFailed(): itemId must be a non-empty string when given.', { itemId })
}

/** Marks a stored request failed (see `Thread.markFailed`). */
export function markFailed<L extends string>(
  { state, writes }: RequestFailureParts<L>,
  options: MarkFailedOptions,
): Promise<RequestFailure> {
  checkOptions(options)
  return writes.exclusive(async () => {
    await writes.refresh()
    const message = await markedMessage(state, options.itemId)
    const mark: RequestFailure = {
      itemId: message.id,
      seq: message.seq,
      reason: options.reason.slice(0, MAX_FAILURE_REASON_LENGTH),
      ts: state.deps.clock(),
      lastSeq: state.log.lastSeq,
    }
    if (options.code !== undefined) mark.code = options.code
    const stored = await state.deps.store.getState(state.id)
    // A request marked again (a retry that failed too) keeps its newest mark; answered ones go.
    const kept = openMarks(state, storedMarks(stored)).filter((old) => old.itemId !== mark.itemId)
    const marks = [...kept, mark].slice(-MAX_REQUEST_FAILURES)
    // The state was read above, in this exclusive section: written back with the marks, not read again.
    await state.deps.store.setState(state.id, { ...stored, [STATE_KEY]: marks as unknown as JsonObject[] })
    return { ...mark }
  })
}

/** The marks that still count, oldest first (see `Thread.failures`). */
export function requestFailures<L extends string>({
  state,
  writes,
}: RequestFailureParts<L>): Promise<RequestFailure[]> {
  return writes.exclusive(async () => {
    await writes.refresh()
    return openFailures(state, await state.deps.store.getState(state.id))
  })
}

/** The marks of a state the caller read already that still count (for `status`). */
export function openFailures<L extends string>(
  state: ThreadState<L>,
  stored: JsonObject | undefined,
): RequestFailure[] {
  return openMarks(state, storedMarks(stored)).map((mark) => ({ ...mark }))
}
