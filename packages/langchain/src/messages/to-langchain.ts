import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages'
import type {
  ContextMessage,
  ContextMessageKind,
  JsonObject,
  MessagePart,
  ToolCallPart,
  ToolResultPart,
} from '@strata-memory/core'
import { type ContentBlock, partToBlock } from './content-blocks'
import { type LangChainMessageMeta, messageMetaOf, readPartMeta } from './langchain-meta'

/**
 * What Strata's own messages in a context are (core's `ContextMessage.kind`, never read from their
 * text): a memory slot (`[MEMORY:…]` system messages, the thread's system prompt), a scope summary, a
 * fact, a note the context adds (`[MEMORY:OMITTED]`, `[STORED RESULTS]`), a transition, or a scope's
 * opening item.
 */
export type StrataMessageKind = 'memory' | 'summary' | 'fact' | 'note' | 'transition' | 'scope'

/** What {@link toLangChainMessages} writes into `additional_kwargs` of Strata's own messages. */
export interface StrataKwargs {
  /** The kind of Strata's own message. */
  kind: StrataMessageKind
}

/** Options of {@link toLangChainMessages}. */
export interface ToLangChainOptions {
  /** The level whose view the messages are: written to `additional_kwargs.memory_level` of each message. */
  level?: string
}

const isEmptyPlaceholder = (part: MessagePart) => readPartMeta(part).block?.['~empty'] === true

function contentOf(parts: readonly MessagePart[], meta: LangChainMessageMeta | undefined) {
  const blocks: (ContentBlock | string)[] = []
  for (const part of parts) {
    if (part.type === 'tool-call' || part.type === 'tool-result' || isEmptyPlaceholder(part)) continue
    blocks.push(partToBlock(part))
  }
  if (
    meta?.content !== 'blocks' &&
    blocks.every((block) => typeof block === 'object' && block.type === 'text')
  ) {
    return blocks.map((block) => (block as { text: string }).text).join('')
  }
  return blocks.map((block) => (typeof block === 'string' ? { type: 'text', text: block } : block))
}

function kwargs(meta: LangChainMessageMeta | undefined, extra: JsonObject): Record<string, unknown> {
  return { ...structuredClone(meta?.additional_kwargs ?? {}), ...extra }
}

function common(meta: LangChainMessageMeta | undefined, extra: JsonObject) {
  const fields: Record<string, unknown> = { additional_kwargs: kwargs(meta, extra) }
  if (meta?.id !== undefined) fields.id = meta.id
  if (meta?.name !== undefined) fields.name = meta.name
  if (meta?.response_metadata !== undefined)
    fields.response_metadata = structuredClone(meta.response_metadata)
  return fields
}

function toolMessage(part: ToolResultPart, extra: JsonObject): ToolMessage {
  const meta = readPartMeta(part).message
  const output = part.output
  const content =
    typeof output === 'string'
      ? output
      : meta?.content === 'blocks' && Array.isArray(output)
        ? (structuredClone(output) as ContentBlock[])
        : JSON.stringify(output)
  const fields: Record<string, unknown> = { ...common(meta, extra), content, tool_call_id: part.toolCallId }
  if (meta?.noName !== true) fields.name = meta?.name ?? part.toolName
  const status = meta?.status ?? (part.isError === true ? 'error' : undefined)
  if (status !== undefined) fields.status = status
  if (meta?.artifact !== undefined) fields.artifact = structuredClone(meta.artifact)
  if (meta?.metadata !== undefined) fields.metadata = structuredClone(meta.metadata)
  return new ToolMessage(fields as unknown as ConstructorParameters<typeof ToolMessage>[0] & object)
}

function aiMessage(parts: readonly MessagePart[], meta: LangChainMessageMeta | undefined, extra: JsonObject) {
  const calls = parts.filter((part): part is ToolCallPart => part.type === 'tool-call')
  const fields: Record<string, unknown> = {
    ...common(meta, extra),
    content: contentOf(parts, meta),
    tool_calls: calls.map((call) => ({
      ...(readPartMeta(call).untyped === true ? {} : { type: 'tool_call' }),
      id: call.toolCallId,
      name: call.toolName,
      args: structuredClone(call.input),
    })),
  }
  if (meta?.invalid_tool_calls !== undefined)
    fields.invalid_tool_calls = structuredClone(meta.invalid_tool_calls)
  if (meta?.usage_metadata !== undefined) fields.usage_metadata = structuredClone(meta.usage_metadata)
  return new AIMessage(fields as ConstructorParameters<typeof AIMessage>[0])
}

const KINDS: Record<ContextMessageKind, StrataMessageKind> = {
  system: 'memory',
  memory: 'memory',
  summary: 'summary',
  fact: 'fact',
  transition: 'transition',
  scope: 'scope',
  note: 'note',
}

/**
 * What Strata's own message is, from what core says it rendered it from (a context message's `kind`,
 * a stored scope opening's `scope`); undefined for the conversation's own messages, whatever their text.
 */
function kindOf(message: ContextMessage & { scope?: unknown }): StrataMessageKind | undefined {
  if (message.kind !== undefined) return KINDS[message.kind]
  return message.scope !== undefined && message.scope !== null ? 'scope' : undefined
}

/**
 * One core message (a context message, or a stored item's role and parts) as LangChain messages: one
 * message, or one `ToolMessage` per tool result (a context answers all of an assistant message's calls
 * in one tool message). Messages mapped from LangChain come back as they were; Strata's own
 * (memory slots, summaries, transitions, notes, scope openings) carry `additional_kwargs.strata: { kind }`.
 */
export function toLangChainMessage(message: ContextMessage, extra: JsonObject = {}): BaseMessage[] {
  if (message.role === 'tool') {
    return message.content
      .filter((part): part is ToolResultPart => part.type === 'tool-result')
      .map((part) => toolMessage(part, extra))
  }
  const meta = messageMetaOf(message.content)
  const kind = kindOf(message)
  const own: JsonObject = kind === undefined ? {} : { strata: { kind } }
  const fields: JsonObject = { ...extra, ...own }
  if (message.role === 'assistant') return [aiMessage(message.content, meta, fields)]
  const init = { ...common(meta, fields), content: contentOf(message.content, meta) }
  const Type = message.role === 'system' ? SystemMessage : HumanMessage
  return [new Type(init as ConstructorParameters<typeof HumanMessage>[0])]
}

/**
 * A thread's context (or any core messages) as LangChain messages; see {@link toLangChainMessage}.
 * With `level`, every message carries it in `additional_kwargs.memory_level`, and a message whose
 * citations name offloaded content carries their ids in `additional_kwargs.memory_ids` (never in
 * `name`, which providers receive).
 */
export function toLangChainMessages(
  messages: readonly ContextMessage[],
  { level }: ToLangChainOptions = {},
): BaseMessage[] {
  const extra: JsonObject = level === undefined ? {} : { memory_level: level }
  const mapped = messages.flatMap((message) => toLangChainMessage(message, extra))
  for (const message of mapped) {
    const ids = memoryIdsOf(message)
    if (ids.length > 0) message.additional_kwargs.memory_ids = ids
  }
  return mapped
}

const MEMORY_ID = /Memory id: (mem_[A-Za-z0-9_-]+)/g

/** The content-channel memory ids a message's citations name, in order, each once. */
function memoryIdsOf(message: BaseMessage): string[] {
  const text = message.text
  if (!text.includes('Memory id: mem_')) return []
  return [...new Set([...text.matchAll(MEMORY_ID)].map((match) => match[1]!))]
}
