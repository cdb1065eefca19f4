import type { CompactionPolicies } from '../compaction/compaction-policies'
import type { PolicyItems } from '../compaction/compaction-policy'
import type { CompactionState } from '../compaction/policy-registry'
import { invalidOptions, StrataError } from '../errors'
import { type ComparableMessage, IncomingConversation, isConversation } from '../history/message-matching'
import {
  alignTail,
  checkMatchingOptions,
  DEFAULT_WINDOW,
  type HistoryMode,
  notContinuing,
  type TailAlignment,
  type UnseenMessagesResult,
} from '../history/unseen-messages'
import {
  type MessageInput,
  type MessageItem,
  type NormalizedMessage,
  normalizeMessage,
  type UnsequencedItem,
} from '../items'
import type { MessageFormat } from '../items/normalize-message'
import type { ScopeClosing } from '../thread-state/scope-closing'
import { isConversationEntry } from '../thread-state/sealed-items'
import { startsTurn, turnIdOf } from '../thread-state/thread-log'
import type { WritePath } from '../thread-state/write-path'
import type { AppendUnseenOptions, UnseenOptions } from './thread-types'

/** A check of the messages about to be written, which refuses them by throwing (`fit`). */
export type BeforeWrite = (messages: readonly NormalizedMessage[]) => void | Promise<void>

/**
 * Appending messages: each takes its level and turn (a tool result its call's), with the automatic
 * transition a new request may bring and the reopening of scopes a late tool result would hide.
 */
export class MessageAppend<L extends string> {
  readonly #state: CompactionState<L>
  readonly #writes: WritePath<L>
  readonly #closing: ScopeClosing<L>
  /** The compaction policies: told before an append's messages are stored, and after. */
  readonly #policies: CompactionPolicies<L>
  /** The list the last `divergence()`, `appendUnseen()` or `unseen()` mapped (see `incomingConversation`). */
  #recentIncoming:
    | {
        list: readonly unknown[]
        length: number
        toMessage: unknown
        conversation: IncomingConversation<{ role: string }>
      }
    | undefined

  constructor(
    state: CompactionState<L>,
    writes: WritePath<L>,
    closing: ScopeClosing<L>,
    policies: CompactionPolicies<L>,
  ) {
    this.#state = state
    this.#writes = writes
    this.#closing = closing
    this.#policies = policies
  }

  async appendUnseen<T extends { role: string }>(
    incoming: readonly T[],
    options: AppendUnseenOptions<T>,
    beforeWrite?: BeforeWrite,
  ): Promise<MessageItem<L>[]> {
    const { messages, history, window } = this.#matching('appendUnseen', incoming, options)
    const id = this.#state.id
    return this.appendMessages(async () => {
      const { indexes, aligned } = await this.#alignStoredTail(messages, history, window)
      if (!aligned) throw notContinuing(id, history)
      return indexes.map((index) => messages.comparable(index) as NormalizedMessage)
    }, beforeWrite)
  }

