import { referenceOf } from '../content/content-reference'
import type { Item, MessageItem } from '../items/item'
import { hasPlainPrototype, type JsonValue } from '../items/json'
import type { MessagePart, MessageRole } from '../items/message-part'

/** A message as Strata compares it: role and parts (ids and metadata are ignored). */
export interface ComparableMessage {
  role: MessageRole
  content: readonly MessagePart[]
}

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
 * tool result by its call id and tool name, a file by its media type, a text by being text. Without
 * `tools`, tool calls and results are left out as reasoning is: what a client that keeps only the
 * text of a conversation still holds of the message.
 */
function piecesOf(message: ComparableMessage, { tools = true }: { tools?: boolean } = {}): Piece[] {
  const pieces: Piece[] = []
  let text: string | undefined
  const flush = () => {
    if (text !== undefined && text.length > 0) pieces.push(`t${text}`)
    text = undefined
  }
  for (const part of message.content) {
    if (!tools && (part.type === 'tool-call' || part.type === 'tool-result')) continue
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

/** Whether incoming pieces are the stored ones, a stored prefix piece matching any piece it starts. */
function piecesMatch(stored: readonly Piece[], incoming: readonly Piece[]): boolean {
  return (
    incoming.length === stored.length &&
    stored.every((piece, index) => {
      const other = incoming[index]!
      const text = typeof other === 'string' ? other : other.prefix
      return typeof piece === 'string' ? piece === text : text.startsWith(piece.prefix)
    })
  )
}

/** The ids of the tool calls and results a message holds. */
function toolCallIdsOf(message: ComparableMessage): string[] {
  const ids: string[] = []
  for (const part of message.content) {
    if (part.type === 'tool-call' || part.type === 'tool-result') ids.push(part.toolCallId)
  }
  return ids
}

const SEPARATOR = '\u0001'

/**
 * A string that is equal for two messages a framework would consider the same message: the role and
 * the parts, with adjacent text parts joined, empty text and reasoning left out (frameworks drop or
 * merge them when they re-send a response), tool inputs and outputs compared as sorted-key JSON and
 * file data by length and hash. Ids and metadata are ignored. A part the content channel replaced by
 * a citation is represented by what the citation keeps (see `unseenMessages`).
 */
export function messageFingerprint(message: ComparableMessage): string {
  const pieces = piecesOf(message).map((piece) => (typeof piece === 'string' ? piece : `${piece.prefix}*`))
  return [message.role, ...pieces].join(SEPARATOR)
}

/** How a stored message is compared: by fingerprint, or piece by piece when it holds citations. */
export interface StoredPattern {
  fingerprint: string
  role: string
  /** The stored message's parts (frozen): an incoming message with the same parts matches without a fingerprint. */
  content?: readonly MessagePart[]
  pieces?: Piece[]
  /**
   * What a client that keeps only the text of a conversation still holds of the message: its pieces
   * without tool calls and results. Set only for an assistant message that holds tool parts.
   */
  withoutTools?: Piece[]
  /**
   * Whether such a client drops the whole message: a tool message, or an assistant message with
   * nothing but tool calls and reasoning. A re-sent history may leave it out.
   */
  omittable: boolean
  /** The ids of the tool calls and results it holds: a client that dropped them cannot send them. */
  toolCallIds: readonly string[]
  /**
   * A finished answer (an assistant message without tool calls, with text or files) as a client
   * that keeps only text holds it, for telling a re-sent history from new messages; else undefined.
   */
  answer?: string
}

/**
 * Patterns of stored items by item. The thread's log hands out frozen items that never change, and
 * every call compares the same stored tail again: each is worked out once.
 */
const storedPatterns = new WeakMap<Item, StoredPattern>()

export function storedPatternOf(item: MessageItem): StoredPattern {
  // Only a frozen item is known not to change under the cache; a caller's own copy is worked out anew.
  if (!Object.isFrozen(item)) return patternOf(item)
  let pattern = storedPatterns.get(item)
  if (pattern === undefined) {
    pattern = patternOf(item)
    if (pattern.fingerprint !== '') pattern.content = item.content
    storedPatterns.set(item, pattern)
  }
  return pattern
}

/** A key for pieces without citations, or undefined when a citation makes exact keys impossible. */
const keyOf = (role: string, pieces: readonly Piece[]) =>
  pieces.every((piece) => typeof piece === 'string') ? [role, ...pieces].join(SEPARATOR) : undefined

function patternOf(message: ComparableMessage): StoredPattern {
  const pieces = piecesOf(message)
  const toolCallIds = toolCallIdsOf(message)
  const textPieces = toolCallIds.length === 0 ? pieces : piecesOf(message, { tools: false })
  const pattern: StoredPattern = {
    fingerprint: keyOf(message.role, pieces) ?? '',
    role: message.role,
    omittable: message.role === 'tool' || (message.role === 'assistant' && textPieces.length === 0),
    toolCallIds,
  }
  if (pattern.fingerprint === '') pattern.pieces = pieces
  if (message.role === 'assistant' && toolCallIds.length > 0) pattern.withoutTools = textPieces
  if (message.role === 'assistant' && textPieces.length > 0 && !hasToolCall(message)) {
    const answer = keyOf(message.role, textPieces)
    if (answer !== undefined) pattern.answer = answer
  }
  return pattern
}

const hasToolCall = (message: ComparableMessage) => message.content.some((part) => part.type === 'tool-call')

/**
 * Whether two JSON values are equal, keys in any order and keys whose value is undefined left out: what
 * {@link canonical} compares, without building the strings. Equal here means equal fingerprints; a
 * value it calls different (a number that is not JSON, say) is left to the fingerprint.
 */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false
    for (let index = 0; index < a.length; index++) if (!sameJson(a[index], b[index])) return false
    return true
  }
  if (Array.isArray(b)) return false
  const left = a as Record<string, unknown>
  const right = b as Record<string, unknown>
  // `for…in` rather than `Object.keys`: no array of keys per object compared, on every call that
  // re-sends a history. It walks inherited keys too, so only plain objects are compared here; any
  // other is left to the fingerprint, which reads own keys.
  if (!hasPlainPrototype(left) || !hasPlainPrototype(right)) return false
  let keys = 0
  for (const key in left) {
    if (left[key] === undefined) continue
    keys++
    if (!sameJson(left[key], right[key])) return false
  }
  for (const key in right) if (right[key] !== undefined) keys--
  return keys === 0
}

