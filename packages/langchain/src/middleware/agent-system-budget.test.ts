import { HumanMessage } from '@langchain/core/messages'
import { MemorySaver } from '@langchain/langgraph'
import { createMemory, tokenEstimator } from '@strata-memory/core'
import { createAgent } from 'langchain'
import { describe, expect, it } from 'vitest'
import { scriptedModel } from '../testing/agent'
import { strataMiddleware } from './strata-middleware'

const counter = tokenEstimator()
/** A message's tokens as the memory counts one: its text and 4 tokens of message framing. */
const tokensOf = (text: string) => counter.count(text) + 4
const SYSTEM_PROMPT = `You are a procurement agent. ${'Follow the house rules on vendors, budgets and sources. '.repeat(130)}`

describe("the agent's own system prompt and the token budget", () => {
  it('every model request, system prompt included, stays within the budget; no usage is reported', async () => {
    const budget = 4_000
    expect(tokensOf(SYSTEM_PROMPT)).toBeGreaterThan(1_200)
    const memory = createMemory({ compaction: { budget: { inputTokens: budget } } })
    const turns = 14
    const model = scriptedModel(Array.from({ length: turns }, (_, turn) => `Noted vendor ${turn + 1}.`))
    const agent = createAgent({
      model,
      tools: [],
      systemPrompt: SYSTEM_PROMPT,
      checkpointer: new MemorySaver(),
      middleware: [strataMiddleware({ memory })],
    })
    const config = { configurable: { thread_id: 'system-budget' } }
    for (let turn = 1; turn <= turns; turn++) {
      const details = `Vendor ${turn} quote: ${'line item, unit price, delivery date, warranty terms. '.repeat(45)}`
      await agent.invoke({ messages: [new HumanMessage(details)] }, config)
    }
    expect(model.calls).toHaveLength(turns)
    let largest = 0
    for (const call of model.calls) {
      const sent = call.messages.reduce((sum, message) => sum + tokensOf(message.text), 0)
      expect(call.messages[0]!.text).toContain('house rules')
      expect(sent).toBeLessThanOrEqual(budget)
      largest = Math.max(largest, sent)
    }
    // The budget was used, not avoided.
    expect(largest).toBeGreaterThan(budget / 2)
  })
})