  /**
   * What {@link appendUnseen} would store of `incoming`, told from the same stored tail by the same
   * rule, and nothing written: the stored tail is read after what other writers stored, in the
   * thread's exclusive section, without a hold.
   */
  async unseen<T extends { role: string }>(
    incoming: readonly T[],
    options: UnseenOptions<T>,
  ): Promise<UnseenMessagesResult<T>> {
    const { messages, history, window } = this.#matching('unseen', incoming, options)
    return this.#writes.exclusive(async () => {
      await this.#writes.refresh()
      const { indexes, matched, aligned } = await this.#alignStoredTail(messages, history, window)
      return { unseen: indexes.map((index) => incoming[index]!), matched, aligned }
    })
  }

  /** The options of a history matching, checked, and the list as the matching reads it. */
  #matching<T extends { role: string }>(name: string, incoming: readonly T[], options: UnseenOptions<T>) {
    if (!Array.isArray(incoming)) invalidOptions(`${name}() needs an array of messages.`)
    const { toMessage, history = 'auto', window = DEFAULT_WINDOW } = options
    checkMatchingOptions({ history, window })
    // One walk of the list for every attempt: a retry after a seq conflict maps no message again.
    return { messages: this.incomingConversation(incoming, toMessage), history, window }
  }

  /** `messages` aligned with the stored tail of `window` conversation messages (see `alignTail`). */
  async #alignStoredTail<T extends { role: string }>(
    messages: IncomingConversation<T>,
    history: HistoryMode,
    window: number,
  ): Promise<TailAlignment> {
    // The alignment reads only the stored tail of `window` messages: only it need be frozen, and
    // read back if an open sealed it (a window larger than what opens keep whole).
    await this.#state.log.unsealTail(window, isConversationEntry)
    return alignTail(this.#state.log.tailFrozen(window, isConversation), messages, history, window)
  }

  /**
   * Writes messages built from the current log, with the automatic transition a new request may bring
   * and the reopening of scopes a late tool result would hide; tells the compaction policies before
   * and after. Returns the messages as stored. `beforeWrite` sees the messages before anything is
   * written (each attempt) and may refuse them by throwing.
   */
  async appendMessages(
    build: () => NormalizedMessage[] | Promise<NormalizedMessage[]>,
    beforeWrite?: BeforeWrite,
  ): Promise<MessageItem<L>[]> {
    const state = this.#state
    let ahead: PolicyItems<L> | undefined
    let messageCount = 0
    const stored = await this.#writes.exclusive(() =>
      this.#writes.write(async () => {
        const messages = await build()
        messageCount = messages.length
        ahead = undefined
        if (messages.length === 0) return []
        await beforeWrite?.(messages)
        // What the id and call checks need of the archive, read before the build (usually nothing).
        await state.log.index.resolve(
          messages.flatMap((message) => (message.id === undefined ? [] : [message.id])),
          messages.flatMap((message) =>
            message.content.flatMap((part) => (part.type === 'tool-result' ? [part.toolCallId] : [])),
          ),
        )
        // What the policies store ahead of the messages (an automatic transition), in the same write.
        ahead = await this.#policies.beforeAppend(messages)
        return [...(ahead?.items ?? []), ...this.#reopenAfterLateResults(this.#messageItems(messages))]
      }),
    )
    const aheadCount = ahead?.items.length ?? 0
    if (ahead !== undefined && stored.length > 0) ahead.afterStored?.(stored.slice(0, aheadCount))
    if (stored.length > 0) this.#policies.afterWrite()
    const messages = stored.slice(aheadCount) as MessageItem<L>[]
    return messageCount === messages.length ? messages : messages.filter((item) => item.scope === undefined)
  }

  /**
   * The list as the matching reads it, mapped lazily. The one `divergence()` mapped is kept for the
   * `appendUnseen()` that follows it with the same list (an adapter asks both on every call), so its
   * messages are mapped and fingerprinted once; any other list is mapped anew.
   */
  incomingConversation<T extends { role: string }>(
    incoming: readonly T[],
    toMessage: ((message: T) => MessageInput) | undefined,
  ): IncomingConversation<T> {
    const recent = this.#recentIncoming
    this.#recentIncoming = undefined
    if (recent?.list === incoming && recent.length === incoming.length && recent.toMessage === toMessage) {
      return recent.conversation as unknown as IncomingConversation<T>
    }
    // Each message mapped once, whether it is only compared or also checked for storing.
    const inputs = new Map<number, MessageInput>()
    const inputOf = (message: T, index: number) => {
      let input = inputs.get(index)
      if (input === undefined) {
        input = toMessage === undefined ? (message as unknown as MessageInput) : toMessage(message)
        inputs.set(index, input)
      }
      return input
    }
    const conversation = new IncomingConversation(
      incoming,
      // Adapters map their framework's messages to core's themselves: outputs are core's plain JSON.
      (message: T, index) => normalizeMessage(inputOf(message, index), { index, format: 'core' }),
      (message: T, index) => unchecked(inputOf(message, index)),
    )
    this.#recentIncoming = {
      list: incoming,
      length: incoming.length,
      toMessage,
      conversation: conversation as unknown as IncomingConversation<{ role: string }>,
    }
    return conversation
  }

  /**
   * A tool result keeps its call's level. When scopes were opened after the call (a tool that enters a
   * task, or a result that arrives late), the result at the broader level would end their views, so
   * each such scope is reopened right after it (an opening item with `scope.continuedFrom`; the scope
   * itself, its seq and title, stay as they are). A scope nothing happened in yet is reopened worded as
   * new: it is the one opening the model sees (see `ScopeClosing.lateReopeningItem`).
   */
  #reopenAfterLateResults(items: UnsequencedItem<L>[]): UnsequencedItem<L>[] {
    const { ladder } = this.#state.deps
    const current = ladder.rank(this.#state.level)
    let last = -1
    let broadest = current
    items.forEach((item, index) => {
      const rank = ladder.rank(item.level)
      if (rank < current) {
        last = index
        broadest = Math.min(broadest, rank)
      }
    })
    if (last < 0) return items
    const reopened = this.#state.log.scopes
      .filter((scope) => ladder.rank(scope.level) > broadest)
      .map((scope) => this.#closing.lateReopeningItem(scope))
    return [...items.slice(0, last + 1), ...reopened, ...items.slice(last + 1)]
  }

  #messageItems(messages: readonly NormalizedMessage[]): UnsequencedItem<L>[] {
    const state = this.#state
    const log = state.log
    const ids = new Set<string>()
    // Calls made earlier in this batch; the log's own map is only read, so an append costs O(batch).
    const batchCalls = new Map<string, { level: L; turnId: string }>()
    // New turns count on from the highest ever used; the others join the current turn.
    let next = log.turn
    let turn = log.currentTurn
    // One message is "the message"; in a list of several, errors name its index.
    const name = (index: number) => (messages.length === 1 ? 'the message' : `message[${index}]`)
    return messages.map((message, index) => {
      if (message.id !== undefined) {
        if (log.index.hasId(message.id) || ids.has(message.id)) {
          throw new StrataError({
            code: 'STRATA_DUPLICATE_ITEM_ID',
            message: `${name(index)} has id '${message.id}', which is already in thread '${state.id}': ids must be unique; omit id to have one generated.`,
            details: { id: message.id, index },
          })
        }
        ids.add(message.id)
      }
      if (startsTurn(message)) turn = ++next
      let level = state.level
      let turnId = turnIdOf(turn)
      for (const part of message.content) {
        if (part.type === 'tool-call') batchCalls.set(part.toolCallId, { level, turnId })
      }
      const result = message.content.find((part) => part.type === 'tool-result')
      if (result !== undefined) {
        const origin = batchCalls.get(result.toolCallId) ?? log.index.callOrigin(result.toolCallId)
        if (origin === undefined) {
          throw new StrataError({
            code: 'STRATA_UNKNOWN_TOOL_CALL',
            message: `${name(index)} holds a result for tool call '${result.toolCallId}', which this thread has never seen. Append the assistant message with the call first.`,
            details: { toolCallId: result.toolCallId, index },
          })
        }
        // A call and its result are one unit for every view: the result keeps the call's level and turn.
        level = origin.level
        turnId = origin.turnId
      }
      return state.newMessageItem(message, level, turnId)
    }) as UnsequencedItem<L>[]
  }
}

/**
 * One message or a list of them, normalized as `append` stores them: errors name a list's index, and
 * a `format` given is passed on (without one, `normalizeMessage` tells core's form from others).
 */
export function normalizeInputs(input: unknown, format?: MessageFormat): NormalizedMessage[] {
  const inputs = (Array.isArray(input) ? input : [input]) as unknown[]
  return inputs.map((message, index) =>
    normalizeMessage(message, {
      ...(inputs.length > 1 ? { index } : {}),
      ...(format === undefined ? {} : { format }),
    }),
  )
}

/**
 * A message input that `normalizeMessage` would take as it is when its parts are valid: a list of parts,
 * no id, timestamp or metadata to check. Compared with a stored message part for part, it needs no
 * check (see `IncomingConversation.matches`); anything else is checked as before.
 */
function unchecked(input: MessageInput): ComparableMessage | undefined {
  const { role, content, id, ts, meta } = input as Partial<NormalizedMessage> & { content?: unknown }
  if (id !== undefined || ts !== undefined || meta !== undefined || !Array.isArray(content)) return undefined
  return { role: role as ComparableMessage['role'], content }
}
