import {
  type FilePart,
  invalidOptions,
  type Memory,
  type MessageItem,
  type MessagePart,
  type RequestFailure,
  type SummaryItem,
  type TransitionItem,
} from '@strata-memory/core'
import type { ToolSet } from 'ai'
import { readMeta, TOOL_APPROVALS, UI_MESSAGE_ID } from '../messages/ai-sdk-meta'
import { assertChatId, readChatThread } from '../threads/chat-thread'
import {
  type MemoryTransitionData,
  memoryCompactionChunk,
  type StrataFailedRequest,
  type StrataUIMessage,
} from './memory-ui-parts'

type UIPart = StrataUIMessage['parts'][number]

/** A tool part as `useChat` holds it: `tool-<name>` for the route's tools, `dynamic-tool` for dynamic ones. */
interface ToolPart {
  type: string
  toolName?: string
  toolCallId: string
  state: 'input-available' | 'approval-requested' | 'output-available' | 'output-error' | 'output-denied'
  input: unknown
  output?: unknown
  errorText?: string
  providerExecuted?: boolean
  approval?: { id: string; approved: boolean; reason?: string }
}

/** Options of {@link loadUIMessages}; `tools` also types the messages (`StrataUIMessage<typeof tools>`). */
export interface LoadUIMessagesOptions<TOOLS extends ToolSet = ToolSet> {
  /**
   * Only the active log: leave out the turns a compaction archived (the model no longer sees them
   * raw). Answers a rewind archived (a regenerated answer, an edited message) are never included.
   * @default false: the chat as it was shown
   */
  visibleOnly?: boolean
  /**
   * At most this many turns (a user message and the answer to it), the newest.
   * @default all
   */
  limit?: number
  /**
   * Only messages before this one: the id of the oldest message a page already shows, to load the
   * page before it. An id the thread does not hold is `STRATA_INVALID_OPTIONS`.
   */
  before?: string
  /**
   * The route's tools: a call of a tool made with `dynamicTool()` loads as a `dynamic-tool` part, as
   * the stream shows it; a call of a tool with `needsApproval: true` that the last answer left
   * without a result loads as `approval-requested` (the page approves or denies it after a reload).
   * @default calls the SDK marked dynamic are `dynamic-tool`, every other call `tool-<name>`
   */
  tools?: TOOLS | ToolSet
}

/** A stored file's `url`: its URL or data URL as stored, bare base64 as a data URL. */
function fileUrl(part: FilePart): string {
  return /^[a-z][a-z0-9+.-]*:/i.test(part.data) ? part.data : `data:${part.mediaType};base64,${part.data}`
}

/** The failure mark as message metadata. */
function failedMetadata(mark: RequestFailure): StrataFailedRequest {
  return { reason: mark.reason, ts: mark.ts, ...(mark.code === undefined ? {} : { code: mark.code }) }
}

/** The UI message id an item was stored with (the route handed it to the middleware), if any. */
export function uiMessageIdOf(item: { meta?: Record<string, unknown> }): string | undefined {
  const id = item.meta?.[UI_MESSAGE_ID]
  return typeof id === 'string' ? id : undefined
}

/** The error text of a failed tool result, as the SDK shows it. */
const errorText = (output: unknown) => (typeof output === 'string' ? output : JSON.stringify(output))

/**
 * Whether a compaction goes on the next answer rather than the last one: its own turn (the request
 * it ran in) has no message before it any more, since an edit rewound that turn's question and answer.
 * The page that made the edit is shown it there too (`writeMissedTransitions`). `lastTurnId` is the
 * turn of the conversation message before it, undefined when the page starts with it.
 */
export function isOrphanCompaction(summary: SummaryItem, lastTurnId: string | undefined): boolean {
  return lastTurnId !== undefined && lastTurnId !== summary.turnId
}

