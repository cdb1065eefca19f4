import type { BaseChatModel } from '@langchain/core/language_models/chat_models'
import { HumanMessage, SystemMessage } from '@langchain/core/messages'
import { invalidOptions, type Summarizer } from '@strata-memory/core'
import { checkOptionKeys, type OptionKeys } from '@strata-memory/core/adapter-kit'
import { promptSummarizer } from '@strata-memory/core/prompt-summarizer'
import { z } from 'zod'

/** Options of {@link langchainSummarizer}. */
export interface LangchainSummarizerOptions {
  /** Any LangChain chat model (`ChatOpenAI`, `ChatAnthropic`, `initChatModel(…)`, a fake). */
  model: BaseChatModel
  /**
   * A short name for status and events.
   * @default `langchain:<the model's type>`
   */
  name?: string
  /**
   * Ask for the summary as structured output (`withStructuredOutput`) rather than sectioned text.
   * @default true when the model has `withStructuredOutput`
   */
  structured?: boolean
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

/** The tags of the summarizer's calls: `nostream` keeps them out of `streamMode: 'messages'`. */
export const SUMMARIZER_TAGS = ['nostream', 'strata:internal'] as const

/** The structured answer: the sections Strata's summary prompt asks for, and the facts. */
const summarySchema = z.object({
  decisions: z.array(z.string()).describe('What was decided or done, and why.'),
  identifiers: z
    .array(z.string())
    .describe('Each id, name, number, path and URL that must survive verbatim.'),
  openWork: z.array(z.string()).describe('What is unfinished, pending or failed, and what comes next.'),
  facts: z
    .array(z.object({ text: z.string(), tags: z.array(z.string()), confidence: z.number().min(0).max(1) }))
    .describe('Durable statements worth remembering after this summary.'),
})

type StructuredSummary = z.infer<typeof summarySchema>

const section = (title: string, lines: readonly string[] | undefined) =>
  `## ${title}\n${lines !== undefined && lines.length > 0 ? lines.map((line) => `- ${line}`).join('\n') : '- none'}`

/** A structured answer as the sectioned text core's summary parser reads. */
function sectioned(value: StructuredSummary): string {
  const fence = '```'
  return [
    section('Decisions', value.decisions),
    section('Identifiers', value.identifiers),
    section('Open work', value.openWork),
    `${fence}json\n${JSON.stringify({ facts: value.facts ?? [] })}\n${fence}`,
  ].join('\n')
}

/** The keys of {@link LangchainSummarizerOptions}: any other is refused. */
const SUMMARIZER_OPTION_KEYS = {
  model: true,
  name: true,
  structured: true,
  timeoutMs: true,
  maxFacts: true,
} as const satisfies OptionKeys<LangchainSummarizerOptions>

/**
 * An LLM summarizer on any LangChain chat model, for `createMemory({ summarizer })`: sends Strata's
 * summary prompt (`promptSummarizer` in core), as structured output where the model supports it. Its
 * calls never pass through an agent's `strataMiddleware`, so nothing of them is stored, and they are
 * tagged `nostream`, so an agent streamed with `streamMode: 'messages'` does not stream them.
 *
 * @example
 * const memory = createMemory({ summarizer: langchainSummarizer({ model: new ChatOpenAI({ model: 'gpt-4o-mini' }) }) })
 */
export function langchainSummarizer(options: LangchainSummarizerOptions): Summarizer {
  checkOptionKeys('langchainSummarizer()', options, SUMMARIZER_OPTION_KEYS)
  const { model, name, timeoutMs = 60_000, maxFacts } = options ?? ({} as LangchainSummarizerOptions)
  if (typeof model?.invoke !== 'function') {
    invalidOptions(
      'langchainSummarizer() needs { model }: a LangChain chat model (ChatOpenAI, initChatModel(…)).',
    )
  }
  if (name !== undefined && (typeof name !== 'string' || name.length === 0)) {
    invalidOptions('langchainSummarizer(): name must be a non-empty string.')
  }
  const structured = options.structured ?? typeof model.withStructuredOutput === 'function'
  if (typeof structured !== 'boolean')
    invalidOptions('langchainSummarizer(): structured must be true or false.')
  const type = typeof model._llmType === 'function' ? model._llmType() : 'chat-model'
  const structuredModel = structured
    ? model.withStructuredOutput(summarySchema, { name: 'memory_summary' })
    : undefined
  return promptSummarizer({
    name: name ?? `langchain:${type}`,
    timeoutMs,
    ...(maxFacts === undefined ? {} : { maxFacts }),
    complete: async ({ system, prompt, signal }) => {
      const messages = [new SystemMessage(system), new HumanMessage(prompt)]
      const config = { signal, tags: [...SUMMARIZER_TAGS], metadata: { strata_internal: true } }
      if (structuredModel !== undefined)
        return sectioned((await structuredModel.invoke(messages, config)) as StructuredSummary)
      const answer = await model.invoke(messages, config)
      return answer.text
    },
  })
}
