import { invalidOptions, StrataError } from '../errors'
import type { JsonObject } from './json'
import { MESSAGE_ROLES, type MessagePart, type MessageRole } from './message-part'
import { fromModelMessage, isTypedToolOutput } from './model-message'
import { assertSerializable } from './serializable'

/**
 * The shape of the messages given to `append`: `core` (core's own messages, tool outputs any JSON) or
 * `ai-sdk` (the AI SDK's `ModelMessage`, typed tool outputs, mapped by {@link fromModelMessage}).
 */
export type MessageFormat = 'core' | 'ai-sdk'

/** Options of {@link normalizeMessage}. */
export interface NormalizeOptions {
  /** Where the message sits in a list of several, for errors; a single message is "message". */
  index?: number
  /**
   * The messages' format. When absent, a tool output shaped exactly like the AI SDK's typed output is
   * refused as ambiguous; `core` stores such an output as the JSON it is.
   */
  format?: MessageFormat
}

/** A validated message: content normalised to parts. */
export interface NormalizedMessage {
  role: MessageRole
  content: MessagePart[]
  id?: string
  ts?: number
  meta?: JsonObject
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

function invalid(message: string, details: Record<string, unknown>): never {
  throw new StrataError({ code: 'STRATA_INVALID_MESSAGE', message, details })
}

function checkString(value: unknown, where: () => string, field: string): asserts value is string {
  if (typeof value !== 'string') invalid(`${where()}.${field} must be a string.`, { field })
}

function checkPart(
  part: unknown,
  message: string,
  partIndex: number,
  role: MessageRole,
  format: MessageFormat | undefined,
): MessagePart {
  // Built for an error only: most parts are valid.
  const where = () => `${message}.content[${partIndex}]`
  if (!isObject(part)) invalid(`${where()} must be an object with a 'type'.`, { part })
  switch (part.type) {
    case 'text':
    case 'reasoning':
      checkString(part.text, where, 'text')
      break
    case 'file':
      checkString(part.mediaType, where, 'mediaType')
      checkString(part.data, where, 'data')
      break
    case 'tool-call':
      if (role !== 'assistant')
        invalid(`${where()}: tool calls belong in assistant messages, not ${role}.`, { role })
      checkString(part.toolCallId, where, 'toolCallId')
      checkString(part.toolName, where, 'toolName')
      if (!('input' in part)) invalid(`${where()} needs an 'input' (use {} for none).`, {})
      if (part.providerExecuted !== undefined && typeof part.providerExecuted !== 'boolean') {
        invalid(`${where()}.providerExecuted must be a boolean.`, {})
      }
      break
    case 'tool-result':
      if (role !== 'tool' && role !== 'assistant') {
        invalid(`${where()}: tool results belong in tool messages, not ${role}.`, { role })
      }
      checkString(part.toolCallId, where, 'toolCallId')
      checkString(part.toolName, where, 'toolName')
      if (!('output' in part)) invalid(`${where()} needs an 'output'.`, {})
      if (format === undefined && isTypedToolOutput(part.output)) {
        invalid(
          `${where()}.output is an AI SDK typed tool output ({ type: ${JSON.stringify((part.output as { type: string }).type)}, … }): append AI SDK ModelMessages with thread.append(messages, { format: 'ai-sdk' }) (or map them with fromModelMessage), so the model sees the tool's own output; pass { format: 'core' } if this JSON is the tool's real output.`,
          { field: 'output', reason: 'ai-sdk-tool-output' },
        )
      }
      if (part.isError !== undefined && typeof part.isError !== 'boolean') {
        invalid(`${where()}.isError must be a boolean.`, {})
      }
      break
    default:
      invalid(
        `${where()} has unknown type ${JSON.stringify(part.type)}: use text, reasoning, file, tool-call or tool-result.`,
        { type: part.type },
      )
  }
  return part as unknown as MessagePart
}

/**
 * Validates a message and returns it with content as parts. Throws `STRATA_INVALID_MESSAGE` for a
 * malformed message and `STRATA_NOT_SERIALIZABLE` for content that cannot be stored as JSON.
 */
export function normalizeMessage(message: unknown, options: NormalizeOptions = {}): NormalizedMessage {
  const { index, format } = options
  const where = index === undefined ? 'message' : `message[${index}]`
  if (format !== undefined && format !== 'core' && format !== 'ai-sdk') {
    invalidOptions(`append(): format must be 'core' or 'ai-sdk' (got ${JSON.stringify(format)}).`, { format })
  }
  if (!isObject(message)) invalid(`${where} must be an object like { role: 'user', content: 'Hello' }.`, {})
  if (Array.isArray(message.parts) && message.content === undefined) {
    invalid(
      `${where} is a UIMessage (it has parts and no content), the shape useChat keeps. Convert UI messages with convertToModelMessages(messages) from 'ai', then append them with { format: 'ai-sdk' }; or let the AI SDK adapter (strataMiddleware) store them.`,
      { reason: 'ui-message' },
    )
  }
  const input =
    format === 'ai-sdk' ? (fromModelMessage(message, where) as unknown as Record<string, unknown>) : message
  const role = input.role as MessageRole
  if (!MESSAGE_ROLES.includes(role)) {
    invalid(`${where}.role ${JSON.stringify(input.role)} is invalid: use system, user, assistant or tool.`, {
      role: input.role,
    })
  }
  let content: MessagePart[]
  if (typeof input.content === 'string') {
    content = [{ type: 'text', text: input.content }]
  } else if (Array.isArray(input.content)) {
    content = input.content.map((part, partIndex) => checkPart(part, where, partIndex, role, format))
  } else {
    return invalid(`${where}.content must be a string or an array of parts.`, {})
  }
  if (role === 'tool' && content.some((part) => part.type !== 'tool-result')) {
    invalid(`${where}: a tool message may only hold tool-result parts.`, {})
  }
  if (
    input.id !== undefined &&
    (typeof input.id !== 'string' || input.id.length === 0 || input.id.length > 256)
  ) {
    invalid(`${where}.id must be a non-empty string of at most 256 characters.`, {})
  }
  if (input.ts !== undefined && (typeof input.ts !== 'number' || !Number.isFinite(input.ts))) {
    invalid(`${where}.ts must be epoch milliseconds.`, {})
  }
  if (input.meta !== undefined && !isObject(input.meta)) invalid(`${where}.meta must be a plain object.`, {})
  // Checked as the item will be stored (content and meta one level in), so depth and size are the store's.
  assertSerializable({ content, meta: input.meta }, where)
  const normalized: NormalizedMessage = { role, content }
  if (input.id !== undefined) normalized.id = input.id as string
  if (input.ts !== undefined) normalized.ts = input.ts as number
  if (input.meta !== undefined) normalized.meta = input.meta as JsonObject
  return normalized
}
