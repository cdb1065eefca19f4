import { Agent } from '@mastra/core/agent'
import { createMemory } from '@strata-memory/core'
import { describe, expect, it } from 'vitest'
import { promptTokens } from '../testing/agent-harness'
import { scriptedModel } from '../testing/scripted-model'
import { StrataMemory } from './strata-memory'

const INSTRUCTIONS = `You are a procurement agent. ${'Follow the house rules on vendors, budgets and sources. '.repeat(130)}`

describe("the agent's instructions and the token budget", () => {
  it('every request, instructions included, stays within the budget', async () => {
    const budget = 4_000
    const memory = createMemory({ compaction: { budget: { inputTokens: budget } } })
    const turns = 14
    const { model, prompts } = scriptedModel(
      Array.from({ length: turns }, (_, turn) => ({ text: `Noted ${turn + 1}.` })),
    )
    const agent = new Agent({
      id: 'procurement',
      name: 'procurement',
      instructions: INSTRUCTIONS,
      model,
      memory: new StrataMemory({ memory }),
    })
    for (let turn = 1; turn <= turns; turn++) {
      await agent.generate(
        `Vendor ${turn} quote: ${'line item, unit price, delivery date, warranty terms. '.repeat(45)}`,
        { memory: { thread: 'procurement', resource: 'ana' } },
      )
    }
    expect(prompts).toHaveLength(turns)
    let largest = 0
    for (const prompt of prompts) {
      expect(JSON.stringify(prompt[0])).toContain('house rules')
      const sent = promptTokens(prompt)
      expect(sent).toBeLessThanOrEqual(budget)
      largest = Math.max(largest, sent)
    }
    expect(largest).toBeGreaterThan(budget / 2)
  })
})
