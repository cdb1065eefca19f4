import { invalidOptions } from '../errors'

/** A model's context window and the most it may write in one response, in tokens. */
export interface ModelLimits {
  maxContextTokens: number
  maxOutputTokens: number
}

/**
 * Published limits of common models, used as the token budget's defaults when `budget.model` names one.
 * Keys are model id prefixes; the longest matching prefix wins, so dated ids (`gpt-4o-2024-08-06`) and
 * provider-prefixed ids (`openai/gpt-4o`) resolve too. Options given explicitly always win.
 */
export const MODEL_LIMITS: Readonly<Record<string, ModelLimits>> = {
  'gpt-4o': { maxContextTokens: 128_000, maxOutputTokens: 16_384 },
  'gpt-4o-mini': { maxContextTokens: 128_000, maxOutputTokens: 16_384 },
  'gpt-4.1': { maxContextTokens: 1_047_576, maxOutputTokens: 32_768 },
  'gpt-4-turbo': { maxContextTokens: 128_000, maxOutputTokens: 4_096 },
  o1: { maxContextTokens: 200_000, maxOutputTokens: 100_000 },
  o3: { maxContextTokens: 200_000, maxOutputTokens: 100_000 },
  'o4-mini': { maxContextTokens: 200_000, maxOutputTokens: 100_000 },
  'claude-3-5-sonnet': { maxContextTokens: 200_000, maxOutputTokens: 8_192 },
  'claude-3-5-haiku': { maxContextTokens: 200_000, maxOutputTokens: 8_192 },
  'claude-3-7-sonnet': { maxContextTokens: 200_000, maxOutputTokens: 64_000 },
  'claude-sonnet-4': { maxContextTokens: 200_000, maxOutputTokens: 64_000 },
  'claude-opus-4': { maxContextTokens: 200_000, maxOutputTokens: 32_000 },
  'gemini-1.5-pro': { maxContextTokens: 2_097_152, maxOutputTokens: 8_192 },
  'gemini-1.5-flash': { maxContextTokens: 1_048_576, maxOutputTokens: 8_192 },
  'gemini-2.0-flash': { maxContextTokens: 1_048_576, maxOutputTokens: 8_192 },
  'gemini-2.5-pro': { maxContextTokens: 1_048_576, maxOutputTokens: 65_536 },
  'gemini-2.5-flash': { maxContextTokens: 1_048_576, maxOutputTokens: 65_536 },
}

/**
 * The limits of a model id from {@link MODEL_LIMITS}, or undefined when none matches. A provider prefix
 * (`openai/`, `anthropic:`) is ignored.
 */
export function modelLimits(modelId: string): ModelLimits | undefined {
  if (typeof modelId !== 'string' || modelId.length === 0) {
    invalidOptions('budget.model must be a non-empty model id, e.g. "gpt-4o" or "claude-sonnet-4".')
  }
  const id = modelId.toLowerCase().replace(/^[a-z0-9-]+[/:]/, '')
  let best: string | undefined
  for (const prefix of Object.keys(MODEL_LIMITS)) {
    const matches = id === prefix || id.startsWith(`${prefix}-`) || id.startsWith(`${prefix}@`)
    if (matches && (best === undefined || prefix.length > best.length)) best = prefix
  }
  return best === undefined ? undefined : { ...MODEL_LIMITS[best]! }
}
