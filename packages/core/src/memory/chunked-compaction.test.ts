import { describe, expect, it } from 'vitest'
import type { CompactionEndEvent } from '../events'
import type { Item, MessageItem, SummaryItem } from '../items'
import { inMemoryStore } from '../stores'
import { storeWithOverrides } from '../stores/store-overrides'
import { patternSummarizer, type Summarizer } from '../summarizers'
import { createMemory } from './create-memory'

/** The pattern summarizer, each episodic summary held until the test lets one through (roll-ups go on). */
function steppedSummarizer() {
  const pattern = patternSummarizer()
  const waiting: (() => void)[] = []
  const summarizer: Summarizer = {
    name: 'stepped',
    async summarize(items, options) {
      if (options.tier !== 'episodic') return pattern.summarize(items, options)
      await new Promise<void>((resolve) => waiting.push(resolve))
      return pattern.summarize(items, options)
    },
  }
  /** Lets the oldest waiting call go on, once one is waiting (false when none came within 10 s). */
  const step = async (waitMs = 10_000): Promise<boolean> => {
    const until = Date.now() + waitMs
    while (waiting.length === 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 2))
    const next = waiting.shift()
    next?.()
    return next !== undefined
  }
  return { summarizer, step }
}

/** One turn: a question, a tool call and its result, an answer. */
const turn = (index: number) => [
  { role: 'user' as const, content: `Please check order PO-${1000 + index} for me, it is urgent.` },
  {
    role: 'assistant' as const,
    content: [
      { type: 'tool-call' as const, toolCallId: `call_${index}`, toolName: 'lookup', input: { id: index } },
    ],
  },
  {
    role: 'tool' as const,
    content: [
      {
        type: 'tool-result' as const,
        toolCallId: `call_${index}`,
        toolName: 'lookup',
        output: { rows: Array.from({ length: 6 }, (_, row) => `row ${row} of order ${index}`) },
      },
    ],
  },
  { role: 'assistant' as const, content: `Order PO-${1000 + index} totals ${index}.00 EUR.` },
]

/** Every tool result has its call before it, and every call its result, in the messages. */
function pairsWhole(messages: readonly { content: unknown }[]): boolean {
  const calls = new Set<string>()
  const results = new Set<string>()
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue
    for (const part of message.content as { type: string; toolCallId?: string }[]) {
      if (part.type === 'tool-call') calls.add(part.toolCallId!)
      if (part.type === 'tool-result') {
        if (!calls.has(part.toolCallId!)) return false
        results.add(part.toolCallId!)
      }
    }
  }
  return [...calls].every((id) => results.has(id))
}

