import {
  type JsonObject,
  type JsonValue,
  type MessagePart,
  plainJson,
  type ToolCallPart,
  type ToolResultPart,
} from '../items'

/** Where an adapter keeps, in a part's `meta`, what core's parts have no field for: under one key of its own. */
export interface AdapterPartMeta<M extends object> {
  /** `{ meta: { [key]: fields } }` of the fields that are set, as JSON; `{}` when none is. */
  write(meta: M): { meta?: JsonObject }
  /** The fields a part keeps under the key (one shared empty object when it keeps none). */
  read(part: { meta?: JsonObject | undefined }): M
}

/**
 * The part metadata of one adapter, under `meta[key]` (`aiSdk`, `mastra`): what it writes is plain JSON
 * (undefined fields dropped), so a mapped prompt is stored as it is and reads back the same.
 *
 * @example
 * const meta = adapterPartMeta<{ providerOptions?: JsonObject }>('myFramework')
 * const part = { type: 'text', text, ...meta.write({ providerOptions }) }
 */
export function adapterPartMeta<M extends object>(key: string): AdapterPartMeta<M> {
  const none = Object.freeze({}) as M
  return {
    write(meta) {
      // Most parts carry nothing for the adapter: no copy to find that out.
      if (!Object.values(meta).some((value) => value !== undefined)) return {}
      const fields = plainJson(meta) as JsonObject
      return Object.keys(fields).length === 0 ? {} : { meta: { [key]: fields } }
    },
    read: (part) => (part.meta?.[key] as M | undefined) ?? none,
  }
}

/** The text of a message's parts (text and reasoning, joined): a system message as a string. */
export const partsText = (content: readonly MessagePart[]): string =>
  content.map((part) => (part.type === 'text' || part.type === 'reasoning' ? part.text : '')).join('')

/**
 * A provider's tool call (the AI SDK's shape, which Mastra's prompt shares) as core's part: its input
 * as plain JSON (none: `{}`), the provider's `providerExecuted` flag kept, `meta` as the adapter wrote it.
 */
export function toolCallPart(
  call: { toolCallId: string; toolName: string; input?: unknown; providerExecuted?: boolean | undefined },
  meta: { meta?: JsonObject },
): ToolCallPart {
  return {
    type: 'tool-call',
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    input: plainJson(call.input ?? {}) as JsonValue,
    ...(call.providerExecuted === undefined ? {} : { providerExecuted: call.providerExecuted }),
    ...meta,
  }
}

/**
 * A provider's tool result as core's part, its output already mapped (see {@link fromToolOutput}):
 * `isError` only when it is one, `meta` as the adapter wrote it.
 */
export function toolResultPart(
  result: { toolCallId: string; toolName: string },
  mapped: { output: JsonValue; isError?: boolean | undefined },
  meta: { meta?: JsonObject },
): ToolResultPart {
  return {
    type: 'tool-result',
    toolCallId: result.toolCallId,
    toolName: result.toolName,
    output: mapped.output,
    ...(mapped.isError === undefined ? {} : { isError: mapped.isError }),
    ...meta,
  }
}

/** Core's tool call as a provider prompt's (the AI SDK's shape), with the provider's flag when it has one. */
export function providerToolCall(
  part: ToolCallPart,
  providerExecuted: boolean | undefined = part.providerExecuted,
): { type: 'tool-call'; toolCallId: string; toolName: string; input: JsonValue; providerExecuted?: boolean } {
  return {
    type: 'tool-call',
    toolCallId: part.toolCallId,
    toolName: part.toolName,
    input: part.input,
    ...(providerExecuted === undefined ? {} : { providerExecuted }),
  }
}

/** The tool output kinds that carry a plain value, which every provider prompt has. */
export type PlainToolOutputKind = 'text' | 'error-text' | 'json' | 'error-json'

/** A provider's tool output of a {@link PlainToolOutputKind}. */
export type PlainToolOutput =
  | { type: 'text' | 'error-text'; value: string }
  | { type: 'json' | 'error-json'; value: unknown }

/**
 * A provider's plain tool output as core's: the value (JSON), whether it is an error, and the kind to
 * keep in the part's meta when the value does not tell it (a JSON output whose value is a string would
 * read back as text).
 */
export function fromToolOutput(output: PlainToolOutput): {
  output: JsonValue
  isError?: true
  kind?: 'json' | 'error-json'
} {
  const error = output.type === 'error-text' || output.type === 'error-json' ? { isError: true as const } : {}
  if (output.type === 'text' || output.type === 'error-text') return { output: output.value, ...error }
  const kind = typeof output.value === 'string' ? { kind: output.type } : {}
  return { output: plainJson(output.value ?? null) as JsonValue, ...error, ...kind }
}

/**
 * The provider output kind of core's tool result: the kind the adapter kept in meta, else what the
 * result tells (an error or not, a string or JSON).
 */
export function toolOutputKind<K extends string>(
  part: ToolResultPart,
  kept: K | undefined,
): K | PlainToolOutputKind {
  if (kept !== undefined) return kept
  const text = typeof part.output === 'string'
  if (part.isError === true) return text ? 'error-text' : 'error-json'
  return text ? 'text' : 'json'
}

/** Core's tool result as a provider's plain output of `kind` (a text kind writes a JSON value as its text). */
export function toToolOutput(part: ToolResultPart, kind: PlainToolOutputKind): PlainToolOutput {
  if (kind === 'json' || kind === 'error-json') return { type: kind, value: part.output }
  return { type: kind, value: typeof part.output === 'string' ? part.output : JSON.stringify(part.output) }
}
