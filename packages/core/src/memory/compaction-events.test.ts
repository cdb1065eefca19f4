import { describe, expect, it } from 'vitest'
import { StrataError } from '../errors'
import type { CompactionEndEvent, CompactionStartEvent } from '../events'
import type { Item } from '../items'
import { inMemoryStore } from '../stores'
import type { SummarizeOptions, Summarizer } from '../summarizers'
import type { TokenCounter } from '../tokens'
import { createMemory } from './create-memory'

/** One token per character: totals the test can work out by hand. */
const chars: TokenCounter = { name: 'chars', count: (text) => text.length }

/** Every message costs 4 tokens besides its text (MESSAGE_OVERHEAD_TOKENS). */
const messageTokens = (items: readonly Item[]) =>
  items.reduce(
    (sum, item) =>
      item.type === 'message'
        ? sum + 4 + item.content.reduce((part, p) => part + (p.type === 'text' ? p.text.length : 0), 0)
        : sum,
    0,
  )

/** A summarizer that takes `workMs` of the injected clock per call, and fails while `fail` is set. */
function timed(clock: { now: number }, workMs: number) {
  const state = { fail: false, calls: 0 }
  const summarizer: Summarizer = {
    name: 'timed',
    async summarize(items: readonly Item[], options: SummarizeOptions) {
      state.calls++
      clock.now += workMs
      if (state.fail) throw new Error('model down')
      return { summary: `${options.tier} ${items[0]?.seq}-${items.at(-1)?.seq}`, facts: [] }
    },
  }
  return { summarizer, state }
}

const chat = (index: number) =>
  index % 2 === 0
    ? { role: 'user' as const, content: `question ${index}` }
    : { role: 'assistant' as const, content: `answer ${index}` }

/** Records compaction-start and compaction-end in the order they were emitted. */
function recorder(memory: ReturnType<typeof createMemory>) {
  const events: (['start', CompactionStartEvent] | ['end', CompactionEndEvent])[] = []
  memory.on('compaction-start', (event) => events.push(['start', event]))
  memory.on('compaction-end', (event) => events.push(['end', event]))
  return events
}

