import { Agent } from '@mastra/core/agent'
import { createMemory, type Item } from '@strata-memory/core'
import { describe, expect, it } from 'vitest'
import { mastraSummarizer } from '../summarizer/mastra-summarizer'
import { promptLines, strataAgent } from '../testing/agent-harness'
import { scriptedModel } from '../testing/scripted-model'
import { StrataMemory } from './strata-memory'

const call = { memory: { thread: 'budget/chat', resource: 'ana' } }

const SUMMARY = [
  '## Decisions',
  'Ana plans a Lisbon trip in May.',
  '## Identifiers',
  'none',
  '## Open work',
  'book the hotel',
  '```json',
  '{"facts": [{"text": "Ana prefers trams to taxis", "tags": ["preference"], "confidence": 0.9}]}',
  '```',
].join('\n')

const textOfItems = (items: Item[]) => JSON.stringify(items)

describe('usage, budget compaction and the summarizer', () => {
  it("reports the last step's input tokens to the thread, not the run's sum", async () => {
    const memory = createMemory()
    const { agent, strata } = strataAgent(memory, [
      { toolCalls: [{ id: 'c1', name: 'weather', input: { city: 'Lisbon' } }], inputTokens: 120 },
      { text: 'Sunny.', inputTokens: 150 },
    ])
    await agent.generate('Weather?', { ...call, maxSteps: 3 })
    const thread = await strata.thread('budget/chat')
    const status = await thread.status()
    expect(status.lastUsage).toMatchObject({ inputTokens: 150, outputTokens: 10 })
  })

  it('a budget compaction the usage triggers shows in the next call; the summarizer’s calls are never stored', async () => {
    const summarizerModel = scriptedModel([{ text: SUMMARY }])
    let strataForSummarizer: StrataMemory | undefined
    // The summarizing agent has a StrataMemory on the same memory: its calls carry no thread and are
    // marked internal, so they pass through it.
    const summarizerAgent = new Agent({
      id: 'summarizer',
      name: 'summarizer',
      instructions: 'Summarize.',
      model: summarizerModel.model,
      memory: () => strataForSummarizer!,
    })
    const memory = createMemory({
      summarizer: mastraSummarizer({ agent: summarizerAgent }),
      compaction: { budget: { inputTokens: 8_000 } },
    })
    strataForSummarizer = new StrataMemory({ memory })
    const answers = Array.from({ length: 7 }, (_, index) => ({
      text: `Answer ${index + 1} about the trip.`,
      // The seventh call's prompt is reported near the budget: compaction is requested.
      inputTokens: index === 6 ? 7_500 : 200,
    }))
    const { agent, prompts, strata } = strataAgent(memory, [...answers, { text: 'Still here.' }])
    for (let index = 0; index < 7; index++) {
      await agent.generate(`Question ${index + 1}: what about day ${index + 1} in Lisbon?`, call)
    }
    const before = promptLines(prompts[6]!)
    expect(before.join('\n')).not.toContain('[MEMORY:EPISODIC]')
    await agent.generate('Where are we?', call)
    const after = promptLines(prompts[7]!)
    expect(after[0]).toBe('system: Be brief.')
    expect(after.join('\n')).toContain('[MEMORY:EPISODIC]')
    expect(after.join('\n')).toContain('Ana plans a Lisbon trip in May.')
    expect(after.join('\n')).toContain('Ana prefers trams to taxis')
    // Old turns left the context; the raw tail and the new request stayed.
    expect(after.join('\n')).not.toContain('Question 1:')
    expect(after.at(-1)).toBe('user: Where are we?')
    expect(summarizerModel.prompts).toHaveLength(1)

    const thread = await strata.thread('budget/chat')
    const everything = [...(await memory.store.readArchive(thread.id)), ...(await thread.items())]
    // The summary is stored as a summary item; no message holds the summarizer's prompt or answer.
    const storedMessages = everything.filter((item) => item.type === 'message')
    expect(storedMessages).toHaveLength(16)
    expect(textOfItems(storedMessages)).not.toContain('Decisions')
    expect(textOfItems(storedMessages)).not.toContain('<known-facts>')
    expect(everything.filter((item) => item.type === 'summary')).toHaveLength(1)
    expect(await memory.listThreads()).toEqual([thread.id])
  })
})
