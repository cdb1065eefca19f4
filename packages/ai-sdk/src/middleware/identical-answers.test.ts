import { createMemory, type HistoryMode, type Item } from '@strata-memory/core'
import { generateText, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { plainChatRoute, TestChat } from '../testing/chat-client'
import { generated, streamed } from '../testing/model-results'
import { strataMiddleware } from './strata-middleware'

const texts = (items: readonly Item[]) =>
  items.map((item) =>
    item.type === 'message'
      ? `${item.role}: ${item.content.map((part) => (part.type === 'text' ? part.text : part.type)).join('')}`
      : item.type,
  )

/** A useChat client on a route whose model answers 'OK' to everything. */
function chatOn(history: HistoryMode) {
  const memory = createMemory()
  const model = wrapLanguageModel({
    model: new MockLanguageModelV4({ doStream: async () => streamed('OK') }),
    middleware: strataMiddleware({ memory, history }),
  })
  const errors: unknown[] = []
  const chat = new TestChat(plainChatRoute(model, errors), { id: 'same' })
  return { memory, chat, errors }
}

describe('identical answers do not hide a regenerate', () => {
  for (const history of ['full', 'auto'] as const) {
    it(`regenerating when every answer reads 'OK' rewinds, and stores nothing twice (history: '${history}')`, async () => {
      const { memory, chat, errors } = chatOn(history)
      await chat.sendMessage({ text: 'go' })
      await chat.sendMessage({ text: 'go' })
      await chat.regenerate()
      expect(errors).toEqual([])
      const thread = await memory.thread('same')
      expect(texts(await thread.items())).toEqual(['user: go', 'assistant: OK', 'user: go', 'assistant: OK'])
      expect(texts(await memory.store.readArchive('same'))).toEqual(['assistant: OK'])
      await chat.sendMessage({ text: 'go' })
      expect(errors).toEqual([])
      expect(texts(await thread.items())).toHaveLength(6)
    })
  }

  it("regenerating the very first answer rewinds in 'full' mode", async () => {
    const { memory, chat, errors } = chatOn('full')
    await chat.sendMessage({ text: 'go' })
    await chat.regenerate()
    expect(errors).toEqual([])
    expect(texts(await (await memory.thread('same')).items())).toEqual(['user: go', 'assistant: OK'])
    expect(texts(await memory.store.readArchive('same'))).toEqual(['assistant: OK'])
  })

  it("keeps 'auto' for apps that send only new messages: a repeated first question is a new message", async () => {
    const memory = createMemory()
    const model = wrapLanguageModel({
      model: new MockLanguageModelV4({ doGenerate: async () => generated('OK') }),
      middleware: strataMiddleware({ memory, threadId: 'new-only' }),
    })
    for (let call = 0; call < 3; call++) await generateText({ model, prompt: 'go' })
    expect(texts(await (await memory.thread('new-only')).items())).toEqual([
      'user: go',
      'assistant: OK',
      'user: go',
      'assistant: OK',
      'user: go',
      'assistant: OK',
    ])
    expect(await memory.store.readArchive('new-only')).toEqual([])
  })
})
