import { createMemory, StrataError } from '@strata-memory/core'
import { MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { generated } from '../testing/model-results'
import { aiSdkSummarizer } from './ai-sdk-summarizer'

async function items() {
  const thread = await createMemory().thread('summary')
  await thread.append([
    { role: 'user', content: 'Paint the fence red' },
    {
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'p1', toolName: 'paint', input: { color: 'red' } }],
    },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'p1', toolName: 'paint', output: 'ok' }] },
  ])
  return thread.items()
}

describe('aiSdkSummarizer', () => {
  it("sends Strata's prompt with generateText and returns the summary and structured facts", async () => {
    const model = new MockLanguageModelV4({
      modelId: 'mini',
      doGenerate: generated(
        '## Decisions\n- Painted the fence red\n## Identifiers\n- p1\n## Open work\n- none\n```json\n{"facts": [{"text": "The fence is red", "tags": ["fence"], "confidence": 1.4}, {"bad": true}]}\n```',
      ),
    })
    const summarizer = aiSdkSummarizer({ model, maxFacts: 3 })
    expect(summarizer.name).toBe('ai-sdk:mini')
    const result = await summarizer.summarize(await items(), { tier: 'short-term' })
    expect(result.summary).toBe(
      '## Decisions\n- Painted the fence red\n\n## Identifiers\n- p1\n\n## Open work\n- none',
    )
    expect(result.facts).toEqual([{ text: 'The fence is red', tags: ['fence'], confidence: 1 }])
    const call = model.doGenerateCalls[0]!
    expect(call.providerOptions).toEqual({ strata: { internal: true } })
    expect(call.prompt[0]).toMatchObject({ role: 'system', content: expect.stringContaining('## Decisions') })
    expect(JSON.stringify(call.prompt[1])).toContain('paint({\\"color\\":\\"red\\"})')
  })

  it('turns a failing model into STRATA_SUMMARIZER_FAILED', async () => {
    const model = new MockLanguageModelV4({
      doGenerate: async () => {
        throw new Error('provider down')
      },
    })
    const summarizer = aiSdkSummarizer({ model, timeoutMs: 5_000 })
    let thrown: unknown
    try {
      await summarizer.summarize(await items(), { tier: 'episodic' })
    } catch (error) {
      thrown = error
    }
    expect(StrataError.isInstance(thrown, 'STRATA_SUMMARIZER_FAILED')).toBe(true)
  })

  it('aborts the model call when the summary times out, and fails with STRATA_SUMMARIZER_FAILED', async () => {
    let signal: AbortSignal | undefined
    const model = new MockLanguageModelV4({
      // A provider that hangs until the request is aborted.
      doGenerate: ({ abortSignal }) =>
        new Promise((_, reject) => {
          signal = abortSignal
          abortSignal?.addEventListener('abort', () => reject(abortSignal.reason))
        }),
    })
    const summarizer = aiSdkSummarizer({ model, timeoutMs: 30 })
    let thrown: unknown
    try {
      await summarizer.summarize(await items(), { tier: 'short-term' })
    } catch (error) {
      thrown = error
    }
    expect(StrataError.isInstance(thrown, 'STRATA_SUMMARIZER_FAILED')).toBe(true)
    expect(signal?.aborted).toBe(true)
  })

  it('rejects a missing model and bad options with STRATA_INVALID_OPTIONS', () => {
    const model = new MockLanguageModelV4({ doGenerate: generated('') })
    expect(() => aiSdkSummarizer({ model, timeout: 5 } as never)).toThrow(
      "aiSdkSummarizer(): unknown option 'timeout' (did you mean 'timeoutMs'?)",
    )
    const cases: unknown[] = [
      undefined,
      {},
      { model: undefined },
      { model, maxOutputTokens: 0 },
      { model, name: '' },
      { model, maxFacts: -1 },
      { model, timeoutMs: -5 },
      // Misspelt: refused with the option it looks like, never ignored.
      { model, maxOutputToken: 100 },
    ]
    for (const options of cases) {
      let thrown: unknown
      try {
        aiSdkSummarizer(options as never)
      } catch (error) {
        thrown = error
      }
      expect(StrataError.isInstance(thrown, 'STRATA_INVALID_OPTIONS'), JSON.stringify(options)).toBe(true)
      expect((thrown as Error).message).toMatch(/aiSdkSummarizer\(\)|promptSummarizer\(\)|timeoutMs/)
    }
  })
})
