import { createMemory, type Item, StrataError } from '@strata-memory/core'
import { generateText, isStepCount, type ModelMessage, streamText, tool, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { generated, streamed, toolCall } from '../testing/model-results'
import { strataMiddleware } from './strata-middleware'

const texts = (items: readonly Item[]) =>
  items.flatMap((item) =>
    item.type === 'message' ? item.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])) : [],
  )

const tools = { lookup: tool({ inputSchema: z.object({ key: z.string() }), execute: async () => 'n=1' }) }

describe('a history that kept only the text of the conversation', () => {
  it('a text-only history after a tool step is refused or aligned, never stored a second time', async () => {
    const memory = createMemory()
    let call = 0
    const script = [[toolCall('a1', 'lookup', { key: 'n' })], 'Found it.', 'Bye.']
    const mock = new MockLanguageModelV4({ doGenerate: async () => generated(script[call++] as never) })
    const model = wrapLanguageModel({
      model: mock,
      middleware: strataMiddleware({ memory, threadId: 'lossy' }),
    })
    await generateText({
      model,
      tools,
      stopWhen: isStepCount(3),
      messages: [{ role: 'user', content: 'Find n' }],
    })
    // The app keeps only the text of the conversation (as chat UIs often persist it) and asks again.
    const textOnly: ModelMessage[] = [
      { role: 'user', content: 'Find n' },
      { role: 'assistant', content: 'Found it.' },
      { role: 'user', content: 'Thanks' },
    ]
    const outcome = await generateText({ model, messages: textOnly }).then(
      () => 'stored',
      (error) => error.code,
    )
    const stored = texts(await (await memory.thread('lossy')).items())
    if (outcome === 'stored') expect(stored).toEqual(['Find n', 'Found it.', 'Thanks', 'Bye.'])
    else expect(outcome).toBe('STRATA_INVALID_MESSAGE')
  })

  for (const history of ['full', 'auto'] as const) {
    it(`stores only the new message, and the model still sees the tool steps (history: '${history}', streamText)`, async () => {
      const memory = createMemory()
      let call = 0
      const script = [[toolCall('a1', 'lookup', { key: 'n' })], 'Found it.', 'Bye.']
      const mock = new MockLanguageModelV4({ doStream: async () => streamed(script[call++] as never) })
      const model = wrapLanguageModel({
        model: mock,
        middleware: strataMiddleware({ memory, threadId: 'lossy', history }),
      })
      const first = streamText({ model, tools, stopWhen: isStepCount(3), prompt: 'Find n' })
      expect(await first.text).toBe('Found it.')
      const textOnly: ModelMessage[] = [
        { role: 'user', content: 'Find n' },
        { role: 'assistant', content: 'Found it.' },
        { role: 'user', content: 'Thanks' },
      ]
      expect(await streamText({ model, messages: textOnly }).text).toBe('Bye.')
      const thread = await memory.thread('lossy')
      expect((await thread.items()).map((item) => (item.type === 'message' ? item.role : item.type))).toEqual(
        ['user', 'assistant', 'tool', 'assistant', 'user', 'assistant'],
      )
      expect(texts(await thread.items())).toEqual(['Find n', 'Found it.', 'Thanks', 'Bye.'])
      expect(mock.doStreamCalls[2]!.prompt.map((message) => message.role)).toEqual([
        'user',
        'assistant',
        'tool',
        'assistant',
        'user',
      ])
      expect(await memory.store.readArchive('lossy')).toEqual([])
    })
  }

  for (const history of ['full', 'auto'] as const) {
    it(`refuses a text-only history whose question changed, and stores nothing (history: '${history}')`, async () => {
      const memory = createMemory()
      let call = 0
      const script = [[toolCall('a1', 'lookup', { key: 'n' })], 'Found it.', 'Bye.']
      const model = wrapLanguageModel({
        model: new MockLanguageModelV4({ doGenerate: async () => generated(script[call++] as never) }),
        middleware: strataMiddleware({ memory, threadId: 'lossy', history }),
      })
      await generateText({ model, tools, stopWhen: isStepCount(3), prompt: 'Find n' })
      const before = await memory.store.read('lossy')
      const changed: ModelMessage[] = [
        { role: 'user', content: 'Find m' },
        { role: 'assistant', content: 'Found it.' },
        { role: 'user', content: 'Thanks' },
      ]
      const error = await generateText({ model, messages: changed, maxRetries: 0 }).catch((thrown) => thrown)
      expect(StrataError.isInstance(error, 'STRATA_INVALID_MESSAGE')).toBe(true)
      expect((error as StrataError).message).toContain("do not continue thread 'lossy'")
      expect((error as StrataError).details).toMatchObject({ reason: 'no-divergence-point' })
      expect(await memory.store.read('lossy')).toEqual(before)
      expect(await memory.store.readArchive('lossy')).toEqual([])
    })
  }

  it('rewinds a text-only history that regenerates the answer, with its tool steps', async () => {
    const memory = createMemory()
    let call = 0
    const script = ['Hello!', [toolCall('a1', 'lookup', { key: 'n' })], 'Found it.', 'Found it again.']
    const model = wrapLanguageModel({
      model: new MockLanguageModelV4({ doGenerate: async () => generated(script[call++] as never) }),
      middleware: strataMiddleware({ memory, threadId: 'lossy', history: 'full' }),
    })
    await generateText({ model, prompt: 'Hi' })
    const textOnly: ModelMessage[] = [
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello!' },
      { role: 'user', content: 'Find n' },
    ]
    await generateText({ model, tools, stopWhen: isStepCount(3), messages: textOnly })
    // Regenerate: the same text-only history again.
    const again = await generateText({ model, messages: textOnly })
    expect(again.text).toBe('Found it again.')
    const thread = await memory.thread('lossy')
    expect(texts(await thread.items())).toEqual(['Hi', 'Hello!', 'Find n', 'Found it again.'])
    expect((await memory.store.readArchive('lossy')).map((item) => (item as { role: string }).role)).toEqual([
      'assistant',
      'tool',
      'assistant',
    ])
  })
})
