import type { LanguageModelV4Prompt } from '@ai-sdk/provider'
import {
  createMemory,
  type HistoryMode,
  type Item,
  inMemoryStore,
  type MemoryOptions,
  type RewindEvent,
  StrataError,
  type StrataStore,
} from '@strata-memory/core'
import { storedThread } from '@strata-memory/core/testing'
import { memoryTools } from '@strata-memory/core/tools'
import { generateText, isStepCount, type ModelMessage, tool, type UIMessage, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { plainChatRoute, TestChat } from '../testing/chat-client'
import { generated, streamed, toolCall } from '../testing/model-results'
import { type StrataMiddlewareOptions, strataMiddleware } from './strata-middleware'

const texts = (items: readonly Item[]) =>
  items.map((item) =>
    item.type === 'message'
      ? `${item.role}: ${item.content.map((part) => (part.type === 'text' ? part.text : part.type)).join('')}`
      : item.type,
  )

/** Distinct answers: a history whose answers all read the same cannot tell where it diverges. */
let noted = 0
/** Texts with the answers' numbers taken out. */
const plain = (list: readonly string[]) => list.map((text) => text.replace(/Noted \d+\./, 'Noted.'))

const promptTexts = (prompt: LanguageModelV4Prompt) =>
  prompt.map(
    (message) =>
      `${message.role}: ${
        typeof message.content === 'string'
          ? message.content
          : message.content.map((part) => (part.type === 'text' ? part.text : part.type)).join('')
      }`,
  )

/** A useChat client on a route whose model is wrapped with the middleware. */
function chatOn(
  history: HistoryMode,
  middleware: Partial<StrataMiddlewareOptions> = {},
  memoryOptions: MemoryOptions = {},
) {
  const memory = createMemory(memoryOptions)
  const rewinds: RewindEvent[] = []
  memory.on('rewind', (event) => rewinds.push(event))
  let answer = 0
  const mock = new MockLanguageModelV4({ doStream: async () => streamed(`Answer ${++answer}`) })
  const model = wrapLanguageModel({
    model: mock,
    middleware: strataMiddleware({ memory, history, ...middleware }),
  })
  const errors: unknown[] = []
  const chat = new TestChat(plainChatRoute(model, errors), { id: 'chat' })
  const prompts = () => mock.doStreamCalls.map((call) => promptTexts(call.prompt))
  return { memory, mock, chat, errors, rewinds, prompts }
}

/** The answer's text in each UI message of the chat, as the user sees it. */
const shown = (messages: readonly UIMessage[]) =>
  messages.map(
    (message) =>
      `${message.role}: ${message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('')}`,
  )

describe("useChat's regenerate and edit rewind the thread (onDivergence: 'rewind', the default)", () => {
  for (const history of ['full', 'auto'] as const) {
    it(`regenerates the last answer: the model gets the context without it, the thread holds the new one once, the old one is archived (history: '${history}')`, async () => {
      const { memory, chat, errors, rewinds, prompts } = chatOn(history)
      await chat.sendMessage({ text: 'One' })
      await chat.sendMessage({ text: 'Two' })
      const thread = await memory.thread('chat')
      const old = (await thread.items()).at(-1)!
      expect(texts([old])).toEqual(['assistant: Answer 2'])

      await chat.regenerate()
      expect(errors).toEqual([])
      expect(prompts()[2]).toEqual(['user: One', 'assistant: Answer 1', 'user: Two'])
      expect(texts(await thread.items())).toEqual([
        'user: One',
        'assistant: Answer 1',
        'user: Two',
        'assistant: Answer 3',
      ])
      expect(shown(chat.messages)).toEqual([
        'user: One',
        'assistant: Answer 1',
        'user: Two',
        'assistant: Answer 3',
      ])
      expect(texts(await memory.store.readArchive('chat'))).toEqual(['assistant: Answer 2'])
      expect(rewinds).toEqual([{ threadId: 'chat', afterSeq: old.seq - 1, archived: [old] }])
      const found = await memoryTools(thread).memory_query.execute({ text: 'Answer 2' })
      // Ranked first: the other answers share only the word "Answer".
      expect(found).toMatchObject({ results: [{ id: old.id, where: 'archive', type: 'message' }, {}, {}] })

      // The chat goes on from the regenerated answer: nothing is stored twice.
      await chat.sendMessage({ text: 'Three' })
      expect(prompts()[3]).toEqual([
        'user: One',
        'assistant: Answer 1',
        'user: Two',
        'assistant: Answer 3',
        'user: Three',
      ])
      expect(texts(await thread.items())).toHaveLength(6)
    })
  }

  it('edits an earlier user message: what followed it is archived, the edited message is stored once', async () => {
    const { memory, chat, errors, prompts } = chatOn('full')
    await chat.sendMessage({ text: 'One' })
    await chat.sendMessage({ text: 'Two' })
    await chat.sendMessage({ text: 'Three' })
    // useChat's edit: keep the messages before the edited one, send the new text.
    chat.messages = chat.messages.slice(0, 2)
    await chat.sendMessage({ text: 'Two, edited' })
    expect(errors).toEqual([])
    expect(prompts()[3]).toEqual(['user: One', 'assistant: Answer 1', 'user: Two, edited'])
    const thread = await memory.thread('chat')
    expect(texts(await thread.items())).toEqual([
      'user: One',
      'assistant: Answer 1',
      'user: Two, edited',
      'assistant: Answer 4',
    ])
    expect(texts(await memory.store.readArchive('chat'))).toEqual([
      'user: Two',
      'assistant: Answer 2',
      'user: Three',
      'assistant: Answer 3',
    ])
    // The edited message starts a turn of its own; the archived turns keep theirs.
    expect((await thread.status()).turnId).toBe('turn_0004')
  })

  it('regenerates an answer that ran tools: the calls, results and text move to the archive together', async () => {
    const memory = createMemory()
    let call = 0
    const mock = new MockLanguageModelV4({
      doGenerate: async () => {
        call++
        if (call === 1) return generated('Hello!')
        if (call === 2 || call === 4) return generated([toolCall(`w-${call}`, 'weather', { city: 'Lyon' })])
        return generated(call === 3 ? 'Sunny.' : 'Sunny again.')
      },
    })
    const model = wrapLanguageModel({
      model: mock,
      middleware: strataMiddleware({ memory, threadId: 'tools', history: 'full' }),
    })
    const tools = {
      weather: tool({ inputSchema: z.object({ city: z.string() }), execute: async () => 'Sunny, 24 °C' }),
    }
    const history: ModelMessage[] = [{ role: 'user', content: 'Hi' }]
    history.push(...(await generateText({ model, tools, messages: history })).response.messages)
    history.push({ role: 'user', content: 'Weather in Lyon?' })
    const first = await generateText({ model, tools, messages: history, stopWhen: isStepCount(3) })
    expect(first.text).toBe('Sunny.')
    const thread = await memory.thread('tools')
    expect(texts(await thread.items())).toEqual([
      'user: Hi',
      'assistant: Hello!',
      'user: Weather in Lyon?',
      'assistant: tool-call',
      'tool: tool-result',
      'assistant: Sunny.',
    ])

    // Regenerate: the same history again, without the answer's steps.
    const again = await generateText({ model, tools, messages: history, stopWhen: isStepCount(3) })
    expect(again.text).toBe('Sunny again.')
    expect(promptTexts(mock.doGenerateCalls[3]!.prompt)).toEqual([
      'user: Hi',
      'assistant: Hello!',
      'user: Weather in Lyon?',
    ])
    expect(texts(await memory.store.readArchive('tools'))).toEqual([
      'assistant: tool-call',
      'tool: tool-result',
      'assistant: Sunny.',
    ])
    expect(texts(await thread.items()).slice(3)).toEqual([
      'assistant: tool-call',
      'tool: tool-result',
      'assistant: Sunny again.',
    ])
    expect((await thread.toolInteractions()).map((interaction) => interaction.toolCallId)).toEqual(['w-4'])
  })

  it('edits a message after a budget compaction: the summary covers only older turns and stays', async () => {
    const memory = createMemory({ compaction: { budget: { maxOutputTokens: 1_000, rawTailTurns: 1 } } })
    const model = wrapLanguageModel({
      model: new MockLanguageModelV4({ doGenerate: async () => generated(`Noted ${++noted}.`) }),
      middleware: strataMiddleware({ memory, threadId: 'compacted', history: 'full' }),
    })
    const history: ModelMessage[] = []
    for (const text of ['One', 'Two', 'Three', 'Four']) {
      history.push({ role: 'user', content: text })
      history.push(...(await generateText({ model, messages: history })).response.messages)
    }
    const thread = await memory.thread('compacted')
    await thread.compact({ force: true })
    expect(plain(texts(await thread.items()))).toEqual([
      'user: Three',
      'assistant: Noted.',
      'user: Four',
      'assistant: Noted.',
      'summary',
    ])

    await generateText({
      model,
      messages: [...history.slice(0, -2), { role: 'user', content: 'Four, edited' }],
    })
    expect(plain(texts(await thread.items()))).toEqual([
      'user: Three',
      'assistant: Noted.',
      'summary',
      'user: Four, edited',
      'assistant: Noted.',
    ])
  })
})

describe('a regenerate or edit that cannot rewind safely is refused, and nothing changes', () => {
  it('is a typed conflict when another writer appended between the decision and the archive', async () => {
    const base = inMemoryStore()
    const other = createMemory({ store: base })
    let racing = false
    // Another process appends to the thread just before the rewind's archive reaches the store.
    const store = new Proxy(base, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver)
        if (property !== 'archive') return typeof value === 'function' ? value.bind(target) : value
        return async (...args: Parameters<StrataStore['archive']>) => {
          if (racing) await (await other.thread('race')).append({ role: 'user', content: 'From elsewhere' })
          return target.archive(...args)
        }
      },
    })
    const memory = createMemory({ store })
    const mock = new MockLanguageModelV4({ doGenerate: async () => generated(`Noted ${++noted}.`) })
    const model = wrapLanguageModel({
      model: mock,
      // Without holds: the writer elsewhere is one that does not hold the thread either.
      middleware: strataMiddleware({ memory, threadId: 'race', history: 'full', hold: false }),
    })
    const history: ModelMessage[] = []
    for (const text of ['One', 'Two']) {
      history.push({ role: 'user', content: text })
      history.push(...(await generateText({ model, messages: history })).response.messages)
    }
    const before = await storedThread(base, 'race')
    racing = true
    const error = await generateText({ model, messages: history.slice(0, -1), maxRetries: 0 }).catch(
      (caught: unknown) => caught,
    )
    expect(StrataError.isInstance(error, 'STRATA_SEQ_CONFLICT')).toBe(true)
    expect((error as Error).message).toContain('nothing was archived')
    const after = await storedThread(base, 'race')
    expect(after.archive).toEqual(before.archive)
    expect(after.active).toEqual([...before.active, expect.objectContaining({ seq: 5 })])
    expect(mock.doGenerateCalls).toHaveLength(2)
  })

  it('refuses an edit inside a range the waterfall summarized', async () => {
    const memory = createMemory({ compaction: { waterfall: { window: 4, every: 4 } } })
    const mock = new MockLanguageModelV4({ doGenerate: async () => generated(`Noted ${++noted}.`) })
    const model = wrapLanguageModel({
      model: mock,
      middleware: strataMiddleware({ memory, threadId: 'waterfall', history: 'full' }),
    })
    const history: ModelMessage[] = []
    for (const text of ['One', 'Two', 'Three', 'Four', 'Five']) {
      history.push({ role: 'user', content: text })
      history.push(...(await generateText({ model, messages: history })).response.messages)
    }
    const thread = await memory.thread('waterfall')
    await thread.compact()
    expect(texts(await thread.items())).toContain('summary')
    const before = await storedThread(memory.store, 'waterfall')

    const edited: ModelMessage[] = [...history.slice(0, 2), { role: 'user', content: 'Two, edited' }]
    const error = await generateText({ model, messages: edited }).catch((caught: unknown) => caught)
    expect(StrataError.isInstance(error, 'STRATA_INVALID_MESSAGE')).toBe(true)
    expect((error as StrataError).details).toMatchObject({ reason: 'compacted' })
    expect((error as Error).message).toContain('already compacted into a summary')
    expect(StrataError.isInstance((error as Error).cause, 'STRATA_REWIND_UNSAFE')).toBe(true)
    expect(await storedThread(memory.store, 'waterfall')).toEqual(before)
    expect(mock.doGenerateCalls).toHaveLength(5)
  })

  it('a call sent again with another result moves the old call and result to the archive together', async () => {
    const memory = createMemory()
    const mock = new MockLanguageModelV4({ doGenerate: async () => generated(`Done ${++noted}.`) })
    const model = wrapLanguageModel({
      model: mock,
      middleware: strataMiddleware({ memory, threadId: 'split', history: 'full' }),
    })
    const call: ModelMessage = {
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'weather', input: { city: 'Lyon' } }],
    }
    const result = (output: string): ModelMessage => ({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'c1',
          toolName: 'weather',
          output: { type: 'text', value: output },
        },
      ],
    })
    const history: ModelMessage[] = [{ role: 'user', content: 'Weather?' }, call, result('Sunny')]
    await generateText({ model, messages: history })

    // The client sends the call again with another result for it (it ran the tool again): the thread
    // rewinds to before the call, never between it and its result, and stores the call with the new one.
    const again = await generateText({ model, messages: [...history.slice(0, 2), result('Rain')] })
    expect(again.text).toMatch(/^Done/)
    const thread = await memory.thread('split')
    const active = (await thread.items()).filter((item) => item.type === 'message')
    expect(active.map((item) => item.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
    expect(JSON.stringify(active[2]!.content)).toContain('Rain')
    const archived = await memory.store.readArchive(thread.id)
    expect(archived.filter((item) => item.type === 'message').map((item) => item.role)).toEqual([
      'assistant',
      'tool',
      'assistant',
    ])
    expect(JSON.stringify(archived)).toContain('Sunny')
  })

  it('refuses an edit from before a scope the app opened', async () => {
    const memory = createMemory()
    const model = wrapLanguageModel({
      model: new MockLanguageModelV4({ doGenerate: async () => generated(`Noted ${++noted}.`) }),
      middleware: strataMiddleware({ memory, threadId: 'scoped', history: 'full' }),
    })
    const history: ModelMessage[] = []
    for (const text of ['One', 'Two', 'Three']) {
      history.push({ role: 'user', content: text })
      history.push(...(await generateText({ model, messages: history })).response.messages)
      if (text === 'Two') await (await memory.thread('scoped')).enter('project', { title: 'Trip' })
    }
    const before = await storedThread(memory.store, 'scoped')
    const error = await generateText({
      model,
      messages: [...history.slice(0, 2), { role: 'user', content: 'Two, edited' }],
    }).catch((caught: unknown) => caught)
    expect(StrataError.isInstance(error, 'STRATA_INVALID_MESSAGE')).toBe(true)
    expect((error as StrataError).details).toMatchObject({ reason: 'scope-changed' })
    expect(await storedThread(memory.store, 'scoped')).toEqual(before)
    expect((await memory.thread('scoped')).level).toBe('project')
  })

  it('refuses an edited first message: the history shares no stored message to rewind to', async () => {
    const { memory, chat, errors } = chatOn('full')
    await chat.sendMessage({ text: 'One' })
    const before = await storedThread(memory.store, 'chat')
    chat.messages = []
    await chat.sendMessage({ text: 'One, edited' })
    expect(StrataError.isInstance(errors[0], 'STRATA_INVALID_MESSAGE')).toBe(true)
    expect((errors[0] as StrataError).details).toMatchObject({ reason: 'no-divergence-point' })
    expect(await storedThread(memory.store, 'chat')).toEqual(before)
  })
})

