import { createMemory, inMemoryStore, StrataError } from '@strata-memory/core'
import { storedThread } from '@strata-memory/core/testing'
import { generateText, type ModelMessage, streamText, tool, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { generated, streamed } from '../testing/model-results'
import { strataMiddleware } from './strata-middleware'

/** A tool whose definition alone is larger than the budget below. */
const tools = {
  file_report: tool({
    description: `Files the quarterly report. ${'Every field is checked against the ledger before the report is filed. '.repeat(30)}`,
    inputSchema: z.object({ quarter: z.string(), notes: z.string() }),
    execute: async () => 'filed',
  }),
}

describe('a call refused for its budget stores nothing', () => {
  it('generateText: the request and the tool definitions cannot fit, STRATA_BUDGET_EXCEEDED, the store as it was', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ store, compaction: { budget: { inputTokens: 400 } } })
    const model = wrapLanguageModel({
      model: new MockLanguageModelV4({ doGenerate: async () => generated('Filed.') }),
      middleware: strataMiddleware({ memory, threadId: 'budget' }),
    })
    const history: ModelMessage[] = [{ role: 'user', content: 'Hello' }]
    history.push(...(await generateText({ model, messages: history })).response.messages)
    const before = await storedThread(store, 'budget')
    history.push({ role: 'user', content: 'File the report for Q3.' })
    const error = await generateText({ model, messages: history, tools, maxRetries: 0 }).catch(
      (caught: unknown) => caught,
    )
    expect(StrataError.isInstance(error, 'STRATA_BUDGET_EXCEEDED')).toBe(true)
    expect(await storedThread(store, 'budget')).toEqual(before)
    // Without the tool the same request fits, and is stored once.
    await generateText({ model, messages: history })
    const users = (await store.read('budget')).filter(
      (item) => item.type === 'message' && item.role === 'user',
    )
    expect(users).toHaveLength(2)
  })

  it('streamText: refused the same way, before anything is stored', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ store, compaction: { budget: { inputTokens: 400 } } })
    const model = wrapLanguageModel({
      model: new MockLanguageModelV4({ doStream: async () => streamed('Filed.') }),
      middleware: strataMiddleware({ memory, threadId: 'budget' }),
    })
    const errors: unknown[] = []
    const result = streamText({
      model,
      prompt: 'File the report for Q3.',
      tools,
      onError: ({ error }) => {
        errors.push(error)
      },
    })
    await result.consumeStream()
    expect(StrataError.isInstance(errors[0], 'STRATA_BUDGET_EXCEEDED')).toBe(true)
    expect(await storedThread(store, 'budget')).toEqual({
      active: [],
      archive: [],
      state: undefined,
      content: [],
    })
  })
})