/** Builds UI messages from a transcript (see {@link loadUIMessages}). */
class UIMessageBuilder {
  readonly messages: StrataUIMessage[] = []
  readonly #tools = new Map<string, ToolPart>()
  readonly #titles = new Map<number, string>()
  #answer: StrataUIMessage | undefined
  #pending: UIPart[] = []
  /** The turn of the last conversation message added: a compaction of another turn lost its own. */
  #turnId: string | undefined
  /** Pending compaction parts for the next answer, not the last one (see {@link isOrphanCompaction}). */
  readonly #forNext = new WeakSet<UIPart>()

  constructor(
    private readonly threadId: string,
    private readonly failures: ReadonlyMap<string, RequestFailure>,
    private readonly tools: ToolSet | undefined,
  ) {}

  add(item: MessageItem | TransitionItem | SummaryItem) {
    if (item.type === 'summary') {
      const chunk = memoryCompactionChunk(this.threadId, item)
      if (chunk === undefined) return
      this.#pending.push(chunk)
      if (isOrphanCompaction(item, this.#turnId)) this.#forNext.add(chunk)
      return
    }
    if (item.type === 'transition') {
      this.#transition(item)
      return
    }
    if (item.scope !== undefined) {
      this.#titles.set(item.seq, item.scope.title)
      return
    }
    if (item.role === 'user') {
      // A compaction pending here ran after the answer's last step: the route writes it into that
      // answer before its stream finishes. Transitions pending here were made between answers: the
      // next answer shows them first.
      if (this.#answer !== undefined) {
        const previous = (part: UIPart) => part.type === 'data-memory-compaction' && !this.#forNext.has(part)
        this.#answer.parts.push(...this.#pending.filter(previous))
        this.#pending = this.#pending.filter((part) => !previous(part))
      }
      this.#answer = undefined
      this.#turnId = item.turnId
      const mark = this.failures.get(item.id)
      this.messages.push({
        id: uiMessageIdOf(item) ?? item.id,
        role: 'user',
        parts: this.#parts(item),
        ...(mark === undefined ? {} : { metadata: { strata: { failed: failedMetadata(mark) } } }),
      })
      return
    }
    if (item.role === 'tool') {
      // Results complete their calls' parts, wherever the call is.
      this.#parts(item)
      this.#approvals(item)
      return
    }
    if (item.role !== 'assistant') return
    this.#turnId = item.turnId
    const id = uiMessageIdOf(item)
    if (this.#answer === undefined || (id !== undefined && id !== this.#answer.id)) {
      this.#answer = { id: id ?? item.id, role: 'assistant', parts: [] }
      this.messages.push(this.#answer)
    }
    // Transitions since the last step: made during this answer (a scope tool), or between answers
    // (`writeMissedTransitions` writes those first in the next answer); both stand before this step.
    this.#answer.parts.push(...this.#pending, { type: 'step-start' }, ...this.#parts(item))
    this.#pending = []
  }

  /**
   * Transitions not yet in an answer go into the last one. With `newest` (the page ends at the
   * thread's end), the last answer's calls of a tool with `needsApproval: true` that have no result
   * are awaiting approval: they load as `approval-requested`, so the page can still approve them.
   */
  finish(newest: boolean): StrataUIMessage[] {
    if (this.#pending.length > 0) {
      const last = this.messages.findLast((message) => message.role === 'assistant')
      if (last !== undefined) last.parts.push(...this.#pending)
    }
    const last = this.messages.at(-1)
    if (newest && last?.role === 'assistant') {
      for (const part of last.parts as unknown as ToolPart[]) {
        if (part.state !== 'input-available') continue
        const name = part.toolName ?? part.type.slice('tool-'.length)
        if ((this.tools?.[name] as { needsApproval?: unknown } | undefined)?.needsApproval !== true) continue
        part.state = 'approval-requested'
        // The SDK's own id was made after the call was stored; the page's answer names this one, and
        // the route hands both to the SDK together (`convertToModelMessages`), so they match.
        part.approval = { id: `approval-${part.toolCallId}` } as ToolPart['approval']
      }
    }
    return this.messages
  }

  #transition(item: TransitionItem) {
    if (item.userFacingMessage === null) return
    const data: MemoryTransitionData = {
      threadId: this.threadId,
      fromLevel: item.fromLevel,
      level: item.level,
      reason: item.reason,
      title: this.#titles.get(item.range.fromSeq) ?? '',
      text: item.userFacingMessage,
      seq: item.seq,
    }
    this.#pending.push({ type: 'data-memory-transition', id: item.id, data })
  }

  /** The approvals the page answered for the calls this tool message completes: approved, or denied. */
  #approvals(item: MessageItem) {
    const approvals = item.meta?.[TOOL_APPROVALS]
    if (typeof approvals !== 'object' || approvals === null) return
    for (const part of item.content) {
      if (part.type !== 'tool-result') continue
      const tool = this.#tools.get(part.toolCallId)
      const approval = (approvals as Record<string, ToolPart['approval']>)[part.toolCallId]
      if (tool === undefined || approval === undefined) continue
      tool.approval = approval
      if (approval.approved) continue
      // A denied call has no output: the SDK shows it denied, with the reason in its approval.
      tool.state = 'output-denied'
      delete tool.output
      delete tool.errorText
    }
  }

  /** The UI parts of one stored message; a tool result completes its call's part instead. */
  #parts(item: MessageItem): UIPart[] {
    const parts: UIPart[] = []
    for (const part of item.content) {
      const ui = this.#part(part, item.role === 'user')
      if (ui !== undefined) parts.push(ui)
    }
    return parts
  }

  #part(part: MessagePart, user: boolean): UIPart | undefined {
    switch (part.type) {
      case 'text':
        // A provider's custom part is kept as empty text: not chat.
        if (readMeta(part).part === 'custom') return undefined
        // A streamed text part ends `done`; the page's own message has no state.
        return user ? { type: 'text', text: part.text } : { type: 'text', text: part.text, state: 'done' }
      case 'reasoning':
        return { type: 'reasoning', text: part.text, state: 'done' }
      case 'file':
        return {
          type: 'file',
          mediaType: part.mediaType,
          url: fileUrl(part),
          ...(part.filename === undefined ? {} : { filename: part.filename }),
        }
      case 'tool-call': {
        const dynamic =
          readMeta(part).dynamic === true ||
          (this.tools?.[part.toolName] as { type?: string })?.type === 'dynamic'
        const tool: ToolPart = {
          type: dynamic ? 'dynamic-tool' : `tool-${part.toolName}`,
          ...(dynamic ? { toolName: part.toolName } : {}),
          toolCallId: part.toolCallId,
          state: 'input-available',
          input: part.input,
          ...(part.providerExecuted === true ? { providerExecuted: true } : {}),
        }
        this.#tools.set(part.toolCallId, tool)
        return tool as UIPart
      }
      case 'tool-result': {
        const tool = this.#tools.get(part.toolCallId)
        if (tool === undefined) return undefined
        // The call's part becomes its answered form, in place.
        if (part.isError === true) {
          tool.state = 'output-error'
          tool.errorText = errorText(part.output)
        } else {
          tool.state = 'output-available'
          tool.output = part.output
        }
        return undefined
      }
    }
    return undefined
  }
}

