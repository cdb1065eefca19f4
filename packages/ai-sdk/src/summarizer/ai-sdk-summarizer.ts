import { invalidOptions, type Summarizer, shownValue } from '@strata-memory/core'
import { checkOptionKeys, type OptionKeys } from '@strata-memory/core/adapter-kit'
import { promptSummarizer } from '@strata-memory/core/prompt-summarizer'
import { generateText, type LanguageModel } from 'ai'

/** Options of {@link aiSdkSummarizer}. */
export interface AiSdkSummarizerOptions {
  /** Any AI SDK language model (a provider's model, a gateway id, a wrapped model). */
  model: LanguageModel
  /**
   * A short name for status and events.
   * @default `ai-sdk:<model id>`
   */
  name?: string
  /**
   * Milliseconds before the call is aborted and the summary fails (compaction retries later).
   * @default 60_000
   */
  timeoutMs?: number
  /**
   * The most facts asked for and kept.
   * @default 8
   */
  maxFacts?: number
  /**
   * The longest answer, in tokens.
   * @default 1024
   */
  maxOutputTokens?: number
}

/** The keys of {@link AiSdkSummarizerOptions}: any other is refused. */
const SUMMARIZER_OPTION_KEYS = {
  model: true,
  name: true,
  timeoutMs: true,
  maxFacts: true,
  maxOutputTokens: true,
} as const satisfies OptionKeys<AiSdkSummarizerOptions>

/**
 * An LLM summarizer on any AI SDK model, for `createMemory({ summarizer })`: sends Strata's summary
 * prompt with `generateText` and reads the sectioned summary and the fenced JSON facts back
 * (`promptSummarizer` in core). Its calls carry `providerOptions.strata.internal`, so a model wrapped
 * with `strataMiddleware` passes them through: nothing of them is stored, and they never write to a
 * UI stream.
 *
 * @example
 * const memory = createMemory({ summarizer: aiSdkSummarizer({ model: openai('gpt-4o-mini') }) })
 */
export function aiSdkSummarizer(options: AiSdkSummarizerOptions): Summarizer {
  checkOptionKeys('aiSdkSummarizer()', options, SUMMARIZER_OPTION_KEYS)
  const { model, name, timeoutMs = 60_000, maxFacts, maxOutputTokens = 1024 } = options ?? {}
  const modelId = typeof model === 'string' ? model : model?.modelId
  if (typeof modelId !== 'string' || modelId.length === 0) {
    invalidOptions(
      "aiSdkSummarizer() needs { model }: an AI SDK language model (openai('gpt-4o-mini'), a gateway id, a wrapped model).",
    )
  }
  if (!Number.isInteger(maxOutputTokens) || maxOutputTokens < 1) {
    invalidOptions(
      `aiSdkSummarizer(): maxOutputTokens must be a whole number of at least 1 (got ${shownValue(maxOutputTokens)}).`,
    )
  }
  if (name !== undefined && (typeof name !== 'string' || name.length === 0)) {
    invalidOptions('aiSdkSummarizer(): name must be a non-empty string.')
  }
  return promptSummarizer({
    name: name ?? `ai-sdk:${modelId}`,
    timeoutMs,
    ...(maxFacts === undefined ? {} : { maxFacts }),
    complete: async ({ system, prompt, signal }) => {
      const result = await generateText({
        model,
        system,
        prompt,
        abortSignal: signal,
        maxOutputTokens,
        providerOptions: { strata: { internal: true } },
      })
      return result.text
    },
  })
}
