import { referenceOf } from '../content/content-reference'
import { StrataError } from '../errors'
import type { StrataStore } from '../stores/store'
import type { Item } from './item'
import type { JsonValue } from './json'
import type { MessagePart, MessageRole } from './message-part'

/**
 * What an adapter knows about the message list a framework hands it on each call:
 * - `'auto'`: either the whole history or only new messages; the stored tail is looked for in it.
 * - `'full'`: always the whole history (the usual AI SDK route handler); only an incoming list that
 *   holds the stored tail in full counts as a re-send.
 * - `'new'`: only messages the framework has not sent before (plus, in a tool loop, the step's own
 *   re-sent messages): at least one incoming message is always new.
 */
export type HistoryMode = 'auto' | 'full' | 'new'

/** A message as {@link unseenMessages} compares it: role and parts (ids and metadata are ignored). */
export interface ComparableMessage {
  role: MessageRole
  content: readonly MessagePart[]
}

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
   * core's: only the few messages actually compared are mapped.
   * @default the message itself
   */
  toComparable?: (message: T) => ComparableMessage
}

/** What {@link unseenMessages} found. */
export interface UnseenMessagesResult<T> {
  /** The incoming conversation messages the thread has not stored, in order (system messages left out). */
  unseen: T[]
  /** How many incoming conversation messages matched the stored tail (0: none). */
  matched: number
}

const HISTORY_MODES: readonly HistoryMode[] = ['auto', 'full', 'new']
const DEFAULT_WINDOW = 64

/** Sorted-key JSON, so `{a, b}` and `{b, a}` compare equal. */
function canonical(value: JsonValue | undefined): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null'
  if (Array.isArray(value)) return `[${value.map((entry) => canonical(entry)).join(',')}]`
  const keys = Object.keys(value)
    .filter((key) => (value as Record<string, JsonValue | undefined>)[key] !== undefined)
    .sort()
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, JsonValue>)[key])}`).join(',')}}`
}

/** FNV-1a over the string: file data can be megabytes, its fingerprint needs only a few bytes. */
function hash(text: string): string {
  let value = 0x811c9dc5
  for (let index = 0; index < text.length; index++) {
    value ^= text.charCodeAt(index)
    value = Math.imul(value, 0x01000193)
  }
  return (value >>> 0).toString(36)
}

/** One compared piece of a message; a prefix matches any piece that starts with it. */
type Piece = string | { prefix: string }

/**
 * The pieces two messages are compared by. A part the content channel replaced by a citation in the
 * log (its data now lives in the content store) can only be matched by what the citation keeps: a
 * tool result by its call id and tool name, a file by its media type, a text by being text.
 */
function piecesOf(message: ComparableMessage): Piece[] {
  const pieces: Piece[] = []
  let text: string | undefined
  const flush = () => {
    if (text !== undefined && text.length > 0) pieces.push(`t${text}`)
    text = undefined
  }
  for (const part of message.content) {
    const reference = referenceOf(part)
    if (reference !== undefined) {
      flush()
      if (part.type === 'tool-result')
        pieces.push({ prefix: `r${part.toolCallId}\u0000${part.toolName}\u0000` })
      else if (reference.kind === 'file') pieces.push({ prefix: `f${reference.mediaType ?? ''}:` })
      else pieces.push({ prefix: 't' })
      continue
    }
    switch (part.type) {
      case 'text':
        text = (text ?? '') + part.text
        continue
      case 'reasoning':
        continue
      case 'file':
        flush()
        pieces.push(`f${part.mediaType}:${part.data.length}:${hash(part.data)}`)
        continue
      case 'tool-call':
        flush()
        pieces.push(`c${part.toolCallId}\u0000${part.toolName}\u0000${canonical(part.input)}`)
        continue
      case 'tool-result':
        flush()
        pieces.push(
          `r${part.toolCallId}\u0000${part.toolName}\u0000${part.isError === true ? 'e' : ''}${canonical(part.output)}`,
        )
        continue
    }
  }
  flush()
  return pieces
}

const SEPARATOR = '\u0001'

/**
 * A string that is equal for two messages a framework would consider the same message: the role and
 * the parts, with adjacent text parts joined, empty text and reasoning left out (frameworks drop or
 * merge them when they re-send a response), tool inputs and outputs compared as sorted-key JSON and
 * file data by length and hash. Ids and metadata are ignored. A part the content channel replaced by
 * a citation is represented by what the citation keeps (see {@link unseenMessages}).
 */
export function messageFingerprint(message: ComparableMessage): string {
  const pieces = piecesOf(message).map((piece) => (typeof piece === 'string' ? piece : `${piece.prefix}*`))
  return [message.role, ...pieces].join(SEPARATOR)
}

