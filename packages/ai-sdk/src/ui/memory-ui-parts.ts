import {
  type ContextStats,
  invalidOptions,
  type Memory,
  type SummaryItem,
  type TransitionEvent,
} from '@strata-memory/core'
import { type TransitionEventData, transitionEventData } from '@strata-memory/core/adapter-kit'
import type { InferUITools, ToolSet, UIMessage, UIMessageStreamWriter } from 'ai'
import { assertChatId, chatEventFilter } from '../threads/chat-thread'

/**
 * The data of a `data-memory-transition` part: a scope closed, in words for people — the thread, the
 * closed scope's level and title, the level the thread returned to, why it ended (`task-complete`,
 * `cancelled`, `token-budget`, …), the transition item's seq, and its user-facing text (a transition
 * hidden from people writes no part). The part's id is the transition item's.
 */
export interface MemoryTransitionData extends Omit<TransitionEventData, 'id' | 'summary' | 'text'> {
  /** The transition's user-facing text. */
  text: string
}

/** A user message's failed request, as `loadUIMessages` shows it (see `thread.markFailed`). */
export interface StrataFailedRequest {
  /** The provider's error message. */
  reason: string
  /** The error's code or HTTP status, when it had one. */
  code?: string
  /** When the request was marked failed (epoch ms). */
  ts: number
}

/**
 * The data of a `data-memory-compaction` part: a budget compaction moved old turns out of what the
 * model is sent. Read from the episodic summary the compaction stored, so the stream and
 * `loadUIMessages` give the same part (its id is the summary's).
 */
export interface MemoryCompactionData {
  threadId: string
  /** What started it: `budget` (the prompt neared the input budget) or `manual`. */
  trigger: string
  /** Tokens of the active history before and after it. */
  tokensBefore: number
  tokensAfter: number
  /** Items moved to the archive (still readable, and still shown by `loadUIMessages`). */
  itemsArchived: number
  /** The seq of the compaction's summary in the thread's log: where it happened. */
  seq: number
}

/**
 * Strata's message metadata, under `strata`: context statistics on an assistant message while it
 * streams (`writeMemoryParts`): what the model was sent (`contextTokens`), what the thread holds
 * (`totalTokens`) and, under a token budget, the most the context may hold (`inputBudget`);
 * `failed` on a user message whose request failed after it was stored (`loadUIMessages`), so a
 * reloaded chat can offer a retry; `seq`, the thread's last seq the message shows, which a client that
 * sends only its last message passes back (`lastSeq`) so the route writes only what is new since.
 */
export interface StrataMessageMetadata {
  strata?: Partial<
    Pick<
      ContextStats,
      'level' | 'contextTokens' | 'totalTokens' | 'savedTokens' | 'savedRatio' | 'inputBudget'
    >
  > & { failed?: StrataFailedRequest; seq?: number }
}

/** The data part types Strata writes, for `UIMessage`'s data generic. */
export type StrataDataTypes = {
  'memory-transition': MemoryTransitionData
  'memory-compaction': MemoryCompactionData
}

/**
 * A `UIMessage` with Strata's parts and metadata, for `useChat<StrataUIMessage>()`. Pass the route's
 * tools (`StrataUIMessage<typeof tools>`) for typed `tool-<name>` parts; add your own metadata and
 * data types with the other generics.
 *
 * @example
 * const { messages } = useChat<StrataUIMessage<typeof tools>>()
 * messages.flatMap((message) => message.parts).filter((part) => part.type === 'data-memory-transition')
 */
export type StrataUIMessage<
  TOOLS extends ToolSet = ToolSet,
  Metadata extends StrataMessageMetadata = StrataMessageMetadata,
  DataTypes extends StrataDataTypes = StrataDataTypes,
> = UIMessage<Metadata, DataTypes, InferUITools<TOOLS>>

/** The `data-memory-transition` chunk of a transition event, or undefined when people are not shown it. */
export function memoryTransitionChunk(event: TransitionEvent) {
  const { id, summary: _, text, ...fields } = transitionEventData(event)
  if (text === null) return undefined
  const data: MemoryTransitionData = { ...fields, text }
  return { type: 'data-memory-transition' as const, id, data }
}

/**
 * The `data-memory-compaction` chunk of a compaction's episodic summary (the `compaction-end`
 * event's `summary`, or one `transcript({ compactions: true })` lists), or undefined for a summary
 * that records no compaction.
 */
