import type { BaseMessage } from '@langchain/core/messages'
import {
  type JsonObject,
  type JsonValue,
  type MessageInput,
  type MessagePart,
  type MessageRole,
  plainJson,
  StrataError,
} from '@strata-memory/core'
import { blockToPart } from './content-blocks'
import { type LangChainMessageMeta, type LangChainMessageType, withMeta } from './langchain-meta'

/** A core message whose content is parts. */
export type CoreMessage = MessageInput & { content: MessagePart[] }

/** The keys this adapter writes into `additional_kwargs` of the messages it hands out; dropped on the way in. */
export const OWN_KWARGS = ['memory_level', 'memory_id', 'memory_ids', 'strata'] as const

const ROLES: Record<LangChainMessageType, MessageRole> = {
  human: 'user',
  ai: 'assistant',
  system: 'system',
  tool: 'tool',
}

const GENERIC_ROLES: Record<string, LangChainMessageType> = {
  user: 'human',
  human: 'human',
  assistant: 'ai',
  ai: 'ai',
  system: 'system',
  tool: 'tool',
}

type AnyMessage = BaseMessage & {
  tool_calls?: { id?: string; name: string; args: unknown; type?: string }[]
  invalid_tool_calls?: unknown[]
  usage_metadata?: unknown
  tool_call_id?: string
  status?: 'success' | 'error'
  artifact?: unknown
  metadata?: Record<string, unknown>
  role?: string
}

/** The LangChain type of a message (`human`, `ai`, `system`, `tool`), chunks included. */
export function messageType(message: BaseMessage): LangChainMessageType {
  const raw = (message as { type?: unknown }).type ?? message.getType?.()
  const type = String(raw)
    .replace(/Chunk$/, '')
    .replace(/^AIMessage$/, 'ai')
  if (type in ROLES) return type as LangChainMessageType
  if (type === 'generic') {
    const role = GENERIC_ROLES[String((message as AnyMessage).role)]
    if (role !== undefined) return role
  }
  throw new StrataError({
    code: 'STRATA_INVALID_MESSAGE',
    message: `A LangChain message of type '${type}' cannot be stored: Strata stores human, ai, system and tool messages.`,
    details: { type },
  })
}

function kwargsOf(message: BaseMessage): JsonObject | undefined {
  const kwargs = message.additional_kwargs
  if (kwargs === undefined || kwargs === null) return undefined
  const copy = plainJson(kwargs) as JsonObject
  for (const key of OWN_KWARGS) delete copy[key]
  return copy
}

const nonEmpty = (value: JsonObject | undefined) =>
  value !== undefined && Object.keys(value).length > 0 ? value : undefined

/** The message fields core has no field for; empty records left out (LangChain fills them with `{}`). */
function messageMeta(message: AnyMessage, type: LangChainMessageType): LangChainMessageMeta {
  const meta: LangChainMessageMeta = { type }
  if (typeof message.id === 'string') meta.id = message.id
  if (typeof message.name === 'string') meta.name = message.name
  const kwargs = nonEmpty(kwargsOf(message))
  if (kwargs !== undefined) meta.additional_kwargs = kwargs
  const response = nonEmpty(plainJson(message.response_metadata) as JsonObject | undefined)
  if (response !== undefined) meta.response_metadata = response
  if (Array.isArray(message.content)) meta.content = 'blocks'
  if (type === 'ai') {
    if (message.usage_metadata !== undefined)
      meta.usage_metadata = plainJson(message.usage_metadata) as JsonObject
    if (Array.isArray(message.invalid_tool_calls) && message.invalid_tool_calls.length > 0) {
      meta.invalid_tool_calls = plainJson(message.invalid_tool_calls) as JsonValue[]
    }
  }
  if (type === 'tool') {
    if (message.status !== undefined) meta.status = message.status
    if (message.artifact !== undefined) meta.artifact = plainJson(message.artifact) as JsonValue
    const metadata = nonEmpty(plainJson(message.metadata) as JsonObject | undefined)
    if (metadata !== undefined) meta.metadata = metadata
  }
  return meta
}

function toolCallParts(message: AnyMessage): MessagePart[] {
  const parts: MessagePart[] = []
  for (const call of message.tool_calls ?? []) {
    if (typeof call.id !== 'string' || call.id.length === 0) {
      throw new StrataError({
        code: 'STRATA_INVALID_MESSAGE',
        message: `The tool call '${call.name}' has no id: Strata pairs a call with its result by id. Give every tool call an id (LangChain's chat models do).`,
        details: { toolName: call.name },
      })
    }
    parts.push({
      type: 'tool-call',
      toolCallId: call.id,
      toolName: call.name,
      input: plainJson(call.args ?? {}) as JsonValue,
      ...withMeta(call.type === undefined ? { untyped: true } : {}),
    })
  }
  return parts
}

/**
 * A LangChain message (`HumanMessage`, `AIMessage`, `ToolMessage`, `SystemMessage`, their chunks, a
 * `ChatMessage` with one of those roles) as core's message, lossless: ids, `name`,
 * `additional_kwargs`, `response_metadata`, usage, invalid tool calls and a tool message's status,
 * artifact and metadata are kept in `meta.langchain` of its first part; content blocks become text,
 * reasoning and file parts (other blocks are kept whole); tool calls become tool-call parts. The keys
 * this adapter adds to `additional_kwargs` (`memory_level`, `memory_id`, `memory_ids`, `strata`) are dropped.
 */
export function fromLangChainMessage(message: BaseMessage): CoreMessage {
  const type = messageType(message)
  const lc = message as AnyMessage
  const meta = messageMeta(lc, type)
  if (type === 'tool') {
    const output = (typeof lc.content === 'string' ? lc.content : plainJson(lc.content)) as JsonValue
    const name = typeof lc.name === 'string' && lc.name.length > 0 ? lc.name : undefined
    return {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: String(lc.tool_call_id),
          toolName: name ?? 'unknown',
          output,
          ...(lc.status === 'error' ? { isError: true } : {}),
          ...withMeta({ message: name === undefined ? { ...meta, noName: true } : meta }),
        },
      ],
    }
  }
  const content: MessagePart[] = []
  if (typeof lc.content === 'string') content.push({ type: 'text', text: lc.content })
  else for (const block of lc.content) content.push(blockToPart(block))
  if (type === 'ai') content.push(...toolCallParts(lc))
  // The message's fields ride on its first part; a message with no part gets an empty text part.
  if (content.length === 0)
    content.push({ type: 'text', text: '', ...withMeta({ block: { '~empty': true } }) })
  const first = content[0]!
  const firstMeta = (first.meta?.langchain as JsonObject | undefined) ?? {}
  content[0] = {
    ...first,
    meta: { ...first.meta, langchain: { ...firstMeta, message: meta as unknown as JsonObject } },
  } as MessagePart
  return { role: ROLES[type], content }
}