describe('a first compaction of a long thread runs in chunks', () => {
  it('each chunk is one committed step; appends and contexts go on between steps, never over the budget; nothing is lost', async () => {
    const store = inMemoryStore()
    const threadId = 'long'
    // A thread that grew without a budget: 150 turns, 600 items, never compacted.
    const plain = createMemory({ store })
    const grown = await plain.thread(threadId)
    for (let index = 0; index < 150; index++) await grown.append(turn(index))
    await plain.close()

    const { summarizer, step } = steppedSummarizer()
    const inputTokens = 3_000
    const memory = createMemory({
      store,
      summarizer,
      compaction: { budget: { inputTokens, rawTailTurns: 2, chunkItems: 40 } },
    })
    const ends: CompactionEndEvent[] = []
    memory.on('compaction-end', (event) => ends.push(event))
    const thread = await memory.thread(threadId)
    // A write over the threshold starts the compaction in the background.
    await thread.append(turn(150))
    let appended = 151
    let interleaved = 0
    for (let round = 0; round < 200; round++) {
      expect(await step()).toBe(true)
      // Asked while a step runs: queued behind it only, they run before the next step.
      const [, { messages, stats }] = await Promise.all([
        thread.append([
          { role: 'user', content: `And order PO-${1000 + appended}?` },
          { role: 'assistant', content: `Order PO-${1000 + appended} is fine.` },
        ]),
        thread.context(),
      ])
      appended++
      const last = ends.at(-1)
      expect(stats.contextTokens).toBeLessThanOrEqual(inputTokens)
      expect(pairsWhole(messages)).toBe(true)
      if (last?.chunksLeft === undefined) break
      // Served between two steps of the compaction, not after it.
      interleaved++
    }
    // A compaction the appends above asked for may follow: let it through too.
    let settled = false
    const done = thread.settled().then(() => {
      settled = true
    })
    while (!settled) await step(20)
    await done

    const steps = ends.filter((event) => event.chunksLeft !== undefined)
    // 600 items less the raw tail, 40 a chunk: many steps, counting down, each with its own summary.
    expect(steps.length).toBeGreaterThanOrEqual(10)
    expect(interleaved).toBeGreaterThanOrEqual(10)
    const left = steps.map((event) => event.chunksLeft!)
    expect(left).toEqual([...left].sort((a, b) => b - a))
    for (const event of steps) {
      expect(event.itemsRead).toBeGreaterThanOrEqual(40)
      expect(event.summary?.covers?.length).toBeGreaterThan(0)
    }

    const active = await thread.items()
    const archived = await store.readArchive(threadId)
    // Nothing is lost: every seq is in the archive or the active log, once.
    const seqs = [...archived, ...active].map((item) => item.seq).sort((a, b) => a - b)
    expect(new Set(seqs).size).toBe(seqs.length)
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, index) => index + 1))
    // Every item a chunk's summary covers is archived, and every archived message of the old thread too.
    const archivedSeqs = new Set(archived.map((item) => item.seq))
    for (const summary of [...archived, ...active].filter(
      (item): item is SummaryItem => item.type === 'summary' && item.covers !== undefined,
    )) {
      for (const { fromSeq, toSeq } of summary.covers!)
        for (let seq = fromSeq; seq <= toSeq; seq++) expect(archivedSeqs.has(seq)).toBe(true)
    }
    const messages = active.filter(
      (item: Item) => item.type === 'message',
    ) as readonly Item[] as MessageItem[]
    expect(messages.length).toBeLessThan(100)
    // The calls and results left active are whole.
    expect(pairsWhole(messages)).toBe(true)
    await memory.close()
  }, 60_000)
})

describe('the archives of a long first compaction', () => {
  it('go to the store a few times, not once a step: what a store keeps active over them all stays linear', async () => {
    const base = inMemoryStore()
    const threadId = 'long'
    const plain = createMemory({ store: base })
    const grown = await plain.thread(threadId)
    for (let index = 0; index < 150; index++) await grown.append(turn(index))
    await plain.close()

    // Each archive call, and the active items the store keeps after it (what a file store rewrites).
    const kept: number[] = []
    const store = storeWithOverrides(
      base,
      new Map<PropertyKey, unknown>([
        [
          'archive',
          async (...args: Parameters<typeof base.archive>) => {
            const moved = await base.archive(...args)
            kept.push((await base.head(threadId)).activeCount)
            return moved
          },
        ],
      ]),
    )
    const memory = createMemory({
      store,
      compaction: { budget: { inputTokens: 3_000, rawTailTurns: 2, chunkItems: 40 } },
    })
    const ends: CompactionEndEvent[] = []
    memory.on('compaction-end', (event) => ends.push(event))
    const thread = await memory.thread(threadId)
    await thread.append(turn(150))
    await thread.settled()

    const steps = ends.filter((event) => event.chunksLeft !== undefined).length + 1
    expect(steps).toBeGreaterThanOrEqual(10)
    // A step's covered items wait until they are as many as the active ones: a few archives in all.
    expect(kept.length).toBeLessThanOrEqual(Math.ceil(Math.log2(steps)) + 2)
    // Not all at the end: once as many wait as stay active, they go (the store's log shrinks as it goes).
    expect(kept.length).toBeGreaterThanOrEqual(3)
    expect(kept.reduce((sum, count) => sum + count, 0)).toBeLessThanOrEqual(2 * 604)
    // Every step's items reached the archive by the end, and the events count each once.
    const archived = await base.readArchive(threadId)
    const active = await base.read(threadId)
    const seqs = [...archived, ...active].map((item) => item.seq).sort((a, b) => a - b)
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, index) => index + 1))
    expect(ends.reduce((sum, event) => sum + (event.itemsArchived ?? 0), 0)).toBe(archived.length)
    expect(active.length).toBeLessThan(60)
    // The views never showed the waiting items: the context is within the budget, the thread whole.
    const { stats } = await thread.context()
    expect(stats.contextTokens).toBeLessThanOrEqual(3_000)
    await memory.close()
  })
})