export function memoryCompactionChunk(threadId: string, summary: SummaryItem | undefined) {
  const record = summary?.compaction
  if (summary === undefined || record === undefined) return undefined
  const data: MemoryCompactionData = {
    threadId,
    trigger: record.trigger,
    tokensBefore: record.tokensBefore,
    tokensAfter: record.tokensAfter,
    itemsArchived: record.itemsArchived,
    seq: summary.seq,
  }
  return { type: 'data-memory-compaction' as const, id: summary.id, data }
}

/** Context statistics as message metadata. */
export function contextStatsMetadata(stats: ContextStats): StrataMessageMetadata {
  const { level, contextTokens, totalTokens, savedTokens, savedRatio, inputBudget } = stats
  return {
    strata: {
      level,
      contextTokens,
      totalTokens,
      savedTokens,
      savedRatio,
      ...(inputBudget === undefined ? {} : { inputBudget }),
    },
  }
}

/** Options of {@link writeMemoryParts}. */
export interface WriteMemoryPartsOptions {
  /** The `createUIMessageStream` writer. */
  writer: UIMessageStreamWriter<StrataUIMessage> | UIMessageStreamWriter<UIMessage>
  memory: Memory
  /**
   * Only this thread's events are written: the chat's id (any non-empty string, mapped as
   * `openChatRequest` maps it), which the parts' `threadId` carries.
   */
  threadId: string
  /**
   * Write a `data-memory-transition` part when a scope of the thread closes (null user text: none).
   * @default true
   */
  transitions?: boolean
  /**
   * Write the statistics of each context built for the thread as message metadata.
   * @default true
   */
  stats?: boolean
  /**
   * Write a `data-memory-compaction` part when a compaction archives old turns of the thread while
   * the response streams (a budget compaction runs before the next model call of a tool loop, or
   * after the answer's last step: await `thread.settled()` before the stream's `finish` so it is
   * written into the answer, where `loadUIMessages` places it). Waterfall compactions are not written.
   * @default true
   */
  compactions?: boolean
}

/**
 * Writes the thread's transitions (`data-memory-transition` parts with the user-facing text), its
 * compactions (`data-memory-compaction` parts) and context statistics (message metadata under `strata`) into a `createUIMessageStream` writer while
 * the response streams. Returns a function that stops listening; call it when the stream ends.
 * Nothing of a summarizer's own model call reaches the writer: only these parts are written.
 *
 * @example
 * const stream = createUIMessageStream<StrataUIMessage>({
 *   execute: async ({ writer }) => {
 *     const stop = writeMemoryParts({ writer, memory, threadId })
 *     const result = streamText({ model, messages })
 *     writer.merge(toUIMessageStream({ stream: result.stream }))
 *     await result.consumeStream()
 *     stop()
 *   },
 * })
 */
export function writeMemoryParts(options: WriteMemoryPartsOptions): () => void {
  const {
    writer,
    memory,
    threadId,
    transitions = true,
    stats = true,
    compactions = true,
  } = options ?? ({} as WriteMemoryPartsOptions)
  if (typeof writer?.write !== 'function') {
    invalidOptions('writeMemoryParts() needs { writer }: the writer createUIMessageStream passes to execute.')
  }
  if (typeof memory?.on !== 'function') {
    invalidOptions('writeMemoryParts() needs { memory }: the memory from createMemory().')
  }
  assertChatId(threadId)
  const target = writer as UIMessageStreamWriter<StrataUIMessage>
  // Events name the store's thread id: the chat's id is mapped (core's `toStoreThreadId`) to match them.
  const filter = chatEventFilter(threadId)
  const stops: (() => void)[] = [() => filter.stop()]
  if (transitions) {
    stops.push(
      memory.on('transition', (event) => {
        filter.forChat(event.threadId, () => {
          const chunk = memoryTransitionChunk({ ...event, threadId })
          if (chunk !== undefined) target.write(chunk)
        })
      }),
    )
  }
  if (stats) {
    stops.push(
      memory.on('context', (event) => {
        filter.forChat(event.threadId, () => {
          target.write({ type: 'message-metadata', messageMetadata: contextStatsMetadata(event.stats) })
        })
      }),
    )
  }
  if (compactions) {
    stops.push(
      memory.on('compaction-end', (event) => {
        if (event.itemsArchived === 0) return
        filter.forChat(event.threadId, () => {
          // Built from the stored summary, as `loadUIMessages` builds it: the same id, the same data.
          const chunk = memoryCompactionChunk(threadId, event.summary)
          if (chunk !== undefined) target.write(chunk)
        })
      }),
    )
  }
  return () => {
    for (const stop of stops) stop()
  }
}
