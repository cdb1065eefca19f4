import type { LanguageModelV4Prompt } from '@ai-sdk/provider'
import { createMemory, type Item, type Summarizer } from '@strata-memory/core'
import { generateText, type ModelMessage, streamText, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { aiSdkSummarizer } from '../summarizer/ai-sdk-summarizer'
import { generated, streamed } from '../testing/model-results'
import { strataMiddleware } from './strata-middleware'

const SUMMARY = `## Decisions
- Answered the first questions as EPISODE-TEXT
## Identifiers
- none
## Open work
- none
\`\`\`json
{"facts": [{"text": "The user counts questions", "confidence": 0.8}]}
\`\`\``

const messageTexts = (items: readonly Item[]) =>
  items.flatMap((item) =>
    item.type === 'message'
      ? item.content.flatMap((part) => (part.type === 'text' ? [`${item.role}: ${part.text}`] : []))
      : [],
  )

const promptTexts = (prompt: LanguageModelV4Prompt) =>
  prompt.flatMap((message) =>
    typeof message.content === 'string'
      ? [`${message.role}: ${message.content}`]
      : message.content.flatMap((part) => (part.type === 'text' ? [`${message.role}: ${part.text}`] : [])),
  )

describe('usage reported through the middleware drives budget compaction', () => {
  it("a streamed call's usage over the threshold compacts before the next call; the summarizer's call is internal, and re-sent history is not stored again", async () => {
    const summaryModel = new MockLanguageModelV4({ modelId: 'mini', doGenerate: generated(SUMMARY) })
    let summarizer: Summarizer | undefined
    // Input budget 10 000 − 1 000 − 2 000 = 7 000; compaction is asked for above 5 600 reported tokens.
    const memory = createMemory({
      summarizer: { name: 'late', summarize: (items, options) => summarizer!.summarize(items, options) },
      compaction: { budget: { maxContextTokens: 10_000, maxOutputTokens: 1_000 } },
    })
    // Wrapped like the chat model: the summarizer's own call must pass the middleware untouched.
    summarizer = aiSdkSummarizer({
      model: wrapLanguageModel({
        model: summaryModel,
        middleware: strataMiddleware({ memory, threadId: 'budget' }),
      }),
    })

    // The provider counts the prompt it was sent (here: about a token per 4 characters); the 7th call
    // adds 6 000 tokens the memory did not send (tool definitions, say): over the threshold.
    let call = 0
    const extra = [0, 0, 0, 0, 0, 0, 6_000, 0, 0]
    const reported: number[] = []
    const usage = (prompt: LanguageModelV4Prompt) => {
      reported.push(Math.ceil(JSON.stringify(prompt).length / 4) + extra[call++]!)
      return { inputTokens: reported.at(-1)! }
    }
    const chatModel = new MockLanguageModelV4({
      doGenerate: async ({ prompt }) => generated(`answer ${call + 1}`, usage(prompt)),
      doStream: async ({ prompt }) => streamed(`answer ${call + 1}`, usage(prompt)),
    })
    const model = wrapLanguageModel({
      model: chatModel,
      middleware: strataMiddleware({ memory, threadId: 'budget' }),
    })
    const thread = await memory.thread('budget')

    // The app re-sends the whole history every call, as a route handler does.
    const history: ModelMessage[] = []
    const ask = async (text: string, stream: boolean) => {
      history.push({ role: 'user', content: text })
      const responseMessages = stream
        ? await streamText({ model, messages: [...history] }).responseMessages
        : (await generateText({ model, messages: [...history] })).responseMessages
      history.push(...responseMessages)
    }
    for (let index = 1; index <= 6; index++) await ask(`question ${index}`, index % 2 === 0)
    expect(summaryModel.doGenerateCalls).toHaveLength(0)
    // The 7th call streams; its finish part reports over 6 000 input tokens: over the threshold.
    await ask('question 7', true)
    const status = await thread.status()
    expect(status.lastUsage).toMatchObject({ inputTokens: reported[6] })
    expect(reported[6]).toBeGreaterThan(5_600)

    // It compacts as the usage comes in, before the next call's context is built: turns older than the
    // raw tail (4 turns before the current 7th) are summarized and archived, and the model sees the
    // summary, not those turns.
    expect(status.compaction.last).toMatchObject({ trigger: 'budget', itemsArchived: 4 })
    await ask('question 8', false)
    expect(summaryModel.doGenerateCalls).toHaveLength(1)
    expect(summaryModel.doGenerateCalls[0]!.providerOptions).toBeUndefined()
    const sent = promptTexts(chatModel.doGenerateCalls.at(-1)!.prompt)
    expect(sent[0]).toBe('system: [MEMORY:SEMANTIC]\n- The user counts questions')
    expect(sent[1]).toMatch(/^system: \[MEMORY:EPISODIC\]\n1\) .*EPISODE-TEXT/s)
    expect(sent.slice(2)).toEqual([
      'user: question 3',
      'assistant: answer 3',
      'user: question 4',
      'assistant: answer 4',
      'user: question 5',
      'assistant: answer 5',
      'user: question 6',
      'assistant: answer 6',
      'user: question 7',
      'assistant: answer 7',
      'user: question 8',
    ])

    // One more call with the whole history, archived turns included: nothing is stored twice.
    await ask('question 9', true)
    const archived = await memory.store.readArchive('budget')
    const active = await thread.items()
    const stored = messageTexts([...archived, ...active].sort((a, b) => a.seq - b.seq))
    expect(stored).toEqual(
      Array.from({ length: 9 }, (_, index) => [
        `user: question ${index + 1}`,
        `assistant: answer ${index + 1}`,
      ]).flat(),
    )
    expect(messageTexts(archived)).toHaveLength(4)
    // The summarizer's prompt and answer were never stored as messages.
    expect(JSON.stringify(active.filter((item) => item.type === 'message'))).not.toContain('EPISODE-TEXT')
    expect(await memory.listThreads()).toEqual(['budget'])
  })
})
