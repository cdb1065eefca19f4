import { describe, expect, it } from 'vitest'
import { StrataError } from '../errors'
import type { CompactionEndEvent } from '../events'
import type { Item } from '../items'
import type { SummarizeOptions, Summarizer } from '../summarizers'
import { countMessageTokens, tokenEstimator } from '../tokens'
import { createMemory } from './create-memory'

function scripted(calls: number[][]): Summarizer {
  return {
    name: 'scripted',
    async summarize(items: readonly Item[], options: SummarizeOptions) {
      calls.push(items.map((item) => item.seq))
      return { summary: `${options.tier} of ${items[0]?.seq}-${items.at(-1)?.seq}`, facts: [] }
    },
  }
}

/** A system prompt of at most `tokens` tokens, and within 2 of it, as the memory's default counter counts it. */
function systemOf(tokens: number): string {
  const counter = tokenEstimator()
  const size = (words: number) =>
    countMessageTokens({ content: [{ type: 'text', text: 'lorem '.repeat(words) }] }, counter)
  let low = 0
  let high = tokens
  while (low < high) {
    const middle = Math.ceil((low + high) / 2)
    if (size(middle) <= tokens) low = middle
    else high = middle - 1
  }
  expect(size(low)).toBeGreaterThanOrEqual(tokens - 2)
  return 'lorem '.repeat(low)
}

describe('the budget re-trigger guard', () => {
  it('a system prompt that alone exceeds the threshold is reported once, not compacted every turn, also with a long history', async () => {
    const calls: number[][] = []
    const summarizer = scripted(calls)
    // Input budget 8 000, threshold 6 400; the system prompt alone is about 7 000 tokens.
    const memory = createMemory({ summarizer, compaction: { budget: { inputTokens: 8_000 } } })
    const ends: CompactionEndEvent[] = []
    memory.on('compaction-end', (event) => ends.push(event))
    const thread = await memory.thread('huge-system-long-history')
    for (let index = 0; index < 20; index++) {
      await thread.append(
        index % 2 === 0
          ? { role: 'user', content: `question ${index}` }
          : { role: 'assistant', content: `answer ${index}` },
      )
    }
    const system = systemOf(7_000)
    for (let turn = 0; turn < 6; turn++) {
      const { stats } = await thread.context({ system })
      expect(stats.contextTokens).toBeLessThanOrEqual(8_000)
      await thread.reportUsage({ inputTokens: stats.contextTokens }) // what the provider reports: over the threshold
      await thread.append({ role: 'user', content: `new question ${turn}` })
      await thread.append({ role: 'assistant', content: `new answer ${turn}` })
    }
    // At most the first compaction (the old turns really are compactable); after it, the system prompt
    // alone keeps the prompt over the threshold: reported once with a warning, not a summarizer call per turn.
    expect(calls.length).toBeLessThanOrEqual(1)
    expect(ends.filter((event) => event.warning !== undefined)).toHaveLength(1)
  })

  it('a system prompt and request alone over the budget are a typed error with the numbers; nothing is written', async () => {
    const memory = createMemory({ compaction: { budget: { inputTokens: 2_000 } } })
    const thread = await memory.thread('over-budget')
    await thread.append({ role: 'user', content: 'hello' })
    const before = await thread.items()
    const error = await thread.context({ system: systemOf(2_500) }).catch((caught: unknown) => caught)
    expect(StrataError.isInstance(error, 'STRATA_BUDGET_EXCEEDED')).toBe(true)
    const { details, message } = error as StrataError<'STRATA_BUDGET_EXCEEDED'>
    expect(details).toMatchObject({ threadId: 'over-budget', inputBudget: 2_000 })
    expect(details.systemTokens).toBeGreaterThan(2_000)
    expect(details.requestTokens).toBeGreaterThan(0)
    expect(message).toContain('input budget of 2000 tokens')
    expect(await thread.items()).toEqual(before)
    // A system prompt that fits leaves room for the request.
    const { stats } = await thread.context({ system: systemOf(1_500) })
    expect(stats.contextTokens).toBeLessThanOrEqual(2_000)
  })

  it('waits for the history to grow by the headroom, then compacts again; a prompt under the threshold lifts the wait', async () => {
    const calls: number[][] = []
    // Input budget 8 000, threshold 6 400, headroom 1 600 tokens; the system prompt is about 6 600.
    const memory = createMemory({
      summarizer: scripted(calls),
      compaction: { budget: { inputTokens: 8_000 } },
    })
    const ends: CompactionEndEvent[] = []
    memory.on('compaction-end', (event) => ends.push(event))
    const thread = await memory.thread('hold-release')
    const system = systemOf(6_600)
    const turn = async (size: number, label: string) => {
      await thread.append({ role: 'user', content: `${label} ${'q '.repeat(size)}` })
      await thread.append({ role: 'assistant', content: `${label} done` })
    }
    for (let index = 0; index < 8; index++) await turn(10, `old ${index}`)
    // The next write after a context with this system prompt finds the estimate over the threshold.
    await thread.context({ system })
    await turn(10, 'first')
    await thread.context({ system })
    expect(calls).toHaveLength(1)
    expect(ends.at(-1)?.warning).toMatch(/still about .* over the threshold of 6400/)
    // The event counts the history; the warning says so, and what else fills the prompt.
    const end = ends.at(-1)!
    expect(end.warning).toContain(
      `the thread's history went from ${end.tokensBefore} to ${end.tokensAfter} tokens, and what is sent beside it (the system prompt, tool definitions, the memory slots)`,
    )

    // Small turns: the history grows by far less than 1 600 tokens, no compaction however often asked.
    for (let index = 0; index < 5; index++) {
      await turn(10, `small ${index}`)
      await thread.context({ system })
    }
    expect(calls).toHaveLength(1)

    // Turns that add more than the headroom: the next write compacts again, without a second warning.
    for (let index = 0; index < 6; index++) await turn(400, `big ${index}`)
    await thread.context({ system })
    expect(calls).toHaveLength(2)
    expect(ends.filter((event) => event.warning !== undefined)).toHaveLength(1)

    // A prompt under the threshold lifts the wait: the next prompt over it compacts at once.
    await thread.context()
    await turn(1, 'short')
    for (let index = 0; index < 5; index++) await turn(10, `after ${index}`)
    await thread.context({ system })
    await turn(10, 'last')
    await thread.context({ system })
    expect(calls).toHaveLength(3)
  })
})
