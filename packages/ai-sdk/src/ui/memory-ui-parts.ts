import {
  assertThreadId,
  type ContextStats,
  invalidOptions,
  type Memory,
  type TransitionEvent,
} from '@strata-memory/core'
import type { UIMessage, UIMessageStreamWriter } from 'ai'

/** The data of a `data-memory-transition` part: a scope closed, in words for people. */
export interface MemoryTransitionData {
  threadId: string
  /** The level of the closed scope. */
  fromLevel: string
  /** The level the thread returned to. */
  level: string
  /** Why the scope ended (`task-complete`, `cancelled`, `token-budget`, …). */
  reason: string
  /** The title of the closed scope. */
  title: string
  /** The transition's user-facing text. */
  text: string
  /** The transition item's seq in the thread's log. */
  seq: number
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
 * Strata's message metadata, under `strata`: context statistics on an assistant message while it
 * streams (`writeMemoryParts`), and `failed` on a user message whose request failed after it was
 * stored (`loadUIMessages`), so a reloaded chat can offer a retry.
 */
export interface StrataMessageMetadata {
  strata?: Partial<
    Pick<ContextStats, 'level' | 'contextTokens' | 'totalTokens' | 'savedTokens' | 'savedRatio'>
  > & { failed?: StrataFailedRequest }
}

/** The data part types Strata writes, for `UIMessage`'s data generic. */
export type StrataDataTypes = {
  'memory-transition': MemoryTransitionData
}

/**
 * A `UIMessage` with Strata's parts and metadata, for `useChat<StrataUIMessage>()`; add your own
 * data types with the generics.
 *
 * @example
 * const { messages } = useChat<StrataUIMessage>()
 * messages.flatMap((message) => message.parts).filter((part) => part.type === 'data-memory-transition')
 */
export type StrataUIMessage<
  Metadata extends StrataMessageMetadata = StrataMessageMetadata,
  DataTypes extends StrataDataTypes = StrataDataTypes,
> = UIMessage<Metadata, DataTypes>

/** The `data-memory-transition` chunk of a transition event, or undefined when people are not shown it. */
export function memoryTransitionChunk(event: TransitionEvent) {
  const { transition } = event
  if (transition.userFacingMessage === null) return undefined
  const data: MemoryTransitionData = {
    threadId: event.threadId,
    fromLevel: transition.fromLevel,
    level: transition.level,
    reason: transition.reason,
    title: event.title,
    text: transition.userFacingMessage,
    seq: transition.seq,
  }
  return { type: 'data-memory-transition' as const, id: transition.id, data }
}

/** Context statistics as message metadata. */
export function contextStatsMetadata(stats: ContextStats): StrataMessageMetadata {
  const { level, contextTokens, totalTokens, savedTokens, savedRatio } = stats
  return { strata: { level, contextTokens, totalTokens, savedTokens, savedRatio } }
}

/** Options of {@link writeMemoryParts}. */
export interface WriteMemoryPartsOptions {
  /** The `createUIMessageStream` writer. */
  writer: UIMessageStreamWriter<StrataUIMessage> | UIMessageStreamWriter<UIMessage>
  memory: Memory
  /** Only this thread's events are written. */
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
}

/**
 * Writes the thread's transitions (`data-memory-transition` parts with the user-facing text) and
 * context statistics (message metadata under `strata`) into a `createUIMessageStream` writer while
 * the response streams. Returns a function that stops listening; call it when the stream ends.
 * Nothing of a summarizer's own model call reaches the writer: only these parts are written.
 *
 * @example
 * const stream = createUIMessageStream<StrataUIMessage>({
 *   execute: async ({ writer }) => {
 *     const stop = writeMemoryParts({ writer, memory, threadId })
 *     const result = streamText({ model, messages })
 *     writer.merge(result.toUIMessageStream())
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
  } = options ?? ({} as WriteMemoryPartsOptions)
  if (typeof writer?.write !== 'function') {
    invalidOptions('writeMemoryParts() needs { writer }: the writer createUIMessageStream passes to execute.')
  }
  if (typeof memory?.on !== 'function') {
    invalidOptions('writeMemoryParts() needs { memory }: the memory from createMemory().')
  }
  assertThreadId(threadId)
  const target = writer as UIMessageStreamWriter<StrataUIMessage>
  const stops: (() => void)[] = []
  if (transitions) {
    stops.push(
      memory.on('transition', (event) => {
        if (event.threadId !== threadId) return
        const chunk = memoryTransitionChunk(event)
        if (chunk !== undefined) target.write(chunk)
      }),
    )
  }
  if (stats) {
    stops.push(
      memory.on('context', (event) => {
        if (event.threadId !== threadId) return
        target.write({ type: 'message-metadata', messageMetadata: contextStatsMetadata(event.stats) })
      }),
    )
  }
  return () => {
    for (const stop of stops) stop()
  }
}
