import { describe, expect, it } from 'vitest'
import type { Item } from '../items'
import type { SummarizeOptions, Summarizer } from '../summarizers'
import { createMemory } from './create-memory'

interface Call {
  tier: string
  /** What the summarizer was given: message text, or `<tier>: <text>` for summaries. */
  inputs: string[]
  previous?: string
}

/** Answers `<tier> #<n>` and records what each call was given. */
function recording() {
  const calls: Call[] = []
  const summarizer: Summarizer = {
    name: 'recording',
    async summarize(items: readonly Item[], options: SummarizeOptions) {
      calls.push({
        tier: options.tier,
        inputs: items.map((item) =>
          item.type === 'summary'
            ? `${item.tier}: ${item.text}`
            : item.type === 'message'
              ? (item.content[0] as { text: string }).text
              : item.type,
        ),
        ...(options.previousSummary === undefined ? {} : { previous: options.previousSummary }),
      })
      return { summary: `${options.tier} #${calls.length}`, facts: [] }
    },
  }
  return { summarizer, calls }
}

const chat = (index: number) =>
  index % 2 === 0
    ? { role: 'user' as const, content: `question ${index}` }
    : { role: 'assistant' as const, content: `answer ${index}` }

describe('waterfall long-term summary', () => {
  it('is written from the previous long-term and short-term summaries; every short-term summary stays, with its time', async () => {
    const { summarizer, calls } = recording()
    let now = 1_000
    const memory = createMemory({ summarizer, clock: () => now, compaction: { waterfall: {} } })
    const thread = await memory.thread('long-term')
    for (let index = 0; index < 257; index++) {
      now += 1_000
      await thread.append(chat(index))
      await thread.compact()
    }

    expect(calls.map((call) => call.tier)).toEqual([
      'short-term', // at 129
      'short-term', // at 193
      'long-term',
      'short-term', // at 257
      'long-term',
    ])
    // Short-term: the items outside the immediate window not yet summarized, extending the previous one.
    expect(calls[0]!.inputs).toEqual(Array.from({ length: 64 }, (_, index) => chat(index).content))
    expect(calls[0]!.previous).toBeUndefined()
    expect(calls[1]!.inputs).toEqual(Array.from({ length: 64 }, (_, index) => chat(64 + index).content))
    expect(calls[1]!.previous).toBe('short-term #1')
    // The first long-term summary: from the short-term summary the new one replaces.
    expect(calls[2]).toEqual({ tier: 'long-term', inputs: ['short-term: short-term #1'] })
    // The next: from the previous long-term and the short-term summary replaced now.
    expect(calls[4]).toEqual({
      tier: 'long-term',
      inputs: ['long-term: long-term #3', 'short-term: short-term #2'],
      previous: 'long-term #3',
    })

    const summaries = (await thread.items()).flatMap((item) => (item.type === 'summary' ? [item] : []))
    const shortTerm = summaries.filter((summary) => summary.tier === 'short-term')
    expect(shortTerm.map((summary) => [summary.text, summary.range])).toEqual([
      ['short-term #1', { fromSeq: 1, toSeq: 64 }],
      ['short-term #2', { fromSeq: 65, toSeq: 128 }],
      // Summary items take seqs too: history items 129-192 are at seqs 129-193.
      ['short-term #4', { fromSeq: 129, toSeq: 193 }],
    ])
    // Each kept with the time it was written, in order.
    const times = shortTerm.map((summary) => summary.ts)
    expect(times.every((ts) => typeof ts === 'number' && ts > 1_000)).toBe(true)
    expect([...times].sort((a, b) => a - b)).toEqual(times)
    expect(new Set(times).size).toBe(3)
    const longTerm = summaries.filter((summary) => summary.tier === 'long-term')
    expect(longTerm.map((summary) => [summary.text, summary.range])).toEqual([
      ['long-term #3', { fromSeq: 1, toSeq: 64 }],
      ['long-term #5', { fromSeq: 1, toSeq: 128 }],
    ])

    // The context: long-term, short-term, then the immediate window only.
    const { messages } = await thread.context()
    const texts = messages.map((message) => (message.content[0] as { text: string }).text)
    expect(texts.slice(0, 2)).toEqual([
      '[MEMORY:LONG-TERM]\nlong-term #5',
      '[MEMORY:SHORT-TERM]\nshort-term #4',
    ])
    expect(texts.slice(2)).toEqual(Array.from({ length: 257 - 192 }, (_, index) => chat(192 + index).content))
  })
})