/** How a stored message is compared: by fingerprint, or piece by piece when it holds citations. */
interface StoredPattern {
  fingerprint: string
  role: string
  pieces?: Piece[]
}

function patternOf(message: ComparableMessage): StoredPattern {
  const pieces = piecesOf(message)
  if (pieces.every((piece) => typeof piece === 'string')) {
    return { fingerprint: [message.role, ...pieces].join(SEPARATOR), role: message.role }
  }
  return { fingerprint: '', role: message.role, pieces }
}

function matches(stored: StoredPattern, incoming: ComparableMessage, fingerprint: string): boolean {
  if (stored.pieces === undefined) return stored.fingerprint === fingerprint
  if (stored.role !== incoming.role) return false
  const pieces = piecesOf(incoming)
  return (
    pieces.length === stored.pieces.length &&
    stored.pieces.every((piece, index) => {
      const other = pieces[index]!
      const text = typeof other === 'string' ? other : other.prefix
      return typeof piece === 'string' ? piece === text : text.startsWith(piece.prefix)
    })
  )
}

/**
 * A message of the conversation as the framework sees it: not a system message (instructions are
 * re-sent with every call, never stored), not a scope's opening item (Strata writes those itself).
 */
const isConversation = (item: Item): boolean =>
  item.type === 'message' && item.role !== 'system' && item.scope === undefined

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
 * The ambiguity no alignment can settle: an incoming message identical (role and content) to the last
 * stored message may be a re-send (a retry after a failed call) or a new message that repeats it.
 * `'auto'` and `'full'` take it for a re-send; `'new'` stores it again, because in that mode at least one
 * incoming message is always new. `'full'` also refuses to align an incoming list that holds only the
 * end of the stored tail (its first message would then be mid-history, which a full history never is),
 * so a new conversation that happens to repeat the last stored messages is stored.
 *
 * @example
 * const { unseen } = unseenMessages(await thread.items(), incoming, { history: 'auto' })
 * if (unseen.length > 0) await thread.append(unseen)
 */
export function unseenMessages<T extends { role: string }>(
  stored: readonly Item[],
  incoming: readonly T[],
  options: UnseenMessagesOptions<T> = {},
): UnseenMessagesResult<T> {
  const { history = 'auto', window = DEFAULT_WINDOW } = options
  const toComparable = options.toComparable ?? ((message: T) => message as unknown as ComparableMessage)
  if (!HISTORY_MODES.includes(history)) {
    throw new StrataError({
      code: 'STRATA_INVALID_OPTIONS',
      message: `history must be 'auto', 'full' or 'new' (got ${JSON.stringify(history)}).`,
      details: { history },
    })
  }
  checkWindow(window)
  const conversation = incoming.filter((message) => message.role !== 'system')
  // The stored tail, newest first: only as many messages as can be compared.
  const tail: StoredPattern[] = []
  for (let index = stored.length - 1; index >= 0 && tail.length < window; index--) {
    const item = stored[index]!
    if (item.type === 'message' && isConversation(item)) tail.push(patternOf(item))
  }
  if (tail.length === 0 || conversation.length === 0) return { unseen: conversation, matched: 0 }
  // Fingerprints are taken only of the messages compared: a re-sent history of thousands of messages
  // costs the few dozen nearest its end, not a pass over all of it.
  const comparable: (ComparableMessage | undefined)[] = []
  const fingerprints: (string | undefined)[] = []
  const matchesAt = (index: number, pattern: StoredPattern) => {
    const message = conversation[index]!
    if (message.role !== pattern.role) return false
    let mapped = comparable[index]
    let fingerprint = fingerprints[index]
    if (mapped === undefined || fingerprint === undefined) {
      mapped = toComparable(message)
      fingerprint = messageFingerprint(mapped)
      comparable[index] = mapped
      fingerprints[index] = fingerprint
    }
    return matches(pattern, mapped, fingerprint)
  }
  // In 'new' mode the whole list can never be a re-send: the last message is always new.
  const newest = history === 'new' ? conversation.length - 1 : conversation.length
  for (let end = newest; end >= 1; end--) {
    let run = 0
    while (run < tail.length && run < end && matchesAt(end - 1 - run, tail[run]!)) run++
    const tailExhausted = run === tail.length
    const incomingExhausted = run === end
    if (tailExhausted || (incomingExhausted && history !== 'full')) {
      return { unseen: conversation.slice(end), matched: run }
    }
  }
  return { unseen: conversation, matched: 0 }
}

function checkWindow(window: number) {
  if (!Number.isInteger(window) || window < 1) {
    throw new StrataError({
      code: 'STRATA_INVALID_OPTIONS',
      message: `window must be a whole number of at least 1 (got ${String(window)}).`,
      details: { window },
    })
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
