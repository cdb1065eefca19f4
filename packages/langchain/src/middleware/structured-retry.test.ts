import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AIMessage, HumanMessage } from '@langchain/core/messages'
import { MemorySaver } from '@langchain/langgraph'
import { createMemory } from '@strata-memory/core'
import { fileStore } from '@strata-memory/store-file'
import { createAgent, toolStrategy } from 'langchain'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { scriptedModel, storedMessages } from '../testing/agent'
import { strataMiddleware } from './strata-middleware'

const Report = z.object({ city: z.string(), sky: z.string() }).meta({ title: 'WeatherReport' })

describe('structured output (responseFormat: toolStrategy)', () => {
  it('an invalid answer retried by LangChain goes on in the same request, as without Strata', async () => {
    // The file store: its lease is released on disk, after the request's afterAgent began.
    const dir = await mkdtemp(join(tmpdir(), 'strata-structured-'))
    const memory = createMemory({ store: fileStore({ dir }) })
    const model = scriptedModel([
      { calls: [{ name: 'WeatherReport', args: { city: 'Paris' }, id: 's1' }] },
      { calls: [{ name: 'WeatherReport', args: { city: 'Paris', sky: 'sunny' }, id: 's2' }] },
      new AIMessage('Next.'),
    ])
    const agent = createAgent({
      model,
      tools: [],
      checkpointer: new MemorySaver(),
      middleware: [strataMiddleware({ memory })],
      responseFormat: toolStrategy(Report),
    })
    const config = { configurable: { thread_id: 'report' } }
    const result = await agent.invoke({ messages: [new HumanMessage('Weather in Paris?')] }, config)
    expect(result.structuredResponse).toEqual({ city: 'Paris', sky: 'sunny' })
    const stored = await storedMessages(await memory.thread('report'))
    expect(stored[0]).toBe('user:Weather in Paris?')
    expect(stored.filter((line) => line.includes('#s2'))).not.toHaveLength(0)
    await memory.close()
    await rm(dir, { recursive: true, force: true })
  })
})
