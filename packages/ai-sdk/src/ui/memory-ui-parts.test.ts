import { createMemory, StrataError, type Summarizer } from '@strata-memory/core'
import {
  createUIMessageStream,
  isStepCount,
  readUIMessageStream,
  streamText,
  type ToolSet,
  tool,
  toUIMessageStream,
  wrapLanguageModel,
} from 'ai'
import { convertReadableStreamToArray, MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { strataMiddleware } from '../middleware/strata-middleware'
import { aiSdkSummarizer } from '../summarizer/ai-sdk-summarizer'
import { generated, streamed, toolCall } from '../testing/model-results'
import { type StrataUIMessage, writeMemoryParts } from './memory-ui-parts'

const SUMMARY_ANSWER = `## Decisions
- Drew the house as SECRET-SUMMARY-TEXT
## Identifiers
- shape_17
## Open work
- none
\`\`\`json
{"facts": [{"text": "The house is red", "tags": ["house"], "confidence": 0.9}]}
\`\`\``

/** A chat whose task closes inside a tool call, with the LLM summarizer on a model wrapped by the middleware. */
async function chatWithTaskExit() {
  const summaryModel = new MockLanguageModelV4({ doGenerate: generated(SUMMARY_ANSWER) })
  let summarizer: Summarizer | undefined
  const memory = createMemory({
    summarizer: { name: 'late', summarize: (items, options) => summarizer!.summarize(items, options) },
  })
  // Even wrapped with the middleware, the summarizer's calls pass through: they are marked internal.
  summarizer = aiSdkSummarizer({
    model: wrapLanguageModel({
      model: summaryModel,
      middleware: strataMiddleware({ memory, threadId: 'chat' }),
    }),
  })
  const thread = await memory.thread('chat')
  await thread.enter('project', { title: 'Website' })
  await thread.enter('task', { title: 'Draw the house' })
  let step = 0
  const chatModel = new MockLanguageModelV4({
    doStream: async () =>
      step++ === 0 ? streamed([toolCall('done-1', 'finish_task', {})]) : streamed('The house is drawn.'),
  })
  const model = wrapLanguageModel({
    model: chatModel,
    middleware: strataMiddleware({ memory, threadId: 'chat' }),
  })
  const tools = {
    finish_task: tool({
      inputSchema: z.object({}),
      execute: async () => {
        await thread.exit({ outcome: 'complete', userFacingMessage: 'Finished: Draw the house' })
        return 'closed'
      },
    }),
  }
  const stream = createUIMessageStream<StrataUIMessage>({
    execute: async ({ writer }) => {
      const stop = writeMemoryParts({ writer, memory, threadId: 'chat' })
      const result = streamText({ model, tools, prompt: 'Draw a house', stopWhen: isStepCount(3) })
      writer.merge(toUIMessageStream<ToolSet, StrataUIMessage>({ stream: result.stream }))
      await result.consumeStream()
      stop()
    },
  })
  return { memory, thread, stream, summaryModel, chatModel }
}

describe('writeMemoryParts', () => {
  it('writes transitions and context stats into the UI stream, and nothing of the summarizer call', async () => {
    const { thread, stream, summaryModel, chatModel } = await chatWithTaskExit()
    const [forChunks, forMessages] = stream.tee()
    const chunks = await convertReadableStreamToArray(forChunks)

    const transitions = chunks.filter((chunk) => chunk.type === 'data-memory-transition')
    expect(transitions).toEqual([
      {
        type: 'data-memory-transition',
        id: expect.any(String),
        data: {
          threadId: 'chat',
          fromLevel: 'task',
          level: 'project',
          reason: 'task-complete',
          title: 'Draw the house',
          text: 'Finished: Draw the house',
          seq: expect.any(Number),
        },
      },
    ])
    // One stats chunk per context built: the chat model's two steps, none for the summarizer's call.
    const metadata = chunks.filter((chunk) => chunk.type === 'message-metadata')
    expect(chatModel.doStreamCalls).toHaveLength(2)
    expect(metadata).toHaveLength(2)
    expect(metadata.at(-1)).toMatchObject({
      messageMetadata: { strata: { level: 'project', contextTokens: expect.any(Number) } },
    })

    // The summarizer ran (its summary is in the log), marked internal, and left no trace in the UI.
    expect(summaryModel.doGenerateCalls).toHaveLength(1)
    // Marked internal, the call passed the middleware untouched but for Strata's own options.
    expect(summaryModel.doGenerateCalls[0]!.providerOptions).toBeUndefined()
    expect(JSON.stringify(summaryModel.doGenerateCalls[0]!.prompt)).toContain('You summarize part of')
    const items = await thread.items()
    expect(items.some((item) => item.type === 'summary' && item.text.includes('SECRET-SUMMARY-TEXT'))).toBe(
      true,
    )
    expect(JSON.stringify(chunks)).not.toContain('SECRET-SUMMARY-TEXT')
    // Nor in the thread's messages: the summarizer's prompt and answer were never stored.
    const messages = items.filter((item) => item.type === 'message')
    expect(JSON.stringify(messages)).not.toContain('SECRET-SUMMARY-TEXT')
    expect(JSON.stringify(messages)).not.toContain('You summarize part of')

    // useChat's side: the assembled message carries the typed part and metadata.
    let last: StrataUIMessage | undefined
    for await (const message of readUIMessageStream<StrataUIMessage>({ stream: forMessages })) last = message
    const part = last!.parts.find((candidate) => candidate.type === 'data-memory-transition')
    expect(part?.data.text).toBe('Finished: Draw the house')
    expect(last!.metadata?.strata?.level).toBe('project')
  })

  it('leaves out transitions whose user-facing text is null, and other threads', async () => {
    const memory = createMemory()
    const written: unknown[] = []
    const writer = { write: (chunk: unknown) => written.push(chunk), merge: () => {}, onError: undefined }
    const stop = writeMemoryParts({ writer, memory, threadId: 'mine', stats: false })
    const mine = await memory.thread('mine')
    const other = await memory.thread('other')
    await mine.enter('project', { title: 'Hidden' })
    await mine.exit({ userFacingMessage: null })
    await other.enter('project', { title: 'Elsewhere' })
    await other.exit()
    await mine.enter('project', { title: 'Shown' })
    await mine.exit()
    await mine.context()
    stop()
    await mine.enter('project', { title: 'After stop' })
    await mine.exit()
    expect(written).toEqual([
      expect.objectContaining({
        type: 'data-memory-transition',
        data: expect.objectContaining({ title: 'Shown' }),
      }),
    ])
  })

  it('rejects a missing writer, memory or thread id with a typed error', () => {
    const memory = createMemory()
    const writer = { write: () => {}, merge: () => {}, onError: undefined }
    const cases: [unknown, string][] = [
      [undefined, 'STRATA_INVALID_OPTIONS'],
      [{ memory, threadId: 't' }, 'STRATA_INVALID_OPTIONS'],
      [{ writer, threadId: 't' }, 'STRATA_INVALID_OPTIONS'],
      [{ writer, memory }, 'STRATA_INVALID_THREAD_ID'],
      [{ writer, memory, threadId: '' }, 'STRATA_INVALID_THREAD_ID'],
    ]
    for (const [options, code] of cases) {
      let thrown: unknown
      try {
        writeMemoryParts(options as never)
      } catch (error) {
        thrown = error
      }
      expect(StrataError.isInstance(thrown) && thrown.code, JSON.stringify(options)).toBe(code)
    }
  })
})
