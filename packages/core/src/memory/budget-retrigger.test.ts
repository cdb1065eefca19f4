import { describe, expect, it } from 'vitest'
import type { CompactionEndEvent } from '../events'
import type { Item } from '../items'
import type { SummarizeOptions, Summarizer } from '../summarizers'
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

describe('the budget re-trigger guard', () => {
  it('a system prompt that alone exceeds the threshold is reported once, not compacted every turn, also with a long history', async () => {
    const calls: number[][] = []
    const summarizer = scripted(calls)
    // Input budget 8 000, threshold 6 400; the system prompt alone is ~25 000 tokens.
    const budget = { maxContextTokens: 10_000, maxOutputTokens: 1_000, safetyMargin: 1_000 }
    const memory = createMemory({ summarizer, compaction: { budget } })
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
    const system = 'x'.repeat(40_000)
    for (let turn = 0; turn < 6; turn++) {
      const { stats } = await thread.context({ system })
      await thread.reportUsage({ inputTokens: stats.contextTokens }) // what the provider reports: over the threshold
      await thread.append({ role: 'user', content: `new question ${turn}` })
      await thread.append({ role: 'assistant', content: `new answer ${turn}` })
    }
    // At most the first compaction (the old turns really are compactable); after it, the system prompt
    // alone keeps the prompt over the threshold: reported once with a warning, not a summarizer call per turn.
    expect(calls.length).toBeLessThanOrEqual(1)
    expect(ends.filter((event) => event.warning !== undefined)).toHaveLength(1)
  })

  it('waits for the history to grow by the headroom, then compacts again; a prompt under the threshold lifts the wait', async () => {
    const calls: number[][] = []
    // Input budget 8 000, threshold 6 400, headroom 1 600 tokens.
    const budget = { maxContextTokens: 10_000, maxOutputTokens: 1_000, safetyMargin: 1_000 }
    const memory = createMemory({ summarizer: scripted(calls), compaction: { budget } })
    const ends: CompactionEndEvent[] = []
    memory.on('compaction-end', (event) => ends.push(event))
    const thread = await memory.thread('hold-release')
    const turn = async (size: number, label: string) => {
      await thread.append({ role: 'user', content: `${label} ${'q '.repeat(size)}` })
      await thread.append({ role: 'assistant', content: `${label} done` })
    }
    for (let index = 0; index < 8; index++) await turn(10, `old ${index}`)
    const over = async () => {
      await thread.context()
      await thread.reportUsage({ inputTokens: 9_000 })
    }
    await over()
    await thread.context()
    expect(calls).toHaveLength(1)
    expect(ends.at(-1)?.warning).toMatch(/still about .* over the threshold of 6400/)

    // Small turns: the history grows by far less than 1 600 tokens, no compaction however often asked.
    for (let index = 0; index < 5; index++) {
      await turn(10, `small ${index}`)
      await over()
    }
    await thread.context()
    expect(calls).toHaveLength(1)

    // Turns that add more than the headroom: the next request compacts again, without a second warning.
    for (let index = 0; index < 6; index++) await turn(400, `big ${index}`)
    await over()
    await thread.context()
    expect(calls).toHaveLength(2)
    expect(ends.filter((event) => event.warning !== undefined)).toHaveLength(1)

    // A prompt under the threshold lifts the wait: the next prompt over it compacts at once.
    await thread.reportUsage({ inputTokens: 1_000 })
    for (let index = 0; index < 5; index++) await turn(10, `after ${index}`)
    await over()
    await thread.context()
    expect(calls).toHaveLength(3)
  })
})
