import { Agent } from '@mastra/core/agent'
import { createTool } from '@mastra/core/tools'
import { type Memory, tokenEstimator } from '@strata-memory/core'
import { StrataMemory, type StrataMemoryOptions } from '../memory/strata-memory'
import { type ReceivedPrompt, type ScriptedStep, scriptedModel } from './scripted-model'

/** A tool that answers with the weather of the city it is asked about. */
export const weatherTool = createTool({
  id: 'weather',
  description: 'The weather of a city.',
  execute: async (input: unknown) => ({ city: (input as { city?: string }).city ?? '?', sky: 'sunny' }),
})

/** A tool that answers with a long page, over the content channel's offload threshold. */
export const fetchTool = createTool({
  id: 'fetch_page',
  description: 'Fetches a web page.',
  execute: async (input: unknown) => ({
    url: (input as { url?: string }).url ?? '?',
    title: 'Orchard guide',
    text: `Apple trees need six hours of sun. ${'Prune in late winter. '.repeat(400)}The secret word is pomona.`,
  }),
})

/** A real Mastra agent on a scripted model, with a `StrataMemory` over `memory`. */
export function strataAgent(
  memory: Memory,
  steps: readonly ScriptedStep[],
  options: Omit<StrataMemoryOptions, 'memory'> = {},
): { agent: Agent; prompts: ReceivedPrompt[]; strata: StrataMemory } {
  const { model, prompts } = scriptedModel(steps)
  const strata = new StrataMemory({ memory, ...options })
  const agent = new Agent({
    id: 'helper',
    name: 'helper',
    instructions: 'Be brief.',
    model,
    tools: { weather: weatherTool, fetch_page: fetchTool },
    memory: strata,
  })
  return { agent, prompts, strata }
}

/** A received prompt as one line per message: `role: text`, tool parts as `call name` / `result name`. */
export function promptLines(prompt: ReceivedPrompt): string[] {
  return prompt.map((message) => {
    if (typeof message.content === 'string') return `${message.role}: ${message.content}`
    const parts = message.content.map((part) => {
      switch (part.type) {
        case 'text':
        case 'reasoning':
          return part.text
        case 'tool-call':
          return `call ${part.toolName} ${part.toolCallId}`
        case 'tool-result':
          return `result ${part.toolName} ${part.toolCallId}`
        default:
          return `[${part.type}]`
      }
    })
    return `${message.role}: ${parts.join(' ')}`
  })
}

const estimator = tokenEstimator()

/** A received prompt's tokens as the memory counts them: each message's text and 4 tokens of framing. */
export function promptTokens(prompt: ReceivedPrompt): number {
  return prompt.reduce(
    (sum, message) =>
      sum +
      4 +
      estimator.count(
        typeof message.content === 'string'
          ? message.content
          : message.content.map((part) => ('text' in part ? part.text : '')).join(''),
      ),
    0,
  )
}
