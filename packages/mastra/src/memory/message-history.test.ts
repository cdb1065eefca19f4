import { Agent } from '@mastra/core/agent'
import { createMemory, type Memory } from '@strata-memory/core'
import { describe, expect, it } from 'vitest'
import { strataErrorOf } from '../errors/strata-error-of'
import { promptLines, promptTokens } from '../testing/agent-harness'
import { type ScriptedStep, scriptedModel } from '../testing/scripted-model'
import { StrataMemory, type StrataMemoryOptions } from './strata-memory'

/**
 * A real agent without tools (no tool definitions are sent beside the prompt), so the prompt the model
 * receives is all the provider counts against the budget.
 */
function strataAgent(
  memory: Memory,
  steps: ScriptedStep[],
  options: Omit<StrataMemoryOptions, 'memory'> = {},
) {
  const { model, prompts } = scriptedModel(steps)
  const strata = new StrataMemory({ memory, tools: false, ...options })
  const agent = new Agent({
    id: 'gardener',
    name: 'gardener',
    instructions: 'Be brief.',
    model,
    memory: strata,
  })
  return { agent, prompts, strata }
}

const call = { memory: { thread: 'ana/long-chat', resource: 'ana' } }

/** A question of about 150 tokens: 25 turns of them are far over the budgets below. */
const question = (index: number) =>
  `Question ${index}: ${'what about the tomatoes and the basil '.repeat(20)}`

/** Answers that report the prompt they received as the provider would: its tokens. */
const answers = (count: number): ScriptedStep[] =>
  Array.from({ length: count }, (_, index) => (prompt) => ({
    text: `Answer ${index}: ${'water them at dawn '.repeat(15)}`,
    inputTokens: promptTokens(prompt),
  }))

describe("Mastra's messageHistory: { maxTokens } is the thread's input budget", () => {
  it('every prompt of a long thread fits maxTokens; old turns are compacted, none refused or lost', async () => {
    const memory = createMemory()
    const { agent, prompts, strata } = strataAgent(memory, answers(26), {
      options: { messageHistory: { maxTokens: 1_500 } },
    })
    for (let index = 0; index < 25; index++) {
      const result = await agent.generate(question(index), call)
      expect(result.text).toContain(`Answer ${index}:`)
    }
    for (const prompt of prompts) expect(promptTokens(prompt)).toBeLessThanOrEqual(1_500)
    // The newest turns are there; the oldest left the context for a summary of them.
    await strata.settled()
    await agent.generate('Where are we?', call)
    const last = promptLines(prompts.at(-1)!)
    expect(last.at(-1)).toBe('user: Where are we?')
    expect(last.join('\n')).toMatch(/\[MEMORY:(EPISODIC|SEMANTIC)\]/)
    // No raw message of the first turn is sent (a summary may quote it: the memory lines are system ones).
    expect(last.filter((line) => !line.startsWith('system:')).join('\n')).not.toContain('Question 0:')
    // Budget compaction archived the old turns; nothing was lost: every message is stored.
    const thread = await strata.thread('ana/long-chat')
    expect((await memory.store.readArchive(thread.id)).length).toBeGreaterThan(0)
    const stored = [...(await memory.store.readArchive(thread.id)), ...(await thread.items())].filter(
      (item) => item.type === 'message',
    )
    expect(stored).toHaveLength(52)
    const { messages } = await strata.recall({ threadId: 'ana/long-chat', perPage: false })
    expect(messages).toHaveLength(52)
  }, 30_000)

  it('without it the same thread sends its whole history (the budget is what keeps it small)', async () => {
    const memory = createMemory()
    const { agent, prompts } = strataAgent(memory, answers(20))
    for (let index = 0; index < 20; index++) await agent.generate(question(index), call)
    expect(promptTokens(prompts.at(-1)!)).toBeGreaterThan(2_000)
    expect(promptLines(prompts.at(-1)!).join('\n')).toContain('Question 0:')
  }, 20_000)

  it("a call's messageHistory wins over the memory's, for that call; the next call has the memory's again", async () => {
    const memory = createMemory()
    const { agent, prompts } = strataAgent(memory, answers(16), {
      options: { messageHistory: { maxTokens: 3_000 } },
    })
    for (let index = 0; index < 14; index++) await agent.generate(question(index), call)
    expect(promptTokens(prompts.at(-1)!)).toBeGreaterThan(900)
    await agent.generate('Short, please.', {
      memory: { ...call.memory, options: { messageHistory: { maxTokens: 900 } } },
    })
    expect(promptTokens(prompts.at(-1)!)).toBeLessThanOrEqual(900)
    expect(promptLines(prompts.at(-1)!).at(-1)).toBe('user: Short, please.')
    await agent.generate(question(99), call)
    expect(promptTokens(prompts.at(-1)!)).toBeGreaterThan(900)
    expect(promptTokens(prompts.at(-1)!)).toBeLessThanOrEqual(3_000)
  }, 20_000)

  it('narrows the memory’s own compaction.budget, never widens it', async () => {
    const memory = createMemory({ compaction: { budget: { inputTokens: 1_200 } } })
    const { agent, prompts } = strataAgent(memory, answers(12), {
      options: { messageHistory: { maxTokens: 50_000 } },
    })
    for (let index = 0; index < 12; index++) await agent.generate(question(index), call)
    for (const prompt of prompts) expect(promptTokens(prompt)).toBeLessThanOrEqual(1_200)
  }, 20_000)

  it('works the same by stream', async () => {
    const memory = createMemory()
    const { agent, prompts } = strataAgent(memory, answers(20), {
      options: { messageHistory: { maxTokens: 1_500 } },
    })
    for (let index = 0; index < 20; index++) {
      const stream = await agent.stream(question(index), call)
      expect(await stream.text).toContain(`Answer ${index}:`)
    }
    for (const prompt of prompts) expect(promptTokens(prompt)).toBeLessThanOrEqual(1_500)
  }, 20_000)

  const refused: [string, unknown, RegExp][] = [
    ['atMaxRemoveTokens', { maxTokens: 8_000, atMaxRemoveTokens: 1_000 }, /summaries/],
    ['a maxTokens of 0', { maxTokens: 0 }, /whole number of tokens/],
    ['a maxTokens given as text', { maxTokens: '8000' }, /whole number of tokens/],
  ]
  for (const [name, messageHistory, reason] of refused) {
    it(`${name} is refused with STRATA_INVALID_OPTIONS, nothing stored`, async () => {
      const memory = createMemory()
      const { agent, prompts } = strataAgent(memory, [{ text: 'Never sent.' }])
      const error = await agent
        .generate('Hi', { memory: { ...call.memory, options: { messageHistory: messageHistory as never } } })
        .then(
          () => undefined,
          (caught: unknown) => caught,
        )
      expect(strataErrorOf(error)?.code).toBe('STRATA_INVALID_OPTIONS')
      expect(strataErrorOf(error)?.message).toMatch(reason)
      expect(prompts).toHaveLength(0)
      expect(await memory.listThreads()).toEqual([])
      expect(() => strataAgent(memory, [], { options: { messageHistory: messageHistory as never } })).toThrow(
        reason,
      )
    })
  }
})
