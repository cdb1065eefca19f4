import type {
  LanguageModelV4Content,
  LanguageModelV4FilePart,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4ToolResultOutput,
  LanguageModelV4ToolResultPart,
  SharedV4FileData,
  SharedV4ProviderOptions,
} from '@ai-sdk/provider'
import type {
  ContextMessage,
  FilePart,
  JsonObject,
  JsonValue,
  MessageInput,
  MessagePart,
  ToolResultPart,
} from '@strata-memory/core'

/**
 * Where the adapter keeps what core's parts have no field for, in `meta.aiSdk` of a part or an item:
 * provider options, the tool output's kind, how a file's data was given, and parts core has no type
 * for. Mapping back restores them, so a prompt survives the round trip unchanged.
 */
export interface AiSdkPartMeta {
  providerOptions?: JsonObject
  /** A tool result output's own provider options. */
  outputProviderOptions?: JsonObject
  /** The message's provider options, kept on its first part (contexts carry parts, not message metadata). */
  messageProviderOptions?: JsonObject
  /** `reasoning-file` for a reasoning file, `custom` for a provider's custom part (kept as empty text). */
  part?: 'reasoning-file' | 'custom'
  custom?: JsonObject
  /** How a file's data was given; `data` (base64 or text) when absent. */
  fileData?: 'bytes' | 'url' | 'reference' | 'text'
  originalUrl?: string
  reference?: JsonObject
  /** A tool result's output kind when it is not what `isError` and the value's type imply. */
  output?: 'text' | 'json' | 'error-text' | 'error-json' | 'execution-denied' | 'content'
  /** The reason of an `execution-denied` output. */
  reason?: string
  /**
   * Set on tool results the provider executed. (Calls carry core's own `providerExecuted`; older
   * stored calls may have it here, and it is still read.)
   */
  providerExecuted?: boolean
  dynamic?: boolean
}

const AI_SDK = 'aiSdk'

/**
 * A copy of a JSON value with `undefined` properties dropped, as `JSON.parse(JSON.stringify(value))`
 * makes it (provider options may hold them, stored JSON may not), in a quarter of the time: a call
 * maps the few dozen messages nearest the end of the prompt, each with inputs and options.
 */
function plain<T>(value: T): T {
  if (typeof value === 'number' && !Number.isFinite(value)) return null as T
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) {
    return value.map((entry) =>
      entry === undefined || typeof entry === 'function' ? null : plain(entry),
    ) as T
  }
  const prototype = Object.getPrototypeOf(value)
  // Dates, typed arrays and class instances: what JSON makes of them.
  if (prototype !== Object.prototype && prototype !== null) return JSON.parse(JSON.stringify(value)) as T
  const copy: Record<string, unknown> = {}
  for (const [key, entry] of Object.entries(value)) {
    if (entry === undefined || typeof entry === 'function') continue
    // An own `__proto__` key (a model's JSON may hold one) stays a key: assigning it sets the prototype.
    if (key === '__proto__') {
      Object.defineProperty(copy, key, {
        value: plain(entry),
        writable: true,
        enumerable: true,
        configurable: true,
      })
    } else {
      copy[key] = plain(entry)
    }
  }
  return copy as T
}

/** Core's own flag for calls the provider runs: core keeps their results in the assistant message. */
const providerExecuted = (flag: boolean | undefined): { providerExecuted?: boolean } =>
  flag === undefined ? {} : { providerExecuted: flag }

const metaOf = (meta: AiSdkPartMeta): { meta?: JsonObject } => {
  const fields = plain(meta) as JsonObject
  return Object.keys(fields).length === 0 ? {} : { meta: { [AI_SDK]: fields } }
}

const readMeta = (part: { meta?: JsonObject }): AiSdkPartMeta =>
  (part.meta?.[AI_SDK] as AiSdkPartMeta | undefined) ?? {}

const options = (value: SharedV4ProviderOptions | undefined): { providerOptions?: JsonObject } =>
  value === undefined ? {} : { providerOptions: value as JsonObject }

