import type { Item, JsonValue, MessageItem, MessagePart } from '../items'
import { isAnswerEntry, type LogEntry } from '../items/sealed-item'
import { turnNumber } from '../items/turns'
import type { ContentRecord } from '../stores'
import type { ResolvedContentOptions } from './content-options'
import { referenceOf, restoredPart, shownCitation } from './content-reference'
import { storedResultLine, storedResultsItem } from './stored-results'

/** What {@link expandCitations} reads besides the log. */
export interface CitationExpansionOptions {
  options: Pick<ResolvedContentOptions, 'briefAfterTurns' | 'maxCitations'>
  /** A stored record by memory id, or undefined. */
  get: (id: string) => Promise<ContentRecord | undefined>
  /**
   * The parts built for earlier contexts, by the log's citation part: stored content does not change,
   * so a thread shows the same part object again (its token count is then cached, and the store is
   * not read again).
   */
  cache?: CitationCache
  /** Where the view of the thread's last context is kept for the next one (see {@link citingCount}). */
  memo?: CitingMemo
}

/** What a thread keeps of the view its last context expanded. */
export interface CitingMemo {
  last?: CitingView | undefined
}

/** A view whose items are all frozen, and how many of them cite stored content. */
export interface CitingView {
  view: readonly Item[]
  citing: number
}

/** What {@link expandCitations} built for each citation part of the log. */
export type CitationCache = WeakMap<
  MessagePart,
  { full?: MessagePart; plain?: MessagePart; brief?: MessagePart }
>

/** Whether an item cites stored content: one of its parts is a citation (see `referenceOf`). */
function citesContent(item: Item): boolean {
  if (item.type !== 'message') return false
  const { content } = item
  for (let index = 0; index < content.length; index++)
    if (referenceOf(content[index]!) !== undefined) return true
  return false
}

/**
 * How many items of `view` cite stored content. A chat's next view is the last one with a question and
 * an answer added: when `view` starts with the items of `holder.last` (the same objects, frozen, so
 * unchanged), only the added ones are checked. The view is kept in `holder.last` when all its items
 * are frozen.
 */
function citingCount(view: readonly Item[], holder: CitingMemo = {}): number {
  const last = holder.last
  let from = 0
  let citing = 0
  if (last !== undefined && startsWith(view, last.view)) {
    from = last.view.length
    citing = last.citing
  }
  let frozen = true
  for (let index = from; index < view.length; index++) {
    const item = view[index]!
    if (citesContent(item)) citing++
    if (frozen && !Object.isFrozen(item)) frozen = false
  }
  // A copy: the caller's list is its own, and may change after this call.
  holder.last = frozen ? { view: view.slice(), citing } : undefined
  return citing
}

/** Whether `view` starts with the items of `prefix`, the same objects. */
function startsWith(view: readonly Item[], prefix: readonly Item[]): boolean {
  if (prefix.length > view.length) return false
  for (let index = prefix.length - 1; index >= 0; index--) if (view[index] !== prefix[index]) return false
  return true
}

/**
 * The view with its citations shown for a context. Citations that arrived after the last assistant
 * message (the model has not answered them yet) and file attachments are shown as the full stored
 * part; older ones as their citation, brief from `briefAfterTurns` turns back; answered tool results beyond the newest
 * `maxCitations` leave the view with their calls and are listed in one `[STORED RESULTS]` note. The
 * rule reads only the log and the content store, so the same log renders byte-identically.
 */
export async function expandCitations<I extends Item>(
  view: readonly I[],
  history: readonly LogEntry<string>[],
  expansion: CitationExpansionOptions,
): Promise<I[]> {
  if (citingCount(view, expansion.memo) === 0) return view as I[]
  return expandCited(view, history, expansion)
}

/**
 * {@link expandCitations} of a view that cites stored content: a function apart, so a context whose
 * view cites nothing (a cold open's first, often) does not compile it.
 */
