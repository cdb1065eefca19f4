import { type AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { tool } from '@langchain/core/tools'
import { MemorySaver } from '@langchain/langgraph'
import { createMemory } from '@strata-memory/core'
import { createAgent } from 'langchain'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { brief, scriptedModel, storedMessages } from '../testing/agent'
import { strataMiddleware } from './strata-middleware'

/** A weather tool that answers differently each time it runs, as a live API does. */
function liveWeather() {
  let runs = 0
  return tool(async ({ city }: { city: string }) => `Weather in ${city}: reading ${++runs}`, {
    name: 'weather',
    description: 'The forecast for a city.',
    schema: z.object({ city: z.string() }),
  })
}

/** Two turns with a tool call each, on LangGraph's MemorySaver with Strata's middleware. */
async function twoTurns() {
  const memory = createMemory()
  const model = scriptedModel([
    { calls: [{ name: 'weather', args: { city: 'Paris' }, id: 'c1' }] },
    'Paris done.',
    { calls: [{ name: 'weather', args: { city: 'London' }, id: 'c2' }] },
    'London done.',
    'Replayed.',
    'Corrected.',
    'Next.',
  ])
  const agent = createAgent({
    model,
    tools: [liveWeather()],
    checkpointer: new MemorySaver(),
    middleware: [strataMiddleware({ memory })],
  })
  const config = { configurable: { thread_id: 'travel' } }
  await agent.invoke({ messages: [new HumanMessage('Weather in Paris?')] }, config)
  await agent.invoke({ messages: [new HumanMessage('And London?')] }, config)
  /** The checkpoint whose next step runs the tools for call `c2`. */
  const beforeTools = async () => {
    for await (const snapshot of agent.graph.getStateHistory(config)) {
      const last = snapshot.values.messages?.at(-1) as AIMessage | undefined
      if (snapshot.next.includes('tools') && last?.tool_calls?.[0]?.id === 'c2') return snapshot
    }
    throw new Error('no checkpoint before the tools of c2')
  }
  return { memory, model, agent, config, beforeTools }
}

describe('time travel through a tool call (LangGraph getStateHistory)', () => {
  it('a replay from the checkpoint before the tools runs the tool again; its new result replaces the old with its call', async () => {
    const { memory, model, agent, config, beforeTools } = await twoTurns()
    const replayed = await agent.invoke(null, (await beforeTools()).config)
    expect(replayed.messages.at(-1)!.text).toBe('Replayed.')
    // The model saw the call once, with the new reading.
    const sent = model.calls.at(-1)!.messages.map(brief)
    expect(sent.filter((line) => line.includes('#c2'))).toEqual([
      'ai: →weather#c2',
      'tool:Weather in London: reading 3#c2',
    ])
    const thread = await memory.thread('travel')
    expect(await storedMessages(thread)).toEqual([
      'user:Weather in Paris?',
      'assistant: →weather#c1',
      'tool:#c1',
      'assistant:Paris done.',
      'user:And London?',
      'assistant: →weather#c2',
      'tool:#c2',
      'assistant:Replayed.',
    ])
    expect(JSON.stringify(await thread.items())).toContain('reading 3')
    // The thread goes on from there.
    await agent.invoke({ messages: [new HumanMessage('Thanks')] }, config)
    expect((await storedMessages(thread)).at(-1)).toBe('assistant:Corrected.')
  })

  it('a tool result corrected with updateState continues the thread with the corrected result', async () => {
    const { memory, model, agent, config } = await twoTurns()
    const state = await agent.graph.getState(config)
    const result = state.values.messages.find(
      (message: ToolMessage) => message.tool_call_id === 'c2',
    ) as ToolMessage
    const corrected = new ToolMessage({
      id: result.id,
      tool_call_id: 'c2',
      name: 'weather',
      content: 'Snow in London',
    })
    await agent.graph.updateState(config, { messages: [corrected] })
    await agent.invoke({ messages: [new HumanMessage('So?')] }, config)
    const sent = model.calls.at(-1)!.messages.map(brief)
    expect(sent).toContain('tool:Snow in London#c2')
    const thread = await memory.thread('travel')
    const stored = await storedMessages(thread)
    expect(stored.filter((line) => line === 'tool:#c2')).toHaveLength(1)
    expect(stored.at(-2)).toBe('user:So?')
    expect(JSON.stringify(await thread.items())).toContain('Snow in London')
  })
})