/** Checks the options before anything is read. */
function checkOptions(options: LoadUIMessagesOptions<ToolSet>): void {
  if (typeof options !== 'object' || options === null) {
    invalidOptions('loadUIMessages(): options must be an object like { limit: 50 }.')
  }
  const { limit, before, visibleOnly, tools } = options
  if (tools !== undefined && (typeof tools !== 'object' || tools === null)) {
    invalidOptions("loadUIMessages(): tools must be the route's tool set.")
  }
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 1)) {
    invalidOptions(
      `loadUIMessages(): limit must be a whole number of turns, at least 1 (got ${JSON.stringify(limit)}).`,
      { limit },
    )
  }
  if (before !== undefined && (typeof before !== 'string' || before === '')) {
    invalidOptions('loadUIMessages(): before must be the id of a message the chat shows.', { before })
  }
  if (visibleOnly !== undefined && typeof visibleOnly !== 'boolean') {
    invalidOptions('loadUIMessages(): visibleOnly must be a boolean.', { visibleOnly })
  }
}

/**
 * The thread's chat as `useChat` messages: the thread is the chat's source of truth, so a page (any
 * browser, after a reload) starts from it and the app keeps no second chat store. Each user message
 * is one message; an answer (every step of one response, its tool calls with their results) is one
 * assistant message with a `step-start` part before each step. Ids are the ids the stream gave the
 * messages when the route passed them to the middleware (`providerOptions.strata.messageId` and
 * `userMessageId`, see the README's route), else the stored items' ids. Tool calls are
 * `tool-<name>` parts (`dynamic-tool` for a call the SDK marked dynamic) in the state the stream
 * left them; a large tool result and a long user message read back whole from the content channel,
 * not as the citation the model sees. Transitions are `data-memory-transition` parts, budget and
 * manual compactions `data-memory-compaction` parts where the stream showed them. Turns a
 * compaction archived are included (unless `visibleOnly`); an answer a rewind archived never is. A
 * user message whose model call failed carries `metadata.strata.failed` until an answer follows.
 * The last message carries `metadata.strata.seq` (the thread's last seq it shows).
 *
 * @example
 * const messages = await loadUIMessages(memory, chatId, { limit: 50 })
 * const earlier = await loadUIMessages(memory, chatId, { limit: 50, before: messages[0]?.id })
 */