async function expandCited<I extends Item>(
  view: readonly I[],
  history: readonly LogEntry<string>[],
  expansion: CitationExpansionOptions,
): Promise<I[]> {
  const { options, get, cache = new WeakMap() } = expansion
  let answeredThrough = 0
  for (let index = history.length - 1; index >= 0; index--) {
    const item = history[index]!
    // A sealed entry keeps its type and role: the newest answer is found wherever it is.
    if (isAnswerEntry(item)) {
      answeredThrough = item.seq
      break
    }
  }
  const cites = (item: Item): item is MessageItem & I => citesContent(item)
  const { briefAfterTurns, maxCitations } = options
  const grouped = groupedResults(view, answeredThrough, maxCitations)
  const inputs = grouped.size === 0 ? new Map<string, JsonValue>() : callInputs(view)
  const currentTurn = turnNumber(history.at(-1)?.turnId)

  // A provider-run call stays in a context while its result is pending: one whose result is
  // grouped out must leave with it here (other calls without a result are left out when rendered).
  const groupedCalls = new Set<string>()
  for (const part of grouped) if (part.type === 'tool-result') groupedCalls.add(part.toolCallId)
  const leaves = (part: MessagePart) =>
    part.type === 'tool-call' && part.providerExecuted === true && groupedCalls.has(part.toolCallId)

  const out: I[] = []
  const lines: string[] = []
  let noteAt = -1
  for (const item of view) {
    if (!cites(item)) {
      out.push(
        groupedCalls.size > 0 && item.type === 'message' && item.content.some(leaves)
          ? { ...item, content: item.content.filter((part) => !leaves(part)) }
          : item,
      )
      continue
    }
    const fresh = item.seq > answeredThrough
    // Citations from `briefAfterTurns` turns back or more shrink to their brief form.
    const brief = !fresh && currentTurn - turnNumber(item.turnId) >= briefAfterTurns
    const content: MessagePart[] = []
    for (const part of item.content) {
      const reference = referenceOf(part)
      if (reference === undefined) {
        if (!leaves(part)) content.push(part)
      } else if (grouped.has(part) && part.type === 'tool-result') {
        if (noteAt === -1) {
          noteAt = out.length
          out.push(item)
        }
        lines.push(storedResultLine(part, reference, inputs.get(part.toolCallId)))
      } else {
        const built = cache.get(part) ?? {}
        cache.set(part, built)
        // A file (an image, a PDF) is shown whole in every context: a model reads it only as a file,
        // never from a text citation, and a provider counts it by what it shows, not by its bytes.
        const whole = fresh || reference.kind === 'file'
        if (whole && built.full === undefined) {
          const record = await get(reference.id)
          // A record missing from the store (deleted by hand) leaves the citation in place.
          if (record !== undefined) built.full = restoredPart(part, reference, record.data)
        }
        if (whole && built.full !== undefined) {
          content.push(built.full)
        } else if (brief) {
          built.brief ??= shownCitation(part, reference, true)
          content.push(built.brief)
        } else {
          built.plain ??= shownCitation(part, reference, false)
          content.push(built.plain)
        }
      }
    }
    if (content.length > 0) out.push({ ...item, content })
  }
  if (noteAt !== -1) out[noteAt] = storedResultsItem(out[noteAt] as MessageItem & I, lines)
  return out
}

/**
 * The answered tool results (cited parts at or before `answeredThrough`) older than the newest
 * `keep`: the parts to group out of the context, in view order.
 */
function groupedResults(view: readonly Item[], answeredThrough: number, keep: number): Set<MessagePart> {
  const answered: MessagePart[] = []
  for (const item of view) {
    if (item.type !== 'message' || item.seq > answeredThrough) continue
    for (const part of item.content) {
      if (part.type === 'tool-result' && referenceOf(part) !== undefined) answered.push(part)
    }
  }
  return new Set(answered.slice(0, Math.max(0, answered.length - keep)))
}

/** The input of every tool call in the view, by call id. */
function callInputs(view: readonly Item[]): Map<string, JsonValue> {
  const inputs = new Map<string, JsonValue>()
  for (const item of view) {
    if (item.type !== 'message' || item.role !== 'assistant') continue
    for (const part of item.content) if (part.type === 'tool-call') inputs.set(part.toolCallId, part.input)
  }
  return inputs
}
