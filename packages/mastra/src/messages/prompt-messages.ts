import type { ProcessLLMRequestArgs } from '@mastra/core/processors'
import {
  type ContextMessage,
  type JsonObject,
  type JsonValue,
  type MessageInput,
  type MessagePart,
  plainJson,
} from '@strata-memory/core'
import {
  adapterPartMeta,
  fromToolOutput,
  partsText,
  providerToolCall,
  toolCallPart,
  toolOutputKind,
  toolResultPart,
  toToolOutput,
} from '@strata-memory/core/adapter-kit'

/** The prompt Mastra sends a model (the AI SDK's `LanguageModelV2Prompt`). */
export type MastraPrompt = ProcessLLMRequestArgs['prompt']
/** One message of a {@link MastraPrompt}. */
export type MastraPromptMessage = MastraPrompt[number]
export type ConversationMessage = Exclude<MastraPromptMessage, { role: 'system' }>
type PromptPart = ConversationMessage['content'][number]
type ToolOutput = Extract<PromptPart, { type: 'tool-result' }>['output']

/** Where the adapter keeps, in a part's `meta`, what core's parts have no field for. */
const MASTRA = 'mastra'

/**
 * What `meta.mastra` of a stored part keeps: the provider options, the tool output's kind when its
 * value does not tell it, and how a file's data was given.
 */
export interface MastraPartMeta {
  providerOptions?: JsonObject
  output?: 'json' | 'error-json' | 'content'
  fileData?: 'bytes' | 'url'
}

/** The adapter's part metadata under `meta.mastra` (the adapter kit's mapping: plain JSON). */
const partMeta = adapterPartMeta<MastraPartMeta>(MASTRA)
const metaOf = partMeta.write
const readMeta = partMeta.read

/**
 * A part's provider options, without Mastra's own bookkeeping (`providerOptions.mastra`, the part's
 * creation time), which Mastra adds to every part it converts and which no provider reads.
 */
const providerOptionsOf = (part: { providerOptions?: unknown }): MastraPartMeta => {
  if (part.providerOptions === undefined) return {}
  const { mastra: _, ...rest } = part.providerOptions as Record<string, unknown>
  return Object.keys(rest).length === 0 ? {} : { providerOptions: plainJson(rest) as JsonObject }
}

const toBase64 = (bytes: Uint8Array) => {
  let binary = ''
  for (let index = 0; index < bytes.length; index += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(index, index + 0x8000))
  }
  return btoa(binary)
}

function outputOf(output: ToolOutput): {
  output: JsonValue
  isError?: true
  kind?: MastraPartMeta['output']
} {
  switch (output.type) {
    case 'text':
    case 'error-text':
    case 'json':
    case 'error-json':
      return fromToolOutput(output)
    default:
      return { output: plainJson(output.value ?? null) as JsonValue, kind: 'content' }
  }
}

function toCorePart(part: PromptPart): MessagePart {
  const base = providerOptionsOf(part)
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text, ...metaOf(base) }
    case 'reasoning':
      return { type: 'reasoning', text: part.text, ...metaOf(base) }
    case 'file': {
      const { data } = part
      const given: Pick<MastraPartMeta, 'fileData'> =
        data instanceof URL ? { fileData: 'url' } : data instanceof Uint8Array ? { fileData: 'bytes' } : {}
      const text = data instanceof URL ? data.href : data instanceof Uint8Array ? toBase64(data) : data
      return {
        type: 'file',
        mediaType: part.mediaType,
        data: text,
        ...(part.filename === undefined ? {} : { filename: part.filename }),
        ...metaOf({ ...base, ...given }),
      }
    }
    case 'tool-call':
      return toolCallPart(part, metaOf(base))
    case 'tool-result': {
      const mapped = outputOf(part.output)
      return toolResultPart(
        part,
        mapped,
        metaOf({ ...base, ...(mapped.kind === undefined ? {} : { output: mapped.kind }) }),
      )
    }
  }
}

/** A non-system prompt message as core's message, with what core has no field for in `meta.mastra`. */
export function fromPromptMessage(message: ConversationMessage): MessageInput {
  return { role: message.role, content: message.content.map(toCorePart) }
}

const fromBase64 = (text: string) => Uint8Array.from(atob(text), (char) => char.charCodeAt(0))

function toolOutput(part: Extract<MessagePart, { type: 'tool-result' }>): ToolOutput {
  const kind = toolOutputKind(part, readMeta(part).output)
  if (kind === 'content') return { type: 'content', value: part.output as never }
  return toToolOutput(part, kind) as ToolOutput
}

function toPromptPart(part: MessagePart): PromptPart {
  const meta = readMeta(part)
  const extra = meta.providerOptions === undefined ? {} : { providerOptions: meta.providerOptions as never }
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return { type: part.type, text: part.text, ...extra }
    case 'file':
      return {
        type: 'file',
        mediaType: part.mediaType,
        data:
          meta.fileData === 'url'
            ? new URL(part.data)
            : meta.fileData === 'bytes'
              ? fromBase64(part.data)
              : part.data,
        ...(part.filename === undefined ? {} : { filename: part.filename }),
        ...extra,
      }
    case 'tool-call':
      return { ...providerToolCall(part), ...extra }
    case 'tool-result':
      return {
        type: 'tool-result',
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        output: toolOutput(part),
        ...extra,
      }
  }
}

/**
 * A thread's context (`thread.context().messages`) as the prompt Mastra sends: memory slots become
 * system messages, transitions and summaries arrive as user text (core renders them so), and what
 * `meta.mastra` kept is restored.
 */
export function toPrompt(messages: readonly ContextMessage[]): MastraPrompt {
  return messages.map((message): MastraPromptMessage => {
    if (message.role === 'system') return { role: 'system', content: partsText(message.content) }
    return { role: message.role, content: message.content.map(toPromptPart) } as MastraPromptMessage
  })
}