describe('compaction events', () => {
  it('a budget compaction emits start then end with trigger, tokens before and after, items archived and written, and its duration', async () => {
    const clock = { now: 1_000_000 }
    const { summarizer } = timed(clock, 250)
    const store = inMemoryStore()
    const memory = createMemory({
      store,
      summarizer,
      tokenCounter: chars,
      clock: () => clock.now,
      compaction: { budget: { maxContextTokens: 10_000, maxOutputTokens: 1_000, safetyMargin: 1_000 } },
    })
    const events = recorder(memory)
    const thread = await memory.thread('events-budget')
    for (let index = 0; index < 20; index++) await thread.append(chat(index))
    const before = await thread.items()
    // Over the threshold of 6 400 by less than the compaction saves: no warning that it stays over.
    await thread.reportUsage({ inputTokens: 6_500 })
    await thread.context()

    expect(events.map(([kind]) => kind)).toEqual(['start', 'end'])
    const [, start] = events[0]!
    const [, end] = events[1] as ['end', CompactionEndEvent]
    expect(start).toEqual({
      threadId: 'events-budget',
      trigger: 'budget',
      tokensBefore: messageTokens(before),
    })
    const archived = await store.readArchive('events-budget')
    expect(archived).toHaveLength(10)
    const after = await thread.items()
    expect(end).toEqual({
      threadId: 'events-budget',
      trigger: 'budget',
      tokensBefore: messageTokens(before),
      tokensAfter: messageTokens(after),
      itemsArchived: 10,
      // One episodic summary; the summarizer gave no facts.
      itemsWritten: 1,
      // What it cost: the ten items read, one summary and no fact written, one memory item left.
      itemsRead: 10,
      summariesWritten: 1,
      factsWritten: 0,
      memoryItems: 1,
      durationMs: 250,
      summary: expect.objectContaining({ type: 'summary', tier: 'episodic' }),
    })
    expect(end.tokensAfter).toBe(end.tokensBefore - messageTokens(archived))
    // The summary, as stored, keeps the same figures: a chat shows the compaction after a reload.
    const summary = after.find((item) => item.type === 'summary')
    expect(end.summary).toEqual(summary)
    expect(end.summary!.compaction).toEqual({
      trigger: 'budget',
      tokensBefore: end.tokensBefore,
      tokensAfter: end.tokensAfter,
      itemsArchived: 10,
    })
    // The thread's state keeps the last compaction's figures, not the summary.
    expect((await thread.status()).compaction.last).not.toHaveProperty('summary')
  })

  it('compaction by hand is reported with the manual trigger', async () => {
    const clock = { now: 0 }
    const { summarizer } = timed(clock, 5)
    const memory = createMemory({
      summarizer,
      clock: () => clock.now,
      compaction: { budget: { maxContextTokens: 10_000, maxOutputTokens: 1_000 } },
    })
    const events = recorder(memory)
    const thread = await memory.thread('events-manual')
    for (let index = 0; index < 20; index++) await thread.append(chat(index))
    await thread.compact({ force: true })
    expect(events.map(([kind, event]) => [kind, event.trigger])).toEqual([
      ['start', 'manual'],
      ['end', 'manual'],
    ])
    expect(events[1]![1]).toMatchObject({ itemsArchived: 10, durationMs: 5 })
  })

  it('a failed compaction emits start and an end with the error and when it is retried, and changes nothing', async () => {
    const clock = { now: 50_000 }
    const { summarizer, state } = timed(clock, 40)
    state.fail = true
    const memory = createMemory({
      summarizer,
      tokenCounter: chars,
      clock: () => clock.now,
      compaction: {
        budget: { maxContextTokens: 10_000, maxOutputTokens: 1_000 },
        retry: { initialMs: 1_000 },
      },
    })
    const events = recorder(memory)
    const thread = await memory.thread('events-failure')
    for (let index = 0; index < 20; index++) await thread.append(chat(index))
    const before = await thread.items()
    await thread.reportUsage({ inputTokens: 9_999 })
    await thread.context()
    expect(events.map(([kind]) => kind)).toEqual(['start', 'end'])
    const end = events[1]![1] as CompactionEndEvent
    expect(end).toMatchObject({
      trigger: 'budget',
      tokensBefore: messageTokens(before),
      tokensAfter: messageTokens(before),
      itemsArchived: 0,
      itemsWritten: 0,
      durationMs: 40,
      retryAt: clock.now + 1_000,
    })
    expect(StrataError.isInstance(end.error, 'STRATA_SUMMARIZER_FAILED')).toBe(true)
    expect(await thread.items()).toEqual(before)
  })

  it('a waterfall compaction emits start then end, with the waterfall trigger and nothing archived', async () => {
    const clock = { now: 0 }
    const { summarizer } = timed(clock, 7)
    const memory = createMemory({
      summarizer,
      clock: () => clock.now,
      tokenCounter: chars,
      compaction: { waterfall: { window: 4, every: 4 } },
    })
    const events = recorder(memory)
    const thread = await memory.thread('events-waterfall')
    for (let index = 0; index < 9; index++) await thread.append(chat(index))
    await thread.compact()
    expect(events.map(([kind, event]) => [kind, event.trigger])).toEqual([
      ['start', 'waterfall'],
      ['end', 'waterfall'],
    ])
    const end = events[1]![1] as CompactionEndEvent
    expect(end).toMatchObject({ itemsArchived: 0, itemsWritten: 1, durationMs: 7 })
    expect(end.error).toBeUndefined()
    expect(end.tokensBefore).toBeGreaterThan(0)
    // What the waterfall's contexts draw on: the messages of the summary's range became the summary.
    const summary = (await thread.items()).find((item) => item.type === 'summary')
    if (summary?.type !== 'summary') throw new Error('no summary written')
    const summarized = (await thread.items()).filter(
      (item) => item.seq >= summary.range.fromSeq && item.seq <= summary.range.toSeq,
    )
    expect(summarized.length).toBeGreaterThan(0)
    expect(end.tokensBefore - end.tokensAfter).toBe(messageTokens(summarized) - (4 + summary.text.length))
  })
})