const toBase64 = (bytes: Uint8Array) => {
  let binary = ''
  for (let index = 0; index < bytes.length; index += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(index, index + 0x8000))
  }
  return btoa(binary)
}

const fromBase64 = (text: string) => Uint8Array.from(atob(text), (char) => char.charCodeAt(0))

/** A provider file's data as core's string, and how it was given. */
function fileDataOf(data: SharedV4FileData): { data: string; meta: AiSdkPartMeta } {
  switch (data.type) {
    case 'data':
      return typeof data.data === 'string'
        ? { data: data.data, meta: {} }
        : { data: toBase64(data.data), meta: { fileData: 'bytes' } }
    case 'url':
      return {
        data: data.url.href,
        meta: {
          fileData: 'url',
          ...(data.originalUrl === undefined ? {} : { originalUrl: data.originalUrl }),
        },
      }
    case 'reference':
      return {
        data: JSON.stringify(data.reference),
        meta: { fileData: 'reference', reference: plain(data.reference) },
      }
    case 'text':
      return { data: data.text, meta: { fileData: 'text' } }
  }
}

function providerFileData(part: FilePart, meta: AiSdkPartMeta): SharedV4FileData {
  switch (meta.fileData) {
    case 'bytes':
      return { type: 'data', data: fromBase64(part.data) }
    case 'url':
      return {
        type: 'url',
        url: new URL(part.data),
        ...(meta.originalUrl === undefined ? {} : { originalUrl: meta.originalUrl }),
      }
    case 'reference':
      return { type: 'reference', reference: (meta.reference ?? {}) as Record<string, string> }
    case 'text':
      return { type: 'text', text: part.data }
    default:
      return { type: 'data', data: part.data }
  }
}

function outputOf(output: LanguageModelV4ToolResultOutput): {
  output: JsonValue
  isError?: boolean
  meta: AiSdkPartMeta
} {
  const providerOptions = 'providerOptions' in output ? output.providerOptions : undefined
  const kind: AiSdkPartMeta =
    providerOptions === undefined ? {} : { outputProviderOptions: plain(providerOptions) as JsonObject }
  switch (output.type) {
    case 'text':
      return { output: output.value, meta: kind }
    case 'json':
      // A JSON string would read back as a text output: say which it was.
      return {
        output: plain(output.value) as JsonValue,
        meta: typeof output.value === 'string' ? { ...kind, output: 'json' } : kind,
      }
    case 'error-text':
      return { output: output.value, isError: true, meta: kind }
    case 'error-json':
      return {
        output: plain(output.value) as JsonValue,
        isError: true,
        meta: typeof output.value === 'string' ? { ...kind, output: 'error-json' } : kind,
      }
    case 'execution-denied':
      return {
        output: output.reason ?? 'The tool call was denied.',
        isError: true,
        meta: {
          ...kind,
          output: 'execution-denied',
          ...(output.reason === undefined ? {} : { reason: output.reason }),
        },
      }
    case 'content':
      return {
        output: output.value.map((entry) =>
          entry.type === 'file'
            ? (plain({ ...entry, data: fileDataOf(entry.data) }) as unknown as JsonObject)
            : (plain(entry) as JsonObject),
        ),
        meta: { ...kind, output: 'content' },
      }
  }
}

