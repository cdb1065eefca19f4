import { countTokens as countCl100k } from 'gpt-tokenizer/encoding/cl100k_base'
import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base'
import { invalidOptions } from '../errors'
import type { TokenCounter } from '../tokens/token-counter'

/** The encodings `gptTokenizer` can count with. */
export type GptEncodingName = 'o200k_base' | 'cl100k_base'

/** Options of {@link gptTokenizer}. */
export interface GptTokenizerOptions {
  /**
   * The encoding: `o200k_base` (GPT-4o, GPT-4.1, GPT-5, o-series) or `cl100k_base` (GPT-4, GPT-3.5).
   * @default 'o200k_base'
   */
  encoding?: GptEncodingName
}

const counters: Record<GptEncodingName, typeof countO200k> = {
  o200k_base: countO200k,
  cl100k_base: countCl100k,
}
// Text in a conversation is data, not control: special-token strings like "<|endoftext|>" count as text.
const asText = { disallowedSpecial: new Set<string>() }

/** Raised when the counts of an encoding change (how special-token strings count, say). */
const GPT_TOKENIZER_VERSION = '1'

/**
 * An exact offline token counter on the `gpt-tokenizer` package (an optional peer dependency: install
 * it beside core). Its tables ship inside the npm package; nothing is downloaded.
 *
 * @example
 * import { createMemory } from '@strata-memory/core'
 * import { gptTokenizer } from '@strata-memory/core/tokenizer'
 * const memory = createMemory({ tokenCounter: gptTokenizer({ encoding: 'o200k_base' }) })
 */
export function gptTokenizer({ encoding = 'o200k_base' }: GptTokenizerOptions = {}): TokenCounter {
  const count = Object.hasOwn(counters, encoding) ? counters[encoding] : undefined
  if (count === undefined) {
    invalidOptions(
      `gptTokenizer(): unknown encoding ${JSON.stringify(encoding)}; use 'o200k_base' or 'cl100k_base'.`,
      { encoding },
    )
  }
  // The name is the encoding; the version stands for how text is counted (special tokens as text).
  return { name: encoding, version: GPT_TOKENIZER_VERSION, count: (text) => count(text, asText) }
}
