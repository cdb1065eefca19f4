import type { LanguageModelV4Prompt } from '@ai-sdk/provider'
import { createMemory, tokenEstimator } from '@strata-memory/core'
import { generateText, type ModelMessage, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { generated } from '../testing/model-results'
import { strataMiddleware } from './strata-middleware'

const counter = tokenEstimator()
/** A prompt's tokens as the memory counts messages: each message's text and 4 tokens of framing. */
const promptTokens = (prompt: LanguageModelV4Prompt) =>
  prompt.reduce(
    (sum, message) =>
      sum +
      4 +
      counter.count(
        typeof message.content === 'string'
          ? message.content
          : message.content.map((part) => ('text' in part ? part.text : '')).join(''),
      ),
    0,
  )
const SYSTEM = `You are a procurement agent. ${'Follow the house rules on vendors, budgets and sources. '.repeat(130)}`

describe("a call's own system prompt and the token budget", () => {
  it('every request, the call-level system prompt included, stays within the budget; no usage is reported', async () => {
    const budget = 4_000
    const memory = createMemory({ compaction: { budget: { inputTokens: budget } } })
    const mock = new MockLanguageModelV4({ doGenerate: async () => generated('Noted.', { inputTokens: 0 }) })
    const model = wrapLanguageModel({
      model: mock,
      middleware: strataMiddleware({ memory, threadId: 'sys' }),
    })
    const history: ModelMessage[] = []
    for (let turn = 1; turn <= 14; turn++) {
      history.push({
        role: 'user',
        content: `Vendor ${turn} quote: ${'line item, unit price, delivery date, warranty terms. '.repeat(45)}`,
      })
      const result = await generateText({ model, system: SYSTEM, messages: history })
      history.push(...result.response.messages)
    }
    let largest = 0
    for (const call of mock.doGenerateCalls) {
      expect(JSON.stringify(call.prompt[0])).toContain('house rules')
      const sent = promptTokens(call.prompt)
      expect(sent).toBeLessThanOrEqual(budget)
      largest = Math.max(largest, sent)
    }
    expect(largest).toBeGreaterThan(budget / 2)
  })
})