describe("onDivergence: 'reject' keeps the typed refusal", () => {
  for (const history of ['full', 'auto'] as const) {
    it(`refuses a regenerated answer and stores nothing (history: '${history}')`, async () => {
      const { memory, mock, chat, errors } = chatOn(history, { onDivergence: 'reject' })
      await chat.sendMessage({ text: 'One' })
      await chat.sendMessage({ text: 'Two' })
      const thread = await memory.thread('chat')
      const before = await storedThread(memory.store, 'chat')
      expect(texts(before.active)).toEqual([
        'user: One',
        'assistant: Answer 1',
        'user: Two',
        'assistant: Answer 2',
      ])

      await chat.regenerate()
      expect(errors).toHaveLength(1)
      expect(StrataError.isInstance(errors[0], 'STRATA_INVALID_MESSAGE')).toBe(true)
      expect((errors[0] as Error).message).toContain("do not continue thread 'chat'")
      expect((errors[0] as Error).message).toContain("onDivergence: 'reject'")
      // Without the check the whole history was stored a second time; now nothing is, and the
      // provider was not called.
      expect(await storedThread(memory.store, 'chat')).toEqual(before)
      expect(await thread.items()).toEqual(before.active)
      expect(mock.doStreamCalls).toHaveLength(2)
    })
  }

  it('refuses an edited earlier message the same way', async () => {
    const { memory, chat, errors } = chatOn('full', { onDivergence: 'reject' })
    await chat.sendMessage({ text: 'One' })
    await chat.sendMessage({ text: 'Two' })
    const before = await storedThread(memory.store, 'chat')
    chat.messages = chat.messages.slice(0, 2)
    await chat.sendMessage({ text: 'Two, edited' })
    expect(StrataError.isInstance(errors[0], 'STRATA_INVALID_MESSAGE')).toBe(true)
    expect(await storedThread(memory.store, 'chat')).toEqual(before)
  })

  it('takes only rewind or reject', () => {
    const memory = createMemory()
    for (const onDivergence of ['ignore', null, 1]) {
      expect(() => strataMiddleware({ memory, onDivergence: onDivergence as never })).toThrow(
        expect.objectContaining({ code: 'STRATA_INVALID_OPTIONS' }),
      )
    }
  })
})

