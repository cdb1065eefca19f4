import { Agent } from '@mastra/core/agent'
import { createTool } from '@mastra/core/tools'
import { createMemory } from '@strata-memory/core'
import { describe, expect, it } from 'vitest'
import { scriptedModel } from '../testing/scripted-model'
import { StrataMemory } from './strata-memory'

const textOf = (message: { content: unknown }) =>
  typeof message.content === 'string'
    ? message.content
    : (message.content as { type: string; text?: string }[])
        .map((part) => part.text ?? `[${part.type}]`)
        .join('')

describe('StrataMemory on a Mastra agent', () => {
  it('spike', async () => {
    const memory = createMemory()
    const { model, prompts } = scriptedModel([
      { toolCalls: [{ id: 'c1', name: 'weather', input: { city: 'Paris' } }], inputTokens: 120 },
      { text: 'Sunny in Paris.', inputTokens: 150 },
    ])
    const weather = createTool({
      id: 'weather',
      description: 'Weather of a city',
      execute: async (input: unknown) => ({ city: (input as { city: string }).city, sky: 'sunny' }),
    })
    const agent = new Agent({
      id: 'helper',
      name: 'helper',
      instructions: 'Be brief.',
      model,
      tools: { weather },
      memory: new StrataMemory({ memory }),
    })
    const result = await agent.generate('Weather in Paris?', {
      memory: { thread: 'ana@example.com/trip 1', resource: 'ana' },
    })
    console.log(result.text)
    console.log(JSON.stringify(prompts, null, 1))
    const thread = await memory.thread('ana_40example.com_2Ftrip_201')
    console.log(JSON.stringify(await thread.items(), null, 1))
    console.log(await thread.status())
    expect(textOf({ content: 'x' })).toBe('x')
  })
})
