import { describe, expect, it } from 'vitest'
import { fetchMessages, makePage } from '../testing'
import { countMessageTokens, tokenEstimator } from '../tokens'
import { createMemory } from './create-memory'

// An agent framework's own system prompt, sent beside Strata's context (LangChain's systemMessage, a
// call's system messages in the AI SDK).
const AGENT_PROMPT = `You are a procurement agent. ${'Follow the house rules on vendors, budgets and sources. '.repeat(190)}`
const counter = tokenEstimator()
const promptTokens = countMessageTokens({ content: [{ type: 'text', text: AGENT_PROMPT }] }, counter)

async function longLoop(budget: number) {
  const memory = createMemory({ compaction: { budget: { inputTokens: budget } } })
  const thread = await memory.thread('loop')
  await thread.append({ role: 'user', content: 'Research the vendors and write a report.' })
  for (let step = 0; step < 40; step++)
    await thread.append(fetchMessages(`c${step}`, `https://example.com/${step}`, makePage(2_000, `p${step}`)))
  return thread
}

describe('context({ alongside }): text sent with the context but outside it', () => {
  it('takes its share of the budget: the context plus the text sent alongside stays within it', async () => {
    expect(promptTokens).toBeGreaterThan(1_200)
    const thread = await longLoop(4_000)
    const without = await thread.context()
    // Without it, the context alone fills the budget: with the agent's prompt the request would be over.
    expect(without.stats.contextTokens + promptTokens).toBeGreaterThan(4_000)
    const withIt = await thread.context({ alongside: AGENT_PROMPT })
    expect(withIt.stats.contextTokens + promptTokens).toBeLessThanOrEqual(4_000)
    expect(JSON.stringify(withIt.messages)).not.toContain('house rules')
    expect(withIt.stats.omittedItems).toBeGreaterThanOrEqual(without.stats.omittedItems ?? 0)
  })

  it('a usage report of the context plus the text alongside is no overhead: the budget stays whole', async () => {
    const thread = await longLoop(6_000)
    const sent = await thread.context({ alongside: AGENT_PROMPT })
    await thread.reportUsage({ inputTokens: sent.stats.contextTokens + promptTokens })
    const next = await thread.context({ alongside: AGENT_PROMPT })
    expect(next.stats.inputBudget).toBe(6_000)
  })

  it('over the budget by itself: STRATA_BUDGET_EXCEEDED counting it, and a bad value is a typed error', async () => {
    const thread = await longLoop(4_000)
    const huge = AGENT_PROMPT.repeat(3)
    await expect(thread.context({ alongside: huge })).rejects.toMatchObject({
      code: 'STRATA_BUDGET_EXCEEDED',
      details: { inputBudget: 4_000 },
      message: expect.stringContaining('sent alongside the context'),
    })
    await expect(thread.context({ alongside: 42 as unknown as string })).rejects.toMatchObject({
      code: 'STRATA_INVALID_OPTIONS',
    })
  })
})