export async function loadUIMessages<TOOLS extends ToolSet = ToolSet>(
  memory: Memory,
  threadId: string,
  options: LoadUIMessagesOptions<TOOLS> = {},
): Promise<StrataUIMessage<TOOLS>[]> {
  if (typeof memory?.thread !== 'function') {
    invalidOptions('loadUIMessages() needs the memory from createMemory() and a thread id.')
  }
  assertChatId(threadId)
  checkOptions(options)
  const { limit, before, visibleOnly = false, tools } = options
  // The chat's id as the app gives it: one outside the store's rule reads its mapped thread.
  const thread = await readChatThread(memory, threadId)
  let beforeSeq: number | undefined
  if (before !== undefined) {
    const { items } = await thread.transcript({ archived: !visibleOnly })
    const found = items.find((item) => (uiMessageIdOf(item) ?? item.id) === before)
    if (found === undefined) {
      invalidOptions(
        `loadUIMessages(): thread '${threadId}' holds no message '${before}'; pass the id of a message it returned.`,
        { threadId, before },
      )
    }
    beforeSeq = found.seq
  }
  const [transcript, failures] = await Promise.all([
    thread.transcript({
      archived: !visibleOnly,
      compactions: true,
      ...(limit === undefined ? {} : { turns: limit }),
      ...(beforeSeq === undefined ? {} : { beforeSeq }),
    }),
    thread.failures(),
  ])
  const builder = new UIMessageBuilder(threadId, new Map(failures.map((mark) => [mark.itemId, mark])), tools)
  // The compactions' summaries, merged in at their seqs.
  const compactions = transcript.compactions ?? []
  let next = 0
  for (const item of transcript.items) {
    while (next < compactions.length && compactions[next]!.seq < item.seq) builder.add(compactions[next++]!)
    builder.add(item)
  }
  while (next < compactions.length) builder.add(compactions[next++]!)
  const messages = builder.finish(beforeSeq === undefined)
  const last = messages.at(-1)
  const shownSeqs = [transcript.items.at(-1)?.seq, compactions.at(-1)?.seq].filter(
    (seq): seq is number => seq !== undefined,
  )
  const lastSeq = shownSeqs.length === 0 ? undefined : Math.max(...shownSeqs)
  if (last !== undefined && lastSeq !== undefined && beforeSeq === undefined) {
    last.metadata = { ...last.metadata, strata: { ...last.metadata?.strata, seq: lastSeq } }
  }
  return messages as StrataUIMessage<TOOLS>[]
}