function providerOutput(part: ToolResultPart, meta: AiSdkPartMeta): LanguageModelV4ToolResultOutput {
  const providerOptions = meta.outputProviderOptions as SharedV4ProviderOptions | undefined
  const extra = providerOptions === undefined ? {} : { providerOptions }
  const kind =
    meta.output ??
    (part.isError === true
      ? typeof part.output === 'string'
        ? 'error-text'
        : 'error-json'
      : typeof part.output === 'string'
        ? 'text'
        : 'json')
  switch (kind) {
    case 'text':
    case 'error-text':
      return {
        type: kind,
        value: typeof part.output === 'string' ? part.output : JSON.stringify(part.output),
        ...extra,
      }
    case 'json':
    case 'error-json':
      return { type: kind, value: part.output, ...extra }
    case 'execution-denied':
      return {
        type: 'execution-denied',
        ...(meta.reason === undefined ? {} : { reason: meta.reason }),
        ...extra,
      }
    case 'content': {
      const entries = (Array.isArray(part.output) ? part.output : []) as JsonObject[]
      return {
        type: 'content',
        value: entries.map((entry) => {
          if (entry.type !== 'file') return entry as { type: 'text'; text: string }
          const { data, meta: fileMeta } = entry.data as unknown as { data: string; meta: AiSdkPartMeta }
          const file = { type: 'file', mediaType: String(entry.mediaType), data } as FilePart
          return { ...entry, data: providerFileData(file, fileMeta) } as unknown as {
            type: 'file'
            data: SharedV4FileData
            mediaType: string
          }
        }),
        ...extra,
      }
    }
  }
}

type ProviderPart = Exclude<LanguageModelV4Message, { role: 'system' }>['content'][number]

