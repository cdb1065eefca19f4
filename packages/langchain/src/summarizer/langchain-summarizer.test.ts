import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { MemorySaver } from '@langchain/langgraph'
import { createMemory, StrataError } from '@strata-memory/core'
import { createAgent } from 'langchain'
import { describe, expect, it } from 'vitest'
import { strataMiddleware } from '../middleware/strata-middleware'
import { scriptedModel, storedMessages, weather } from '../testing/agent'
import { langchainSummarizer } from './langchain-summarizer'

const SECTIONED = [
  '## Decisions',
  '- SUMMARY-TOKEN planted the trees',
  '## Identifiers',
  '- tree-7',
  '## Open work',
  '- none',
  '```json',
  '{"facts": [{"text": "The garden has apple trees.", "tags": ["garden"], "confidence": 0.8}]}',
  '```',
].join('\n')

describe('langchainSummarizer', () => {
  it('summarizes with sectioned text on a text model', async () => {
    const model = fakeModel().respond(new AIMessage(SECTIONED))
    const summarizer = langchainSummarizer({ model, structured: false })
    const thread = await createMemory().thread('s-1')
    const items = await thread.append([
      { role: 'user', content: 'Plant tree-7.' },
      { role: 'assistant', content: 'Planted.' },
    ])
    const result = await summarizer.summarize(items, { tier: 'episodic' })
    expect(result.summary).toContain('- tree-7')
    expect(result.facts).toEqual([{ text: 'The garden has apple trees.', tags: ['garden'], confidence: 0.8 }])
    expect(summarizer.name).toBe('langchain:fake-model-builder')
    const [call] = model.calls
    expect(call!.messages.map((m) => m.type)).toEqual(['system', 'human'])
    expect(call!.messages[1]!.text).toContain('Plant tree-7.')
  })

  it('uses structured output where the model has it', async () => {
    const model = fakeModel().structuredResponse({
      decisions: ['Planted tree-7'],
      identifiers: ['tree-7'],
      openWork: [],
      facts: [{ text: 'Apple trees grow here.', tags: ['garden'], confidence: 2 }],
    })
    const summarizer = langchainSummarizer({ model })
    const thread = await createMemory().thread('s-2')
    const items = await thread.append({ role: 'user', content: 'Plant tree-7.' })
    const result = await summarizer.summarize(items, { tier: 'scope' })
    expect(result.summary).toBe(
      '## Decisions\n- Planted tree-7\n\n## Identifiers\n- tree-7\n\n## Open work\n- none',
    )
    expect(result.facts).toEqual([{ text: 'Apple trees grow here.', tags: ['garden'], confidence: 1 }])
  })

  it('refuses malformed options with STRATA_INVALID_OPTIONS', () => {
    for (const options of [{}, { model: fakeModel(), name: '' }, { model: fakeModel(), structured: 'yes' }]) {
      expect(() => langchainSummarizer(options as never)).toThrow(StrataError)
    }
    expect(() => langchainSummarizer({ model: fakeModel(), maxFact: 3 } as never)).toThrow(
      "langchainSummarizer(): unknown option 'maxFact' (did you mean 'maxFacts'?)",
    )
  })

  it('in a streamed agent run, a budget compaction’s summarizer calls never stream as messages and are never stored', async () => {
    const summaryModel = fakeModel().respond(new AIMessage(SECTIONED))
    const memory = createMemory({
      compaction: { budget: { inputTokens: 4_000 } },
      summarizer: langchainSummarizer({ model: summaryModel, structured: false }),
    })
    const thread = await memory.thread('s-stream')
    for (let turn = 1; turn <= 6; turn++) {
      await thread.append([
        { role: 'user', content: `Question ${turn}.` },
        { role: 'assistant', content: `Answer ${turn}.` },
      ])
    }
    const model = scriptedModel([
      new AIMessage({
        content: '',
        tool_calls: [{ type: 'tool_call', id: 'w1', name: 'weather', args: { city: 'Oslo' } }],
        usage_metadata: { input_tokens: 3_900, output_tokens: 5, total_tokens: 3_905 },
      }),
      'Oslo is sunny.',
    ])
    const agent = createAgent({
      model,
      tools: [weather],
      checkpointer: new MemorySaver(),
      middleware: [strataMiddleware({ memory })],
    })
    const streamed: string[] = []
    const stream = await agent.stream(
      { messages: [new HumanMessage('Weather in Oslo?')] },
      { configurable: { thread_id: 's-stream' }, streamMode: 'messages' },
    )
    for await (const [message] of stream as AsyncIterable<[BaseMessage]>) streamed.push(message.text)

    expect(summaryModel.callCount).toBe(1)
    expect(streamed.join('')).toContain('Oslo is sunny.')
    expect(streamed.join('')).not.toContain('SUMMARY-TOKEN')
    // The second call saw the episodic summary; the thread holds no summarizer message.
    expect(model.calls[1]!.messages[0]!.text).toContain('SUMMARY-TOKEN')
    expect((await storedMessages(thread)).join('\n')).not.toContain('SUMMARY-TOKEN')
  })
})
