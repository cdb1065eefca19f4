import {
  executeWithContext,
  type ObservabilityContext,
  resolveObservabilityContext,
} from '@mastra/core/observability'
import { StrataError } from '@strata-memory/core'
import { rememberProcessorError } from '../errors/strata-error-of'
import type { ConversationMessage, MastraPrompt } from '../messages/prompt-messages'

/**
 * Runs a processor phase with the span Mastra made for it (its `tracingContext`) as Mastra's current
 * span, so Strata's spans in it nest under that span: Mastra's runner makes the span current for
 * some phases, not for the LLM-request phase.
 */
export const inProcessorSpan = <T>(context: Partial<ObservabilityContext>, run: () => Promise<T>) =>
  executeWithContext({
    span: resolveObservabilityContext(context).tracing.currentSpan,
    fn: async () => {
      try {
        return await run()
      } catch (error) {
        // Mastra may pass it on with its message alone (strataErrorOf finds it by that).
        if (StrataError.isInstance(error)) rememberProcessorError(error)
        throw error
      }
    },
  })

/** A prompt's messages but its system ones. */
export const conversationOf = (prompt: MastraPrompt): ConversationMessage[] =>
  prompt.filter((message): message is ConversationMessage => message.role !== 'system')

/** A provider count Strata takes: a non-negative integer, or nothing. */
export const count = (value: unknown) =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined
