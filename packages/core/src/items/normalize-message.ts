import { StrataError } from '../errors'
import type { JsonObject } from './json'
import { MESSAGE_ROLES, type MessagePart, type MessageRole } from './message-part'
import { assertSerializable } from './serializable'

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

function checkString(value: unknown, where: string, field: string): asserts value is string {
  if (typeof value !== 'string') invalid(`${where}.${field} must be a string.`, { field })
}

function checkPart(part: unknown, where: string, role: MessageRole): MessagePart {
  if (!isObject(part)) invalid(`${where} must be an object with a 'type'.`, { part })
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
        invalid(`${where}: tool calls belong in assistant messages, not ${role}.`, { role })
      checkString(part.toolCallId, where, 'toolCallId')
      checkString(part.toolName, where, 'toolName')
      if (!('input' in part)) invalid(`${where} needs an 'input' (use {} for none).`, {})
      if (part.providerExecuted !== undefined && typeof part.providerExecuted !== 'boolean') {
        invalid(`${where}.providerExecuted must be a boolean.`, {})
      }
      break
    case 'tool-result':
      if (role !== 'tool' && role !== 'assistant') {
        invalid(`${where}: tool results belong in tool messages, not ${role}.`, { role })
      }
      checkString(part.toolCallId, where, 'toolCallId')
      checkString(part.toolName, where, 'toolName')
      if (!('output' in part)) invalid(`${where} needs an 'output'.`, {})
      if (part.isError !== undefined && typeof part.isError !== 'boolean') {
        invalid(`${where}.isError must be a boolean.`, {})
      }
      break
    default:
      invalid(
        `${where} has unknown type ${JSON.stringify(part.type)}: use text, reasoning, file, tool-call or tool-result.`,
        { type: part.type },
      )
  }
  return part as unknown as MessagePart
}

/**
 * Validates a message and returns it with content as parts. Throws `STRATA_INVALID_MESSAGE` for a
 * malformed message and `STRATA_NOT_SERIALIZABLE` for content that cannot be stored as JSON.
 */
export function normalizeMessage(input: unknown, index = 0): NormalizedMessage {
  const where = `message[${index}]`
  if (!isObject(input)) invalid(`${where} must be an object like { role: 'user', content: 'Hello' }.`, {})
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
    content = input.content.map((part, partIndex) => checkPart(part, `${where}.content[${partIndex}]`, role))
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
  assertSerializable(content, `${where}.content`)
  if (input.meta !== undefined) assertSerializable(input.meta, `${where}.meta`)
  const normalized: NormalizedMessage = { role, content }
  if (input.id !== undefined) normalized.id = input.id as string
  if (input.ts !== undefined) normalized.ts = input.ts as number
  if (input.meta !== undefined) normalized.meta = input.meta as JsonObject
  return normalized
}
