import type { SharedV4ProviderOptions } from '@ai-sdk/provider'
import type { JsonObject } from '@strata-memory/core'
import { adapterPartMeta } from '@strata-memory/core/adapter-kit'

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

export const AI_SDK = 'aiSdk'

/** Core's own flag for calls the provider runs: core keeps their results in the assistant message. */
export const providerExecuted = (flag: boolean | undefined): { providerExecuted?: boolean } =>
  flag === undefined ? {} : { providerExecuted: flag }

/** The adapter's part metadata under `meta.aiSdk` (the adapter kit's mapping: plain JSON, one shared empty read). */
const partMeta = adapterPartMeta<AiSdkPartMeta>(AI_SDK)

export const metaOf = (meta: AiSdkPartMeta): { meta?: JsonObject } => partMeta.write(meta)

export const readMeta = (part: { meta?: JsonObject }): AiSdkPartMeta => partMeta.read(part)

export const options = (value: SharedV4ProviderOptions | undefined): { providerOptions?: JsonObject } =>
  value === undefined ? {} : { providerOptions: value as JsonObject }

/** The key of an item's `meta` that holds the UI message id the item belongs to (see `loadUIMessages`). */
export const UI_MESSAGE_ID = 'uiMessageId'

/**
 * The key of a tool message's `meta` that holds the approvals the page answered for its calls
 * (`{ [toolCallId]: { id, approved, reason? } }`), so a reload shows each call approved or denied.
 */
export const TOOL_APPROVALS = 'toolApprovals'
