import { describe, expect, it } from 'vitest'
import { memoryTools } from '../content'
import type { SummarizedFact, Summarizer } from '../summarizers'
import { createMemory } from './create-memory'

/** A summarizer giving the facts `factsOf(call)` and recording the known facts it was told. */
function scripted(factsOf: (call: number) => SummarizedFact[]) {
  const known: (readonly string[] | undefined)[] = []
  let call = 0
  const summarizer: Summarizer = {
    name: 'scripted',
    summarize: async (_items, options) => {
      known.push(options.knownFacts)
      call++
      return { summary: `episode ${call}`, facts: factsOf(call) }
    },
  }
  return { summarizer, known }
}

async function compactedThread(summarizer: Summarizer, rounds: number, id: string) {
  const memory = createMemory({
    summarizer,
    compaction: { budget: { maxOutputTokens: 1_000, rawTailTurns: 1 } },
  })
  const thread = await memory.thread(id)
  for (let round = 0; round < rounds; round++) {
    for (let turn = 0; turn < 3; turn++) {
      await thread.append({ role: 'user', content: `question ${round}.${turn}` })
      await thread.append({ role: 'assistant', content: `answer ${round}.${turn}` })
    }
    await thread.compact({ force: true })
  }
  return thread
}

const semanticOf = async (thread: Awaited<ReturnType<typeof compactedThread>>) => {
  const { messages } = await thread.context()
  const slot = messages.find((message) => {
    const first = message.content[0]
    return first?.type === 'text' && first.text.startsWith('[MEMORY:SEMANTIC]')
  })
  return slot === undefined ? [] : (slot.content[0] as { text: string }).text.split('\n').slice(1)
}

describe('facts a context recalls', () => {
  it('memory_query finds a fact extracted twice with a later confidence once', async () => {
    const { summarizer } = scripted((call) => [
      { text: 'The user deploys on Fridays.', confidence: call === 1 ? 0.6 : 0.95 },
    ])
    const thread = await compactedThread(summarizer, 2, 'fact-twice')
    expect((await thread.status()).compaction.facts).toBe(1)
    const found = await memoryTools(thread).memory_query.execute({ type: 'fact', text: 'fridays' })
    expect(found).toMatchObject({ results: [{ where: 'fact' }] })
    expect((found as { results: unknown[] }).results).toHaveLength(1)
  })

  it('the summarizer is told only the facts the context shows; one that dropped out and is found again is recent again', async () => {
    // Call 1: the fact about Fridays and 5 others; calls 2-5: 5 new facts each (25 more, so Fridays
    // drops out of the 20 shown); call 6: Fridays again, same confidence.
    const { summarizer, known } = scripted((call) => {
      if (call === 6) return [{ text: 'the user deploys on fridays', confidence: 0.9 }]
      const own = Array.from({ length: 5 }, (_, index) => ({
        text: `Fact ${call}.${index}`,
        confidence: 0.5,
      }))
      return call === 1 ? [{ text: 'The user deploys on Fridays.', confidence: 0.9 }, ...own] : own
    })
    const thread = await compactedThread(summarizer, 5, 'fact-recency')
    expect(await semanticOf(thread)).not.toContain('- The user deploys on Fridays.')
    expect(await semanticOf(thread)).toHaveLength(20)

    for (let turn = 0; turn < 3; turn++) {
      await thread.append({ role: 'user', content: `late question ${turn}` })
      await thread.append({ role: 'assistant', content: `late answer ${turn}` })
    }
    await thread.compact({ force: true })

    // The sixth call was told the 20 facts shown, not the 26 stored.
    expect(known[5]).toHaveLength(20)
    expect(known[5]).not.toContain('The user deploys on Fridays.')
    // Found again, the fact is written again (as first written) and is the newest fact shown.
    const semantic = await semanticOf(thread)
    expect(semantic).toHaveLength(20)
    expect(semantic.at(-1)).toBe('- The user deploys on Fridays.')
    expect((await thread.status()).compaction.facts).toBe(26)
  })

  it('a fact the context shows, found again with the same confidence, is not written again', async () => {
    const { summarizer, known } = scripted(() => [{ text: 'Uses pnpm.', confidence: 0.8 }])
    const thread = await compactedThread(summarizer, 3, 'fact-shown')
    expect(known.slice(1)).toEqual([['Uses pnpm.'], ['Uses pnpm.']])
    const facts = (await thread.items()).filter((item) => item.type === 'fact')
    expect(facts).toHaveLength(1)
  })
})
