import { describe, expect, it } from 'vitest'
import type { CompactionEndEvent } from '../events'
import type { MessageItem } from '../items'
import { inMemoryStore } from '../stores'
import { MESSAGE_OVERHEAD_TOKENS, type TokenCounter, tokenEstimator } from '../tokens'
import { createMemory } from './create-memory'

/** The estimator under a name of its own, counting the texts it is given. */
function countingCounter() {
  const estimator = tokenEstimator()
  const counted = { texts: 0 }
  const counter: TokenCounter = {
    name: 'counting',
    version: '1',
    count: (text) => {
      counted.texts++
      return estimator.count(text)
    },
  }
  return { counter, counted }
}

const turn = (index: number) => [
  { role: 'user' as const, content: `Please check order PO-${1000 + index}, it is urgent.` },
  { role: 'assistant' as const, content: `Order PO-${1000 + index} ships on day ${index % 28}.` },
]

describe("a budget's history count on a reopened thread", () => {
  it('takes each stored message from the counts stored with it, not by counting its text again, and gets the same total', async () => {
    const store = inMemoryStore()
    const { counter, counted } = countingCounter()
    const writer = await createMemory({ store, tokenCounter: counter }).thread('t')
    for (let index = 0; index < 300; index++) await writer.append(turn(index))
    const messages = (await store.read('t')).filter((item): item is MessageItem => item.type === 'message')
    // What counting every message again gives: the overhead, and each part's stored count.
    const expected = messages.reduce(
      (sum, item) => sum + MESSAGE_OVERHEAD_TOKENS + item.tokens!.parts.reduce((a, b) => a + b, 0),
      0,
    )

    // A new process gives the thread a budget: its first compaction counts the whole history.
    const memory = createMemory({
      store,
      tokenCounter: counter,
      compaction: { budget: { inputTokens: 2_000 } },
    })
    const ends: CompactionEndEvent[] = []
    memory.on('compaction-end', (event) => ends.push(event))
    const thread = await memory.thread('t')
    counted.texts = 0
    await thread.append({ role: 'user', content: 'Where were we?' })
    await thread.settled()
    expect(ends.length).toBeGreaterThan(0)
    const first = ends[0]!
    // The request appended before it is part of the history it counted.
    const request = MESSAGE_OVERHEAD_TOKENS + counter.count('Where were we?')
    expect(first.tokensBefore).toBe(expected + request)
    // Texts counted: the new request, and what the compaction wrote; never the 600 stored messages.
    expect(counted.texts).toBeLessThan(100)
  })
})