/** Whether two lists of parts are the same JSON: then the messages' fingerprints are equal too. */
function sameParts(stored: readonly MessagePart[], incoming: readonly MessagePart[]): boolean {
  if (stored.length !== incoming.length) return false
  for (let index = 0; index < stored.length; index++)
    if (!sameJson(stored[index], incoming[index])) return false
  return true
}

function matches(stored: StoredPattern, incoming: ComparableMessage, fingerprint: string): boolean {
  if (stored.pieces === undefined) return stored.fingerprint === fingerprint
  if (stored.role !== incoming.role) return false
  return piecesMatch(stored.pieces, piecesOf(incoming))
}

/**
 * A message of the conversation as the framework sees it: not a system message (instructions are
 * re-sent with every call, never stored), not a scope's opening item (Strata writes those itself).
 */
export const isConversation = (item: Item): item is MessageItem =>
  item.type === 'message' && item.role !== 'system' && item.scope === undefined

/**
 * An incoming message list as the matchers read it: system messages left out, walked from either end
 * only as far as needed, each message mapped and fingerprinted once and only when compared. A
 * re-sent history of thousands of messages costs the few dozen nearest its end.
 */
export class IncomingConversation<T extends { role: string }> {
  readonly #incoming: readonly T[]
  readonly #toComparable: (message: T, index: number) => ComparableMessage
  /** Indexes in `incoming` of the conversation messages found so far, newest first. */
  readonly #fromEnd: number[] = []
  /** Where the backward walk goes on: the next index to look at. */
  #next: number
  readonly #mapped = new Map<number, { comparable: ComparableMessage; fingerprint?: string }>()
  /**
   * The last alignment of this list with a stored tail, by the tail's patterns (see `alignTail`): an
   * adapter asks `divergence()` and then `appendUnseen()` about the same list and the same tail.
   */
  lastAlignment: { tail: readonly StoredPattern[]; key: string; result: unknown } | undefined

  /** The message as it is before `toComparable` checks it, when that is a plain `{ role, content: parts }`. */
  readonly #unchecked: ((message: T, index: number) => ComparableMessage | undefined) | undefined

