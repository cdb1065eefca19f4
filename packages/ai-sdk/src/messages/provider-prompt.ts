import type {
  LanguageModelV4FilePart,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4ToolResultPart,
  SharedV4FileData,
  SharedV4ProviderOptions,
} from '@ai-sdk/provider'
import type { ContextMessage, JsonObject, MessageInput, MessagePart } from '@strata-memory/core'
import { jsonCopy, plainJson } from '@strata-memory/core'
import { partsText, providerToolCall, toolCallPart, toolResultPart } from '@strata-memory/core/adapter-kit'
import { AI_SDK, type AiSdkPartMeta, metaOf, options, readMeta } from './ai-sdk-meta'
import { fileDataOf, providerFileData } from './file-data'
import { outputOf, providerOutput } from './tool-output'

export type { AiSdkPartMeta } from './ai-sdk-meta'
export { fromResponseContent, type ResponseMeta } from './response-content'

type ProviderPart = Exclude<LanguageModelV4Message, { role: 'system' }>['content'][number]

/** One provider part as core's part, with what core has no field for in `meta.aiSdk`. */
function toCorePart(part: ProviderPart): MessagePart | undefined {
  // Most parts carry no provider options: nothing to keep in meta.
  if (part.providerOptions === undefined) {
    if (part.type === 'text' || part.type === 'reasoning') return { type: part.type, text: part.text }
    if (part.type === 'tool-call') return toolCallPart(part, {})
  }
  const base = options(part.providerOptions)
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text, ...metaOf(base) }
    case 'reasoning':
      return { type: 'reasoning', text: part.text, ...metaOf(base) }
    case 'file':
    case 'reasoning-file': {
      const { data, meta } = fileDataOf(part.data)
      const filename = part.type === 'file' && part.filename !== undefined ? { filename: part.filename } : {}
      const kind: AiSdkPartMeta = part.type === 'reasoning-file' ? { part: 'reasoning-file' } : {}
      return {
        type: 'file',
        mediaType: part.mediaType,
        data,
        ...filename,
        ...metaOf({ ...base, ...meta, ...kind }),
      }
    }
    case 'custom':
      return { type: 'text', text: '', ...metaOf({ ...base, part: 'custom', custom: { kind: part.kind } }) }
    case 'tool-call':
      return toolCallPart(part, metaOf(base))
    case 'tool-result': {
      const mapped = outputOf(part.output)
      return toolResultPart(part, mapped, metaOf({ ...base, ...mapped.meta }))
    }
    case 'tool-approval-response':
      // Approvals steer the SDK's tool execution; core has no part for them (see README).
      return undefined
  }
}

/** The call-level system messages and the conversation of a provider prompt, as core messages. */
export interface SplitPrompt {
  /** System messages, unchanged: they are sent with every call and never stored. */
  system: LanguageModelV4Message[]
  /** The other messages as core messages, lossless (see {@link AiSdkPartMeta}). */
  messages: CoreMessage[]
}

/** A core message whose content is parts. */
export type CoreMessage = MessageInput & { content: MessagePart[] }

/** A non-system provider message as a core message, lossless (see {@link AiSdkPartMeta}). */
export function fromProviderMessage(
  message: Exclude<LanguageModelV4Message, { role: 'system' }>,
): CoreMessage {
  const content: MessagePart[] = []
  for (const part of message.content) {
    const mapped = toCorePart(part)
    if (mapped !== undefined) content.push(mapped)
  }
  if (message.providerOptions !== undefined && content[0] !== undefined) {
    const first = content[0]
    const meta = {
      ...readMeta(first),
      messageProviderOptions: plainJson(message.providerOptions) as JsonObject,
    }
    content[0] = { ...first, meta: { ...first.meta, [AI_SDK]: meta as JsonObject } } as MessagePart
  }
  return {
    role: message.role,
    content,
    ...(message.providerOptions === undefined
      ? {}
      : { meta: { [AI_SDK]: { providerOptions: plainJson(message.providerOptions) as JsonObject } } }),
  }
}

