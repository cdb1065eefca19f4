import { afterEach, describe, expect, it, vi } from 'vitest'
import { StrataError } from '../errors'
import type { Item } from '../items'
import type { CompleteInput } from './prompt-summarizer'
import { promptSummarizer } from './prompt-summarizer'

const items: Item[] = [
  {
    id: 'a',
    seq: 1,
    ts: 1,
    level: 'task',
    turnId: 'turn_0001',
    type: 'message',
    role: 'user',
    content: [{ type: 'text', text: 'Rename ticket JIRA-4471' }],
  },
]

const answer = `## Decisions
- Renamed the ticket
## Identifiers
- JIRA-4471
## Open work
- none
\`\`\`json
{"facts": [{"text": "Tickets live in JIRA", "tags": ["tools"], "confidence": 0.8}, {"text": "two"}, {"text": "three"}]}
\`\`\``

describe('promptSummarizer', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('sends our prompt with a signal to complete and parses the answer', async () => {
    const calls: CompleteInput[] = []
    const summarizer = promptSummarizer({
      name: 'scripted-model',
      maxFacts: 2,
      complete: async (input) => {
        calls.push(input)
        return answer
      },
    })
    expect(summarizer.name).toBe('scripted-model')
    const controller = new AbortController()
    const result = await summarizer.summarize(items, {
      tier: 'long-term',
      previousSummary: 'Earlier: set up the board',
      signal: controller.signal,
    })
    expect(calls).toHaveLength(1)
    const [call] = calls
    expect(call?.system).toContain('## Identifiers')
    expect(call?.system).toContain('Facts: at most 2 durable statements')
    expect(call?.prompt).toContain('Write a long-term summary.')
    expect(call?.prompt).toContain('<previous-summary>\nEarlier: set up the board\n</previous-summary>')
    expect(call?.prompt).toContain('#1 user: Rename ticket JIRA-4471')
    expect(call?.signal).toBeInstanceOf(AbortSignal)
    expect(call?.signal.aborted).toBe(false)
    // The caller's abort reaches the model call through the passed signal.
    controller.abort()
    expect(call?.signal.aborted).toBe(true)
    expect(result).toEqual({
      summary: '## Decisions\n- Renamed the ticket\n\n## Identifiers\n- JIRA-4471\n\n## Open work\n- none',
      facts: [{ text: 'Tickets live in JIRA', tags: ['tools'], confidence: 0.8 }, { text: 'two' }],
    })
  })

  it('times out after 60 s by default and aborts the model call', async () => {
    vi.useFakeTimers()
    let signal: AbortSignal | undefined
    const summarizer = promptSummarizer({
      name: 'slow',
      complete: (input) => {
        signal = input.signal
        return new Promise<string>(() => {})
      },
    })
    const failed = summarizer.summarize(items, { tier: 'episodic' }).catch((error: unknown) => error)
    await vi.advanceTimersByTimeAsync(60_000)
    const error = await failed
    expect(StrataError.isInstance(error, 'STRATA_SUMMARIZER_FAILED')).toBe(true)
    expect((error as StrataError).details).toEqual({ reason: 'timeout', summarizer: 'slow' })
    expect(signal?.aborted).toBe(true)
    expect(vi.getTimerCount()).toBe(0)
  })

  it('fails with reason error when the answer is unusable', async () => {
    const summarizer = promptSummarizer({ name: 'garbage', complete: async () => '   ' })
    const error = await summarizer.summarize(items, { tier: 'scope' }).catch((caught: unknown) => caught)
    expect(StrataError.isInstance(error, 'STRATA_SUMMARIZER_FAILED')).toBe(true)
    expect((error as StrataError).details.reason).toBe('error')
    expect(StrataError.isInstance((error as StrataError).cause, 'STRATA_SUMMARIZER_FAILED')).toBe(true)
  })

  it('refuses invalid options', () => {
    expect(() => promptSummarizer({ name: 'x', complete: undefined as never })).toThrow(
      /complete must be a function/,
    )
    expect(() => promptSummarizer({ name: 'x', complete: async () => '', maxFacts: -1 })).toThrow(/maxFacts/)
    expect(() => promptSummarizer({ name: 'x', complete: async () => '', timeoutMs: 0 })).toThrow(/timeoutMs/)
  })
})