describe('histories that continue the thread', () => {
  it("accepts several new messages at once in 'auto' mode", async () => {
    const memory = createMemory()
    const model = wrapLanguageModel({
      model: new MockLanguageModelV4({ doGenerate: async () => generated('Noted.') }),
      middleware: strataMiddleware({ memory, threadId: 'notes' }),
    })
    await generateText({ model, prompt: 'First note' })
    const batch: ModelMessage[] = [
      { role: 'user', content: 'Second note' },
      { role: 'user', content: 'Third note' },
      { role: 'user', content: 'Fourth note' },
    ]
    await generateText({ model, messages: batch })
    expect(texts(await (await memory.thread('notes')).items())).toEqual([
      'user: First note',
      'assistant: Noted.',
      'user: Second note',
      'user: Third note',
      'user: Fourth note',
      'assistant: Noted.',
    ])
    expect(await memory.store.readArchive('notes')).toEqual([])
  })

  it('accepts a full history whose last stored message the content channel replaced by a citation', async () => {
    const memory = createMemory({ content: { offloadAboveBytes: 200 } })
    const page = 'lorem ipsum dolor sit amet '.repeat(40)
    let call = 0
    const mock = new MockLanguageModelV4({
      doGenerate: async () => {
        call++
        if (call === 1) return generated([toolCall('fetch-1', 'fetch_page', { url: 'https://example.test' })])
        if (call === 2) throw new Error('provider down')
        return generated('Here is the page.')
      },
    })
    const model = wrapLanguageModel({
      model: mock,
      middleware: strataMiddleware({ memory, threadId: 'offload', history: 'full' }),
    })
    const tools = {
      fetch_page: tool({ inputSchema: z.object({ url: z.string() }), execute: async () => page }),
    }
    const history: ModelMessage[] = [{ role: 'user', content: 'Fetch it' }]
    // The second step fails after the tool ran: the log ends with the (offloaded) tool result.
    let responseMessages: ModelMessage[] = []
    await expect(
      generateText({
        model,
        tools,
        messages: history,
        stopWhen: isStepCount(3),
        maxRetries: 0,
        onStepFinish: (step) => {
          responseMessages = step.response.messages
        },
      }),
    ).rejects.toThrow('provider down')
    const thread = await memory.thread('offload')
    const stored = await thread.items()
    expect(texts(stored)).toEqual(['user: Fetch it', 'assistant: tool-call', 'tool: tool-result'])
    expect(JSON.stringify(stored.at(-1))).not.toContain(page)

    history.push(...responseMessages, { role: 'user', content: 'Try again' })
    const result = await generateText({ model, tools, messages: history, maxRetries: 0 })
    expect(result.text).toBe('Here is the page.')
    expect(texts(await thread.items())).toEqual([
      'user: Fetch it',
      'assistant: tool-call',
      'tool: tool-result',
      'user: Try again',
      'assistant: Here is the page.',
    ])
    expect(await memory.store.readArchive('offload')).toEqual([])
  })
})