/** Splits a provider prompt into call-level system messages and core messages. */
export function fromProviderPrompt(prompt: LanguageModelV4Prompt): SplitPrompt {
  const system: LanguageModelV4Message[] = []
  const messages: CoreMessage[] = []
  for (const message of prompt) {
    if (message.role === 'system') system.push(message)
    else messages.push(fromProviderMessage(message))
  }
  return { system, messages }
}

/**
 * `value` with a copy of the provider options, when there are any: the context's parts are frozen, and
 * the options a middleware after this one may change are its own. Set last, as the parts always had it.
 */
function withOptions<T extends object>(value: T, providerOptions: JsonObject | undefined): T {
  if (providerOptions !== undefined)
    (value as { providerOptions?: SharedV4ProviderOptions }).providerOptions = jsonCopy(
      providerOptions,
    ) as SharedV4ProviderOptions
  return value
}

function toProviderPart(part: MessagePart): ProviderPart {
  const meta = readMeta(part)
  const providerOptions = meta.providerOptions
  switch (part.type) {
    case 'text':
      if (meta.part === 'custom') {
        return withOptions(
          { type: 'custom', kind: String(meta.custom?.kind) as `${string}.${string}` },
          providerOptions,
        )
      }
      return withOptions({ type: 'text', text: part.text }, providerOptions)
    case 'reasoning':
      return withOptions({ type: 'reasoning', text: part.text }, providerOptions)
    case 'file': {
      const data = providerFileData(part, meta)
      if (meta.part === 'reasoning-file') {
        return withOptions(
          {
            type: 'reasoning-file',
            mediaType: part.mediaType,
            data: data as Extract<SharedV4FileData, { type: 'data' | 'url' }>,
          },
          providerOptions,
        )
      }
      const file: LanguageModelV4FilePart = withOptions(
        { type: 'file', mediaType: part.mediaType, data },
        providerOptions,
      )
      if (part.filename !== undefined) file.filename = part.filename
      return file
    }
    case 'tool-call':
      return withOptions(
        providerToolCall(part, part.providerExecuted ?? meta.providerExecuted),
        providerOptions,
      )
    case 'tool-result':
      return withOptions(
        {
          type: 'tool-result',
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          output: providerOutput(part, meta),
        } satisfies LanguageModelV4ToolResultPart,
        providerOptions,
      )
  }
}

/**
 * The provider parts of a message's parts: an array of their length, filled by index (a `for…of` over
 * core's frozen lists made an iterator result per part, and an empty array's first push reserves 16
 * slots; with a few hundred messages a call that was most of what it allocated).
 */
function toProviderParts(content: readonly MessagePart[]): ProviderPart[] {
  const parts = new Array<ProviderPart>(content.length)
  for (let index = 0; index < content.length; index++) parts[index] = toProviderPart(content[index]!)
  return parts
}

type AssistantMessage = Extract<LanguageModelV4Message, { role: 'assistant' }>

/**
 * Core messages (a thread's context) as a provider prompt. Context system messages (the memory slots)
 * become system messages; transitions and summaries arrive as user text, as core renders them.
 */
export function toProviderPrompt(messages: readonly ContextMessage[]): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Prompt = []
  for (const message of messages) prompt.push(toProviderMessage(message))
  return prompt
}

/**
 * One context message as the provider's message, built new (it holds neither the message nor its part
 * list): what `thread.context(options, map)` is given to skip the copy `context()` makes.
 */
export function toProviderMessage(message: ContextMessage): LanguageModelV4Message {
  const first = message.content[0]
  const messageOptions = first === undefined ? undefined : readMeta(first).messageProviderOptions
  return withOptions(providerMessage(message), messageOptions)
}

/** A context message as the provider's message, without the message's own provider options. */
function providerMessage(message: ContextMessage): LanguageModelV4Message {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: partsText(message.content) }
    case 'user':
      return {
        role: 'user',
        content: toProviderParts(message.content) as Extract<
          LanguageModelV4Message,
          { role: 'user' }
        >['content'],
      }
    case 'assistant':
      return { role: 'assistant', content: toProviderParts(message.content) as AssistantMessage['content'] }
    default:
      return { role: 'tool', content: toProviderParts(message.content) as LanguageModelV4ToolResultPart[] }
  }
}