  /**
   * `unchecked`: the message before `toComparable` checks and normalizes it, or undefined when it needs
   * that (see {@link matches}): a message equal part for part to a stored one is valid as it is.
   */
  constructor(
    incoming: readonly T[],
    toComparable: (message: T, index: number) => ComparableMessage,
    unchecked?: (message: T, index: number) => ComparableMessage | undefined,
  ) {
    this.#incoming = incoming
    this.#toComparable = toComparable
    this.#unchecked = unchecked
    this.#next = incoming.length - 1
  }

  /** The index in `incoming` of the conversation message `back` places from the end (0: the newest). */
  fromEnd(back: number): number | undefined {
    while (this.#fromEnd.length <= back && this.#next >= 0) {
      const index = this.#next--
      if (this.#incoming[index]!.role !== 'system') this.#fromEnd.push(index)
    }
    return this.#fromEnd[back]
  }

  /** Whether one of the `depth` newest conversation messages has the role (as the framework gives it). */
  holdsRole(role: string, depth: number): boolean {
    for (let back = 0; back < depth; back++) {
      const index = this.fromEnd(back)
      if (index === undefined) return false
      if (this.#incoming[index]!.role === role) return true
    }
    return false
  }

  /** How many conversation messages the list holds (walks all of it). */
  get length(): number {
    this.fromEnd(Number.POSITIVE_INFINITY)
    return this.#fromEnd.length
  }

  /** The index in `incoming` of the conversation message at `position` from the start (0: the oldest). */
  fromStart(position: number): number | undefined {
    const length = this.length
    return position < 0 || position >= length ? undefined : this.#fromEnd[length - 1 - position]
  }

  /** The indexes in `incoming` of the last `count` conversation messages, oldest first. */
  last(count: number): number[] {
    const indexes: number[] = []
    for (let back = count - 1; back >= 0; back--) {
      const index = this.fromEnd(back)
      if (index !== undefined) indexes.push(index)
    }
    return indexes
  }

  /** The incoming message at `index` as `toComparable` maps it, mapped once. */
  comparable(index: number): ComparableMessage {
    return this.#map(index).comparable
  }

  /** Whether the incoming message at `index` is the stored message `pattern` stands for. */
  matches(index: number, pattern: StoredPattern): boolean {
    if (this.#incoming[index]!.role !== pattern.role) return false
    // A re-sent message is usually the stored one part for part: no fingerprint needed to say so, nor
    // (before it is mapped) the checks a message to store needs: the stored one passed them.
    if (pattern.content !== undefined && !this.#mapped.has(index) && this.#unchecked !== undefined) {
      const unchecked = this.#unchecked(this.#incoming[index]!, index)
      if (unchecked?.role === pattern.role && sameParts(pattern.content, unchecked.content)) return true
    }
    const mapped = this.#map(index)
    if (pattern.content !== undefined && sameParts(pattern.content, mapped.comparable.content)) return true
    mapped.fingerprint ??= messageFingerprint(mapped.comparable)
    return matches(pattern, mapped.comparable, mapped.fingerprint)
  }

  /**
   * Whether the incoming message at `index` is the stored assistant message `pattern` stands for as a
   * client that keeps only text holds it: no tool part of its own, the stored text and files.
   */
  matchesWithoutTools(index: number, pattern: StoredPattern): boolean {
    if (pattern.withoutTools === undefined || this.#incoming[index]!.role !== pattern.role) return false
    const { comparable } = this.#map(index)
    if (toolCallIdsOf(comparable).length > 0) return false
    return piecesMatch(pattern.withoutTools, piecesOf(comparable))
  }

  /** The ids of the tool calls and results the incoming message at `index` holds. */
  toolCallIds(index: number): string[] {
    return toolCallIdsOf(this.#map(index).comparable)
  }

  /**
   * The incoming message at `index` as {@link StoredPattern.answer} keys a finished answer, or
   * undefined when it is not one (not an assistant message, or one that calls tools).
   */
  answer(index: number): string | undefined {
    if (this.#incoming[index]!.role !== 'assistant') return undefined
    const { comparable } = this.#map(index)
    if (hasToolCall(comparable)) return undefined
    const pieces = piecesOf(comparable, { tools: false })
    return pieces.length === 0 ? undefined : keyOf(comparable.role, pieces)
  }

  #map(index: number) {
    let mapped = this.#mapped.get(index)
    if (mapped === undefined) {
      mapped = { comparable: this.#toComparable(this.#incoming[index]!, index) }
      this.#mapped.set(index, mapped)
    }
    return mapped
  }
}
