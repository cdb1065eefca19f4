import { Agent } from '@mastra/core/agent'
import type { MastraModelConfig } from '@mastra/core/llm'
import { RequestContext } from '@mastra/core/request-context'
import { invalidOptions, type Summarizer } from '@strata-memory/core'
import { checkOptionKeys, type OptionKeys } from '@strata-memory/core/adapter-kit'
import { promptSummarizer } from '@strata-memory/core/prompt-summarizer'
import { INTERNAL_CALL_KEY } from '../memory/strata-processor'

/** Options of {@link mastraSummarizer}: a Mastra agent, or a model it wraps in one. */
export interface MastraSummarizerOptions {
  /** A Mastra agent that writes the summaries; called without a thread, its calls are never stored. */
  agent?: Agent
  /** A model for a summarizing agent of its own (used when no `agent` is given). */
  model?: MastraModelConfig
  /**
   * A short name for status and events.
   * @default `mastra:<agent name>` or `mastra:<model id>`
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
}

/** The keys of {@link MastraSummarizerOptions}: any other is refused. */
const SUMMARIZER_OPTION_KEYS = {
  agent: true,
  model: true,
  name: true,
  timeoutMs: true,
  maxFacts: true,
} as const satisfies OptionKeys<MastraSummarizerOptions>

/**
 * An LLM summarizer on a Mastra agent or model, for `createMemory({ summarizer })`: sends Strata's
 * summary prompt with `agent.generate` and reads the sectioned summary and the JSON facts back
 * (`promptSummarizer` in core). Its calls carry no thread and are marked internal in their request
 * context (`INTERNAL_CALL_KEY`), so even an agent whose memory is a `StrataMemory` stores nothing of them.
 *
 * @example
 * const memory = createMemory({ summarizer: mastraSummarizer({ model: openai('gpt-4o-mini') }) })
 */
export function mastraSummarizer(options: MastraSummarizerOptions): Summarizer {
  checkOptionKeys('mastraSummarizer()', options, SUMMARIZER_OPTION_KEYS)
  const { agent: given, model, name, timeoutMs = 60_000, maxFacts } = options ?? {}
  if (given !== undefined && typeof (given as Agent).generate !== 'function') {
    invalidOptions('mastraSummarizer(): agent must be a Mastra Agent.')
  }
  if (given === undefined && (typeof model !== 'object' || model === null) && typeof model !== 'string') {
    invalidOptions(
      'mastraSummarizer() needs { agent } (a Mastra Agent) or { model } (a Mastra language model).',
    )
  }
  if (name !== undefined && (typeof name !== 'string' || name.length === 0)) {
    invalidOptions('mastraSummarizer(): name must be a non-empty string.')
  }
  const agent =
    given ??
    new Agent({
      id: 'strata-summarizer',
      name: 'strata-summarizer',
      instructions: 'You summarize conversations for an agent memory, exactly in the format asked.',
      model: model as MastraModelConfig,
    })
  const modelId = typeof model === 'string' ? model : (model as { modelId?: string } | undefined)?.modelId
  return promptSummarizer({
    name: name ?? `mastra:${given === undefined ? (modelId ?? 'model') : given.name}`,
    timeoutMs,
    ...(maxFacts === undefined ? {} : { maxFacts }),
    complete: async ({ system, prompt, signal }) => {
      const requestContext = new RequestContext()
      requestContext.set(INTERNAL_CALL_KEY, true)
      const result = await agent.generate(
        [
          { role: 'system', content: system },
          { role: 'user', content: prompt },
        ],
        { requestContext, abortSignal: signal },
      )
      return result.text
    },
  })
}
