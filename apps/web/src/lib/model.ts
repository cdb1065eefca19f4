import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAI } from '@ai-sdk/openai'
import type { LanguageModelV4 } from '@ai-sdk/provider'
import { ScriptedAgentModel } from './scripted-agent'

/** The environment variables the app reads (process.env by default). */
type Environment = Readonly<Record<string, string | undefined>>

/** Which model drives the app, for the page's header. */
export function modelName(env: Environment = process.env): string {
  if (env.OPENAI_API_KEY) return `openai:${env.OPENAI_MODEL ?? 'gpt-4.1-mini'}`
  if (env.ANTHROPIC_API_KEY) return `anthropic:${env.ANTHROPIC_MODEL ?? 'claude-sonnet-4-5'}`
  return 'scripted (offline)'
}

/**
 * The model of the chat: OpenAI with `OPENAI_API_KEY`, Anthropic with `ANTHROPIC_API_KEY` (model names
 * from `OPENAI_MODEL` / `ANTHROPIC_MODEL`), else the offline scripted agent, whose steps are spaced by
 * `STRATA_WEB_STEP_MS` (default 120 ms) so a person can follow them.
 */
export function appModel(env: Environment = process.env): LanguageModelV4 {
  if (env.OPENAI_API_KEY) {
    return createOpenAI({ apiKey: env.OPENAI_API_KEY })(env.OPENAI_MODEL ?? 'gpt-4.1-mini')
  }
  if (env.ANTHROPIC_API_KEY) {
    return createAnthropic({ apiKey: env.ANTHROPIC_API_KEY })(env.ANTHROPIC_MODEL ?? 'claude-sonnet-4-5')
  }
  const delayMs = Number(env.STRATA_WEB_STEP_MS ?? 120)
  return new ScriptedAgentModel({ delayMs: Number.isFinite(delayMs) ? delayMs : 120 })
}
