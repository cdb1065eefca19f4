import { describe, expect, it } from 'vitest'
import { memoryTools } from '../content'
import type { ContextMessage } from '../context'
import type { Item } from '../items'
import type { SummarizedFact, SummarizeOptions, Summarizer } from '../summarizers'
import { createMemory } from './create-memory'

/**
 * A summarizer whose n-th episodic call answers `episode n` and six new facts `fact n.1`…`fact n.6`,
 * plus whatever `extra(n)` adds.
 */
function numbered(extra: (call: number) => SummarizedFact[] = () => []) {
  const known: (readonly string[] | undefined)[] = []
  let call = 0
  const summarizer: Summarizer = {
    name: 'numbered',
    async summarize(_items: readonly Item[], options: SummarizeOptions) {
      call++
      known.push(options.knownFacts)
      return {
        summary: `episode ${call}`,
        facts: [
          ...Array.from({ length: 6 }, (_, index) => ({ text: `fact ${call}.${index + 1}` })),
          ...extra(call),
        ],
      }
    },
  }
  return { summarizer, known }
}

/** Runs `rounds` budget compactions, each over four new turns. */
async function compacted(summarizer: Summarizer, rounds: number) {
  const memory = createMemory({
    summarizer,
    compaction: { budget: { maxContextTokens: 10_000, maxOutputTokens: 1_000, rawTailTurns: 1 } },
  })
  const thread = await memory.thread('slots')
  for (let round = 0; round < rounds; round++) {
    for (let turn = 0; turn < 4; turn++) {
      await thread.append({ role: 'user', content: `question ${round}.${turn}` })
      await thread.append({ role: 'assistant', content: `answer ${round}.${turn}` })
    }
    await thread.compact({ force: true })
  }
  return thread
}

const textOf = (message: ContextMessage) => {
  const [part] = message.content
  return part?.type === 'text' ? part.text : ''
}

describe('memory slots in the context', () => {
  it('show the newest 3 episodic summaries and the newest 20 facts, once each, while all stay stored', async () => {
    const { summarizer } = numbered()
    const thread = await compacted(summarizer, 5)
    const { messages } = await thread.context()
    const semantic = messages.filter((message) => textOf(message).startsWith('[MEMORY:SEMANTIC]'))
    const episodic = messages.filter((message) => textOf(message).startsWith('[MEMORY:EPISODIC]'))
    expect(semantic).toHaveLength(1)
    expect(episodic).toHaveLength(1)
    expect(textOf(episodic[0]!)).toBe('[MEMORY:EPISODIC]\n1) episode 3\n2) episode 4\n3) episode 5')
    // 30 facts were extracted; the newest 20 are the last two from call 2 and every fact of calls 3-5.
    const expectedFacts = [2, 3, 4, 5]
      .flatMap((call) => [1, 2, 3, 4, 5, 6].map((index) => `fact ${call}.${index}`))
      .slice(-20)
    expect(textOf(semantic[0]!)).toBe(['[MEMORY:SEMANTIC]', ...expectedFacts.map((f) => `- ${f}`)].join('\n'))
    // Semantic facts come before episodic summaries, right after any system prompt.
    expect(messages.indexOf(semantic[0]!)).toBeLessThan(messages.indexOf(episodic[0]!))

    // Nothing left the memory: the summaries and facts not shown are stored and found by memory_query.
    const items = await thread.items()
    expect(items.flatMap((item) => (item.type === 'summary' ? [item.text] : []))).toEqual([
      'episode 1',
      'episode 2',
      'episode 3',
      'episode 4',
      'episode 5',
    ])
    expect(items.filter((item) => item.type === 'fact')).toHaveLength(30)
    const tools = memoryTools(thread)
    // Each comes first among the summaries (or facts) that share a word with it.
    const oldest = (await tools.memory_query.execute({ text: 'episode 1', type: 'summary' })) as {
      results: object[]
    }
    expect(oldest.results[0]).toMatchObject({ where: 'summary', snippet: 'episode 1' })
    const oldFact = (await tools.memory_query.execute({ text: 'fact 1.1', type: 'fact' })) as {
      results: object[]
    }
    expect(oldFact.results[0]).toMatchObject({ where: 'fact', snippet: 'fact 1.1' })
  })

  it('snapshot() keeps the same limits', async () => {
    const { summarizer } = numbered()
    const thread = await compacted(summarizer, 5)
    const lines = (await thread.snapshot()).split('\n')
    const episodicAt = lines.indexOf('[MEMORY:EPISODIC]')
    const semanticAt = lines.indexOf('[MEMORY:SEMANTIC]')
    const recentAt = lines.indexOf('[RECENT TURNS]')
    expect(lines.slice(episodicAt + 1, semanticAt)).toEqual(['1) episode 3', '2) episode 4', '3) episode 5'])
    expect(lines.slice(semanticAt + 1, recentAt)).toHaveLength(20)
    expect(lines[recentAt - 1]).toBe('- fact 5.6')
  })
})

describe('a fact extracted again', () => {
  it('with a later confidence is one fact in the context and status, and the later confidence is kept', async () => {
    const { summarizer, known } = numbered((call) =>
      call === 1
        ? [{ text: 'The user deploys on Fridays.', confidence: 0.6 }]
        : call === 2
          ? [{ text: 'the user deploys on  FRIDAYS', confidence: 0.95 }]
          : [{ text: 'The user deploys on Fridays', confidence: 0.95 }],
    )
    const thread = await compacted(summarizer, 3)
    // The second and third calls were told the fact is known.
    expect(known[0]).toBeUndefined()
    expect(known[1]).toContain('The user deploys on Fridays.')
    expect(known[2]).toContain('The user deploys on Fridays.')

    const { messages } = await thread.context()
    const semantic = textOf(messages.find((message) => textOf(message).startsWith('[MEMORY:SEMANTIC]'))!)
    expect(semantic.match(/deploys on fridays/gi)).toHaveLength(1)
    const status = await thread.status()
    // 3 × 6 numbered facts + the one fact about Fridays.
    expect(status.compaction.facts).toBe(19)

    const fridays = (await thread.items()).flatMap((item) =>
      item.type === 'fact' && /fridays/i.test(item.text) ? [item] : [],
    )
    // The same fact with the same confidence again (third call) is not written again; the later
    // confidence (second call) is, so it is not lost.
    expect(fridays.map((fact) => fact.confidence)).toEqual([0.6, 0.95])
    expect(new Set(fridays.map((fact) => fact.text))).toEqual(new Set(['The user deploys on Fridays.']))
  })
})
