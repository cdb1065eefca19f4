import type { SharedV4ProviderOptions } from '@ai-sdk/provider'
import type { JsonObject } from '@strata-memory/core'

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

/**
 * A copy of a JSON value with `undefined` properties dropped, as `JSON.parse(JSON.stringify(value))`
 * makes it (provider options may hold them, stored JSON may not), in a quarter of the time: a call
 * maps the few dozen messages nearest the end of the prompt, each with inputs and options.
 */
export function plain<T>(value: T): T {
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
export const providerExecuted = (flag: boolean | undefined): { providerExecuted?: boolean } =>
  flag === undefined ? {} : { providerExecuted: flag }

export const metaOf = (meta: AiSdkPartMeta): { meta?: JsonObject } => {
  const fields = plain(meta) as JsonObject
  return Object.keys(fields).length === 0 ? {} : { meta: { [AI_SDK]: fields } }
}

export const readMeta = (part: { meta?: JsonObject }): AiSdkPartMeta =>
  (part.meta?.[AI_SDK] as AiSdkPartMeta | undefined) ?? {}

export const options = (value: SharedV4ProviderOptions | undefined): { providerOptions?: JsonObject } =>
  value === undefined ? {} : { providerOptions: value as JsonObject }
