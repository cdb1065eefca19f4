import { AIMessage, HumanMessage } from '@langchain/core/messages'
import { tool } from '@langchain/core/tools'
import { MemorySaver } from '@langchain/langgraph'
import { createMemory } from '@strata-memory/core'
import { createAgent, toolRetryMiddleware } from 'langchain'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { brief, scriptedModel, storedMessages } from '../testing/agent'
import { strataMiddleware } from './strata-middleware'

const failing = tool(
  async ({ city }: { city: string }) => {
    throw new Error(`no forecast for ${city}`)
  },
  { name: 'forecast', description: 'The forecast for a city.', schema: z.object({ city: z.string() }) },
)
const working = tool(async ({ city }: { city: string }) => `Sunny in ${city}`, {
  name: 'weather',
  description: 'The weather now.',
  schema: z.object({ city: z.string() }),
})

/** One question whose two parallel tool calls fail and succeed; the model answers after them. */
async function run(withStrata: boolean, extra: Parameters<typeof createAgent>[0]['middleware'] = []) {
  const memory = createMemory()
  const model = scriptedModel([
    {
      calls: [
        { name: 'forecast', args: { city: 'Lyon' }, id: 'f1' },
        { name: 'weather', args: { city: 'Lyon' }, id: 'w1' },
      ],
    },
    'It is sunny; no forecast.',
    'Bye.',
  ])
  const agent = createAgent({
    model,
    tools: [failing, working],
    checkpointer: new MemorySaver(),
    middleware: [...(withStrata ? [strataMiddleware({ memory })] : []), ...(extra ?? [])],
  })
  const config = { configurable: { thread_id: 'tool-errors' } }
  const result = await agent.invoke({ messages: [new HumanMessage('Weather in Lyon?')] }, config)
  await agent.invoke({ messages: [new HumanMessage('Thanks')] }, config)
  return { memory, model, result }
}

describe("a tool's own error", () => {
  it('goes back to the model as it does without Strata: the run goes on, both results are stored', async () => {
    const reference = await run(false)
    const strata = await run(true)
    expect(strata.result.messages.at(-1)!.text).toBe('It is sunny; no forecast.')
    expect(strata.model.calls.map((call) => call.messages.map(brief))).toEqual(
      reference.model.calls.map((call) => call.messages.map(brief)),
    )
    const errorResult = strata.result.messages.find(
      (message) => (message as { tool_call_id?: string }).tool_call_id === 'f1',
    )!
    expect(errorResult).toMatchObject({ status: 'error' })
    expect(errorResult.text).toBe('Error: no forecast for Lyon\n Please fix your mistakes.')
    expect(await storedMessages(await strata.memory.thread('tool-errors'))).toEqual([
      'user:Weather in Lyon?',
      'assistant: →forecast#f1 →weather#w1',
      'tool:#f1#w1',
      'assistant:It is sunny; no forecast.',
      'user:Thanks',
      'assistant:Bye.',
    ])
  })

  it('still reaches a retry middleware listed after Strata, which sees the error first', async () => {
    const retry = () => [toolRetryMiddleware({ maxRetries: 1, initialDelayMs: 0, onFailure: 'continue' })]
    const reference = await run(false, retry())
    const strata = await run(true, retry())
    expect(strata.model.calls.map((call) => call.messages.map(brief))).toEqual(
      reference.model.calls.map((call) => call.messages.map(brief)),
    )
    expect(strata.result.messages.at(-1)).toBeInstanceOf(AIMessage)
  })
})
