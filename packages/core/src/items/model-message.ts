import { StrataError } from '../errors'
import type { JsonObject, JsonValue } from './json'
import type { MessageInput } from './message-input'
import type { MessagePart } from './message-part'

/**
 * The tags of the AI SDK's typed tool output (`ToolResultOutput` of a `ModelMessage`), and the keys
 * each may carry. Core's own tool output is any JSON, so an output of exactly this shape is ambiguous:
 * `append` refuses it unless the caller says which format the messages are in.
 */
const TYPED_OUTPUT_KEYS: Readonly<Record<string, readonly string[]>> = {
  text: ['value'],
  json: ['value'],
  'error-text': ['value'],
  'error-json': ['value'],
  content: ['value'],
  'execution-denied': ['reason'],
}

/** Where `meta` keeps what core's parts have no field for; the AI SDK adapter reads the same key. */
const AI_SDK = 'aiSdk'

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * True for a value shaped exactly like the AI SDK's typed tool output: `{ type, value }` with `type`
 * one of `text`, `json`, `error-text`, `error-json`, `content`, or `{ type: 'execution-denied',
 * reason? }`, optionally with `providerOptions`.
 */
export function isTypedToolOutput(output: unknown): boolean {
  if (!isObject(output) || typeof output.type !== 'string') return false
  const allowed = TYPED_OUTPUT_KEYS[output.type]
  if (allowed === undefined) return false
  const keys = Object.keys(output).filter((key) => key !== 'type' && key !== 'providerOptions')
  if (!keys.every((key) => allowed.includes(key))) return false
  return output.type === 'execution-denied' || 'value' in output
}

const withMeta = (part: Record<string, unknown>, aiSdk: JsonObject): Record<string, unknown> => {
  const { providerOptions, ...rest } = part
  const kept: JsonObject = { ...aiSdk }
  if (providerOptions !== undefined) kept.providerOptions = providerOptions as JsonObject
  if (Object.keys(kept).length === 0) return rest
  const meta = isObject(rest.meta) ? rest.meta : {}
  return { ...rest, meta: { ...meta, [AI_SDK]: kept } }
}

function toolResultOf(part: Record<string, unknown>, where: string): Record<string, unknown> {
  const { output, ...rest } = part
  if (!isTypedToolOutput(output)) {
    throw new StrataError({
      code: 'STRATA_INVALID_MESSAGE',
      message: `${where}.output is not an AI SDK tool output ({ type: 'text' | 'json' | 'error-text' | 'error-json' | 'content', value } or { type: 'execution-denied' }). Use format 'core' for core's plain JSON outputs.`,
      details: { field: 'output', reason: 'not-ai-sdk-output' },
    })
  }
  const typed = output as { type: string; value?: JsonValue; reason?: string; providerOptions?: JsonObject }
  const kind: JsonObject =
    typed.providerOptions === undefined ? {} : { outputProviderOptions: typed.providerOptions }
  const mapped = (value: JsonValue | undefined, isError: boolean, aiSdk: JsonObject) =>
    withMeta({ ...rest, output: value ?? null, ...(isError ? { isError: true } : {}) }, aiSdk)
  switch (typed.type) {
    case 'text':
      return mapped(typed.value, false, kind)
    case 'error-text':
      return mapped(typed.value, true, kind)
    // A JSON string would read back as text: the kind is kept, as the AI SDK adapter keeps it.
    case 'json':
      return mapped(typed.value, false, typeof typed.value === 'string' ? { ...kind, output: 'json' } : kind)
    case 'error-json':
      return mapped(
        typed.value,
        true,
        typeof typed.value === 'string' ? { ...kind, output: 'error-json' } : kind,
      )
    case 'content':
      return mapped(typed.value, false, { ...kind, output: 'content' })
    default:
      return mapped(typed.reason ?? 'The tool call was denied.', true, {
        ...kind,
        output: 'execution-denied',
        ...(typed.reason === undefined ? {} : { reason: typed.reason }),
      })
  }
}

function partOf(part: unknown, where: string): unknown {
  if (!isObject(part)) return part
  switch (part.type) {
    case 'tool-result':
      return toolResultOf(part, where)
    case 'image': {
      // An AI SDK image part is core's file part with an image media type.
      const { image, mediaType, ...rest } = part
      if (typeof image !== 'string') return binaryData(where)
      return withMeta({ ...rest, type: 'file', mediaType: mediaType ?? 'image/*', data: image }, {})
    }
    case 'file':
      if (typeof part.data !== 'string') return binaryData(where)
      return withMeta(part, {})
    case 'text':
    case 'reasoning':
    case 'tool-call':
      return withMeta(part, {})
    default:
      return part
  }
}

const binaryData = (where: string): never => {
  throw new StrataError({
    code: 'STRATA_INVALID_MESSAGE',
    message: `${where} holds binary data (a Uint8Array or a URL object). Give it as a base64 string or a URL string, or let the AI SDK adapter (strataMiddleware) store it.`,
    details: { reason: 'binary-data' },
  })
}

/**
 * Maps an AI SDK `ModelMessage` (what `convertToModelMessages` returns and `generateText` takes) to a
 * core message: typed tool outputs become core's plain outputs (`text` → the string, `json` → the
 * value, `error-*` → the value with `isError`), provider options and what core has no field for go to
 * the part's `meta.aiSdk`, as the AI SDK adapter keeps them, so the adapter maps them back unchanged.
 * `thread.append(messages, { format: 'ai-sdk' })` calls it for you.
 *
 * @example
 * await thread.append(fromModelMessage({ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1',
 *   toolName: 'fetch', output: { type: 'text', value: '<html>…' } }] }))
 */
export function fromModelMessage(message: unknown, where = 'message'): MessageInput {
  if (!isObject(message)) return message as unknown as MessageInput
  const parts =
    typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content
  if (!Array.isArray(parts)) return message as unknown as MessageInput
  const { providerOptions, ...rest } = message
  const content = parts.map((part, index) => partOf(part, `${where}.content[${index}]`))
  if (providerOptions !== undefined && isObject(content[0])) {
    const first = content[0] as Record<string, unknown>
    const meta = isObject(first.meta) ? first.meta : {}
    const aiSdk = isObject(meta[AI_SDK]) ? meta[AI_SDK] : {}
    content[0] = {
      ...first,
      meta: { ...meta, [AI_SDK]: { ...aiSdk, messageProviderOptions: providerOptions } },
    }
  }
  return { ...rest, content: content as MessagePart[] } as MessageInput
}
