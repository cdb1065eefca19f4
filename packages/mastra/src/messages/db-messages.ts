import type { MastraDBMessage } from '@mastra/core/agent/message-list'
import type { Item, JsonObject, MessageItem, TransitionItem } from '@strata-memory/core'

type DBPart = MastraDBMessage['content']['parts'][number]

/** An object that is not an array: a JSON object, once parsed. */
export const isPlainObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** What `content.metadata.strata` of a message read from Strata carries. */
export interface StrataMessageMetadata {
  /** The level the message was stored at. */
  level: string
  /** Its seq in the thread's log. */
  seq: number
  turnId: string
  /** Set on a scope's opening message: the scope's title. */
  scope?: string
}

/** The data of a `data-memory-transition` part: a scope closed. */
export interface MemoryTransitionData {
  /** What people see (the transition's user-facing text), or null when hidden. */
  text: string | null
  /** What the model sees in place of the closed scope. */
  agentFacingMessage: string
  fromLevel: string
  level: string
  reason: string
  fromSeq: number
  toSeq: number
}

/** Who a thread's messages belong to, on Mastra's side. */
export interface MessageOwner {
  threadId: string
  resourceId: string
}

/** A message's `content.metadata`: what it was saved with (see `savedMeta`), then Strata's own. */
const metadataOf = (item: Item, saved: JsonObject | undefined, scope?: string): Record<string, unknown> => ({
  ...(isPlainObject(saved?.metadata) ? saved.metadata : {}),
  strata: {
    level: item.level,
    seq: item.seq,
    turnId: item.turnId,
    ...(scope === undefined ? {} : { scope }),
  } satisfies StrataMessageMetadata,
})

function partsOf(item: MessageItem): DBPart[] {
  const parts: DBPart[] = []
  for (const part of item.content) {
    switch (part.type) {
      case 'text':
        parts.push({ type: 'text', text: part.text })
        break
      case 'reasoning':
        parts.push({ type: 'reasoning', reasoning: '', details: [{ type: 'text', text: part.text }] })
        break
      case 'file':
        parts.push({ type: 'file', mimeType: part.mediaType, data: part.data })
        break
      case 'tool-call':
        parts.push({
          type: 'tool-invocation',
          toolInvocation: {
            state: 'call',
            toolCallId: part.toolCallId,
            toolName: part.toolName,
            args: part.input,
          },
          ...(part.providerExecuted === undefined ? {} : { providerExecuted: part.providerExecuted }),
        })
        break
      case 'tool-result':
        parts.push({
          type: 'tool-invocation',
          toolInvocation: {
            state: 'result',
            toolCallId: part.toolCallId,
            toolName: part.toolName,
            args: {},
            result: part.output,
            ...(part.isError === true ? { isError: true } : {}),
          },
        })
        break
    }
  }
  return parts
}

/** A transition item as the data of a `data-memory-transition` part. */
export const memoryTransitionData = (item: TransitionItem): MemoryTransitionData => ({
  text: item.userFacingMessage,
  agentFacingMessage: item.agentFacingMessage,
  fromLevel: item.fromLevel,
  level: item.level,
  reason: item.reason,
  fromSeq: item.range.fromSeq,
  toSeq: item.range.toSeq,
})

const transitionPart = (item: TransitionItem): DBPart =>
  ({ type: 'data-memory-transition', data: memoryTransitionData(item) }) as unknown as DBPart

/**
 * A thread's log as Mastra's stored messages, as Mastra itself stores them: a tool result joins its
 * call's `tool-invocation` part in the assistant message (state `result`); a transition is an
 * assistant message with one `data-memory-transition` part (UIs show it; no prompt is built from
 * these messages). Summaries and facts are memory, not messages: they are left out. Every message
 * carries its level, seq and turn in `content.metadata.strata`.
 */
export function toDBMessages(items: readonly Item[], owner: MessageOwner): MastraDBMessage[] {
  const messages: MastraDBMessage[] = []
  /** The open tool-invocation parts by call id, so a result finds its call. */
  const calls = new Map<string, DBPart>()
  const message = (item: Item, role: 'user' | 'assistant', parts: DBPart[], scope?: string) => {
    // A message saved by saveMessages keeps its id and createdAt (see `savedMeta`).
    const saved = isPlainObject(item.meta?.mastra) ? item.meta.mastra : undefined
    const { id, createdAt } = saved ?? {}
    messages.push({
      id: typeof id === 'string' ? id : item.id,
      role,
      createdAt: new Date(typeof createdAt === 'number' ? createdAt : item.ts),
      threadId: owner.threadId,
      resourceId: owner.resourceId,
      content: { format: 2, parts, metadata: metadataOf(item, saved, scope) },
    })
  }
  for (const item of items) {
    if (item.type === 'transition') {
      message(item, 'assistant', [transitionPart(item)])
      continue
    }
    if (item.type !== 'message' || item.role === 'system') continue
    const parts = partsOf(item)
    if (item.role === 'tool') {
      const orphans: DBPart[] = []
      for (const part of parts) {
        if (part.type !== 'tool-invocation') continue
        const call = calls.get(part.toolInvocation.toolCallId)
        if (call?.type === 'tool-invocation') {
          call.toolInvocation = {
            ...call.toolInvocation,
            ...part.toolInvocation,
            args: call.toolInvocation.args,
          }
        } else orphans.push(part)
      }
      if (orphans.length > 0) message(item, 'assistant', orphans)
      continue
    }
    for (const part of parts) {
      if (part.type === 'tool-invocation') calls.set(part.toolInvocation.toolCallId, part)
    }
    message(item, item.role, parts, item.scope?.title)
  }
  return messages
}