/** One provider part as core's part, with what core has no field for in `meta.aiSdk`. */
function toCorePart(part: ProviderPart): MessagePart | undefined {
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
      return {
        type: 'tool-call',
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        input: plain(part.input ?? {}) as JsonValue,
        ...providerExecuted(part.providerExecuted),
        ...metaOf(base),
      }
    case 'tool-result': {
      const { output, isError, meta } = outputOf(part.output)
      return {
        type: 'tool-result',
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        output,
        ...(isError === undefined ? {} : { isError }),
        ...metaOf({ ...base, ...meta }),
      }
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
    const meta = { ...readMeta(first), messageProviderOptions: plain(message.providerOptions) as JsonObject }
    content[0] = { ...first, meta: { ...first.meta, [AI_SDK]: meta as JsonObject } } as MessagePart
  }
  return {
    role: message.role,
    content,
    ...(message.providerOptions === undefined
      ? {}
      : { meta: { [AI_SDK]: { providerOptions: plain(message.providerOptions) as JsonObject } } }),
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

function toProviderPart(part: MessagePart): ProviderPart {
  const meta = readMeta(part)
  const providerOptions = meta.providerOptions as SharedV4ProviderOptions | undefined
  const extra = providerOptions === undefined ? {} : { providerOptions }
  switch (part.type) {
    case 'text':
      if (meta.part === 'custom') {
        return { type: 'custom', kind: String(meta.custom?.kind) as `${string}.${string}`, ...extra }
      }
      return { type: 'text', text: part.text, ...extra }
    case 'reasoning':
      return { type: 'reasoning', text: part.text, ...extra }
    case 'file': {
      const data = providerFileData(part, meta)
      if (meta.part === 'reasoning-file') {
        return {
          type: 'reasoning-file',
          mediaType: part.mediaType,
          data: data as Extract<SharedV4FileData, { type: 'data' | 'url' }>,
          ...extra,
        }
      }
      const file: LanguageModelV4FilePart = { type: 'file', mediaType: part.mediaType, data, ...extra }
      if (part.filename !== undefined) file.filename = part.filename
      return file
    }
    case 'tool-call':
      return {
        type: 'tool-call',
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        input: part.input,
        ...providerExecuted(part.providerExecuted ?? meta.providerExecuted),
        ...extra,
      }
    case 'tool-result':
      return {
        type: 'tool-result',
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        output: providerOutput(part, meta),
        ...extra,
      } satisfies LanguageModelV4ToolResultPart
  }
}

const textOf = (content: readonly MessagePart[]) =>
  content.map((part) => (part.type === 'text' || part.type === 'reasoning' ? part.text : '')).join('')

type AssistantMessage = Extract<LanguageModelV4Message, { role: 'assistant' }>

/**
 * Core messages (a thread's context) as a provider prompt. Context system messages (the memory slots)
 * become system messages; transitions and summaries arrive as user text, as core renders them.
 */
export function toProviderPrompt(messages: readonly ContextMessage[]): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Prompt = []
  for (const message of messages) {
    const first = message.content[0]
    const messageOptions = first === undefined ? undefined : readMeta(first).messageProviderOptions
    const extra =
      messageOptions === undefined ? {} : { providerOptions: messageOptions as SharedV4ProviderOptions }
    switch (message.role) {
      case 'system':
        prompt.push({ role: 'system', content: textOf(message.content), ...extra })
        break
      case 'user':
        prompt.push({
          role: 'user',
          content: message.content.map(toProviderPart) as unknown as Extract<
            LanguageModelV4Message,
            { role: 'user' }
          >['content'],
          ...extra,
        })
        break
      case 'assistant':
        prompt.push({
          role: 'assistant',
          content: message.content.map(toProviderPart) as AssistantMessage['content'],
          ...extra,
        })
        break
      default:
        prompt.push({
          role: 'tool',
          content: message.content.map(toProviderPart) as LanguageModelV4ToolResultPart[],
          ...extra,
        })
    }
  }
  return prompt
}

/** Metadata of a model response kept with the stored assistant message. */
export interface ResponseMeta {
  responseId?: string
  modelId?: string
  /** Sources and approval requests: part of the response, never of a prompt. */
  extras?: JsonObject[]
}

/**
 * A model response (generate result content, or the parts a stream assembled) as one assistant
 * message, in the shape the SDK re-sends it in the next step's prompt: provider metadata becomes the
 * parts' provider options, tool inputs are parsed from their JSON text.
 */
export function fromResponseContent(
  content: readonly LanguageModelV4Content[],
  response: ResponseMeta = {},
): MessageInput | undefined {
  const parts: MessagePart[] = []
  const extras: JsonObject[] = [...(response.extras ?? [])]
  for (const part of content) {
    const base = options(
      part.type === 'source' || part.type === 'tool-approval-request' ? undefined : part.providerMetadata,
    )
    switch (part.type) {
      case 'text':
      case 'reasoning':
        if (part.text.length > 0 || base.providerOptions !== undefined) {
          parts.push({ type: part.type, text: part.text, ...metaOf(base) })
        }
        break
      case 'file':
      case 'reasoning-file': {
        const { data, meta } = fileDataOf(part.data)
        const kind: AiSdkPartMeta = part.type === 'reasoning-file' ? { part: 'reasoning-file' } : {}
        parts.push({
          type: 'file',
          mediaType: part.mediaType,
          data,
          ...metaOf({ ...base, ...meta, ...kind }),
        })
        break
      }
      case 'custom':
        parts.push({
          type: 'text',
          text: '',
          ...metaOf({ ...base, part: 'custom', custom: { kind: part.kind } }),
        })
        break
      case 'tool-call': {
        let input: JsonValue
        try {
          input = JSON.parse(part.input) as JsonValue
        } catch {
          // The SDK re-sends an unparsable input as the raw text: keep it the same way.
          input = part.input
        }
        parts.push({
          type: 'tool-call',
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          input,
          ...providerExecuted(part.providerExecuted),
          ...metaOf({ ...base, ...(part.dynamic === undefined ? {} : { dynamic: part.dynamic }) }),
        })
        break
      }
      case 'tool-result':
        parts.push({
          type: 'tool-result',
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          output: plain(part.result) as JsonValue,
          ...(part.isError === undefined ? {} : { isError: part.isError }),
          ...metaOf({ ...base, output: 'json', providerExecuted: true }),
        })
        break
      case 'source':
      case 'tool-approval-request':
        extras.push(plain(part) as JsonObject)
        break
    }
  }
  if (parts.length === 0) return undefined
  const aiSdk: JsonObject = {}
  if (response.responseId !== undefined) aiSdk.responseId = response.responseId
  if (response.modelId !== undefined) aiSdk.modelId = response.modelId
  if (extras.length > 0) aiSdk.extras = extras
  return {
    role: 'assistant',
    content: parts,
    ...(Object.keys(aiSdk).length === 0 ? {} : { meta: { [AI_SDK]: aiSdk } }),
  }
}
