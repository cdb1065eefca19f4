import type { LanguageModelV4StreamPart } from '@ai-sdk/provider'
import { createMemory, type Memory } from '@strata-memory/core'
import {
  convertToModelMessages,
  createUIMessageStream,
  createUIMessageStreamResponse,
  isStepCount,
  ToolLoopAgent,
  tool,
  toUIMessageStream,
  wrapLanguageModel,
} from 'ai'
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { strataErrorFromResponse } from '../client/strata-error-from-response'
import { strataMiddleware } from '../middleware/strata-middleware'
import { chatPage, seenParts } from '../testing/chat-client'
import { promptText, streamParts, toolCall } from '../testing/model-results'
import { strataChatRoute } from '../testing/strata-chat-route'
import { loadUIMessages } from '../ui/load-ui-messages'
import type { StrataUIMessage } from '../ui/memory-ui-parts'
import { openChatRequest } from './chat-request'
import { strataErrorResponse, strataOnError } from './route-errors'

const tools = {
  lookup: tool({
    description: 'Looks a topic up',
    inputSchema: z.object({ topic: z.string() }),
    // Large: stored once in the content channel, cited in later contexts.
    execute: async ({ topic }) => ({
      topic,
      rows: Array.from({ length: 40 }, (_, index) => `${topic} fact ${index}`),
    }),
  }),
}

/** The text of a prompt message, for scripting answers. */
const textOf = promptText

/**
 * A model that answers every user message: a message asking to "look up X" gets a tool call first,
 * then an answer after its result; any other message gets an answer naming the question.
 */
function scriptedModel(options: { gate?: () => Promise<void>; inputTokens?: number } = {}) {
  const usage = options.inputTokens === undefined ? {} : { inputTokens: options.inputTokens }
  let calls = 0
  return new MockLanguageModelV4({
    doStream: async ({ prompt }) => {
      calls++
      const last = prompt.at(-1)
      let parts: LanguageModelV4StreamPart[]
      if (last?.role === 'user' && /look up (\w+)/.test(textOf(last))) {
        const topic = /look up (\w+)/.exec(textOf(last))![1]!
        parts = streamParts([toolCall(`call-${calls}`, 'lookup', { topic })], usage)
      } else if (last?.role === 'tool') {
        parts = streamParts('Here is what I found.', usage)
      } else {
        parts = streamParts(`Answer to: ${textOf(last)}`, usage)
      }
      const gate = options.gate
      if (gate === undefined) return { stream: convertArrayToReadableStream(parts) }
      // A slow provider: the first half, then the rest once the gate opens.
      const half = Math.ceil(parts.length / 2)
      return {
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          async start(controller) {
            for (const part of parts.slice(0, half)) controller.enqueue(part)
            await gate()
            for (const part of parts.slice(half)) controller.enqueue(part)
            controller.close()
          },
        }),
      }
    },
  })
}

const page = (route: (request: Request) => Promise<Response>, id: string, messages: StrataUIMessage[] = []) =>
  chatPage<StrataUIMessage>(route, id, messages)
const seen = seenParts

function setup() {
  const memory = createMemory({ content: { offloadAboveBytes: 300 } })
  const model = scriptedModel()
  const errors: unknown[] = []
  const route = strataChatRoute({ memory, model, tools, errors })
  return { memory, model, errors, route }
}

/**
 * A chat under a small budget, sent questions until an answer's last step asked for a compaction: its
 * summary and facts are the thread's last items, after that answer.
 */
async function compactedChat(id: string) {
  const memory = createMemory({ compaction: { budget: { inputTokens: 300, rawTailTurns: 1 } } })
  const route = strataChatRoute({ memory, model: scriptedModel({ inputTokens: 250 }) })
  const chat = page(route, id)
  const thread = await memory.thread(id)
  const lastType = async () => {
    await thread.settled()
    return (await thread.items()).at(-1)?.type
  }
  for (let turn = 1; turn <= 8 && [undefined, 'message'].includes(await lastType()); turn++)
    await chat.sendMessage({ text: `question ${turn}` })
  expect(['summary', 'fact']).toContain(await lastType())
  return { memory, route, chat }
}

const archivedCount = async (memory: Memory, id: string) =>
  (await (await memory.thread(id)).status()).items.archived

describe('the persistence route: the thread is the chat', () => {
  it('sends only the last message for 10 turns with tool calls; loading gives the messages the stream gave', async () => {
    const { memory, model, errors, route } = setup()
    const chat = page(route, 'ten-turns')
    const longQuestion = `Please keep this in mind: ${'a long note about the garden. '.repeat(30)}`
    for (let turn = 1; turn <= 10; turn++) {
      const text = turn === 3 ? longQuestion : turn % 2 === 0 ? `look up topic${turn}` : `question ${turn}`
      await chat.sendMessage({ text })
      expect(chat.error).toBeUndefined()
      // Each request carried one message: the page's newest.
      const sent = model.doStreamCalls.at(-1)!.prompt
      expect(sent.filter((message) => message.role === 'user').length).toBe(turn)
      const loaded = await loadUIMessages(memory, 'ten-turns')
      expect(seen(loaded)).toEqual(seen(chat.messages))
    }
    expect(errors).toEqual([])
    const loaded = await loadUIMessages(memory, 'ten-turns')
    expect(loaded).toHaveLength(20)
    // The long message and the tool outputs read back whole, not as the citations the model sees.
    expect(loaded[4]!.parts).toEqual([{ type: 'text', text: longQuestion }])
    const lookup = loaded[3]!.parts.find((part) => part.type === 'tool-lookup')
    expect(lookup).toMatchObject({ state: 'output-available', output: { topic: 'topic2' } })
    expect((lookup as { output: { rows: string[] } }).output.rows).toHaveLength(40)
    const stored = JSON.stringify(await (await memory.thread('ten-turns')).items())
    expect(stored).not.toContain('topic2 fact 39')
    // Ids are stable across loads.
    expect((await loadUIMessages(memory, 'ten-turns')).map((message) => message.id)).toEqual(
      loaded.map((message) => message.id),
    )
    // Paging: the last two turns, then the two before them.
    const last = await loadUIMessages(memory, 'ten-turns', { limit: 2 })
    expect(last.map((message) => message.id)).toEqual(loaded.slice(16).map((message) => message.id))
    const before = await loadUIMessages(memory, 'ten-turns', { limit: 2, before: last[0]!.id })
    expect(before.map((message) => message.id)).toEqual(loaded.slice(12, 16).map((message) => message.id))
  })

  it('an image sent with a question reaches the model with every later question, and a reload shows it', async () => {
    const { memory, model, route } = setup()
    const chat = page(route, 'photo')
    const image = `data:image/jpeg;base64,${'/9j/4AAQSkZJRgABAQ'.repeat(500)}`
    await chat.sendMessage({
      text: 'What is in this photo?',
      files: [{ type: 'file', mediaType: 'image/jpeg', url: image }],
    })
    await chat.sendMessage({ text: 'What colour was it?' })
    expect(chat.error).toBeUndefined()
    const files = (prompt: (typeof model.doStreamCalls)[number]['prompt']) =>
      prompt.flatMap((message) =>
        message.role === 'user' ? message.content.filter((part) => part.type === 'file') : [],
      )
    // Stored once in the content channel (the log holds a citation), shown whole to the model each time.
    for (const call of model.doStreamCalls) expect(files(call.prompt)).toHaveLength(1)
    const sent = files(model.doStreamCalls.at(-1)!.prompt)[0]!
    expect(sent.mediaType).toBe('image/jpeg')
    expect(JSON.stringify(sent.data)).toContain('/9j/4AAQSkZJRgABAQ')
    expect(seen(await loadUIMessages(memory, 'photo'))).toEqual(seen(chat.messages))
  })

  it('a second device with an empty chat continues the thread', async () => {
    const { memory, model, route } = setup()
    const first = page(route, 'devices')
    await first.sendMessage({ text: 'My name is Ana' })
    await first.sendMessage({ text: 'look up roses' })
    const second = page(route, 'devices')
    await second.sendMessage({ text: 'What is my name?' })
    expect(second.error).toBeUndefined()
    // The model saw the whole thread, not only what the second device holds.
    expect(JSON.stringify(model.doStreamCalls.at(-1)!.prompt)).toContain('My name is Ana')
    expect(await archivedCount(memory, 'devices')).toBe(0)
    const loaded = await loadUIMessages(memory, 'devices')
    expect(loaded.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ])
    expect(seen(loaded.slice(4))).toEqual(seen(second.messages))
  })

  it('a page two turns behind continues the thread, and its regenerate is a readable 409 that rewinds nothing', async () => {
    const { memory, route } = setup()
    const current = page(route, 'stale')
    await current.sendMessage({ text: 'one' })
    const snapshot = await loadUIMessages(memory, 'stale')
    await current.sendMessage({ text: 'two' })
    await current.sendMessage({ text: 'three' })
    const stale = page(route, 'stale', snapshot)
    const before = await (await memory.thread('stale')).items()

    await stale.regenerate()
    expect(stale.error).toBeDefined()
    const shown = strataErrorFromResponse(stale.error)
    expect(shown.code).toBe('STRATA_SEQ_CONFLICT')
    expect(shown.message).toMatch(/changed in another tab or window\. Reload it/)
    expect(shown.message).not.toMatch(/rewind|history|seq/i)
    expect(await (await memory.thread('stale')).items()).toEqual(before)

    const fresh = page(route, 'stale', snapshot)
    await fresh.sendMessage({ text: 'four' })
    expect(fresh.error).toBeUndefined()
    expect(await archivedCount(memory, 'stale')).toBe(0)
    const texts = (await loadUIMessages(memory, 'stale'))
      .filter((message) => message.role === 'user')
      .map((message) => (message.parts[0] as { text: string }).text)
    expect(texts).toEqual(['one', 'two', 'three', 'four'])
  })

  it('regenerate replaces the last answer by its id; the reloaded chat never shows the replaced one', async () => {
    const { memory, route } = setup()
    const chat = page(route, 'regen')
    await chat.sendMessage({ text: 'first' })
    await chat.sendMessage({ text: 'look up tulips' })
    const replaced = chat.messages.at(-1)!.id
    await chat.regenerate({ messageId: replaced })
    expect(chat.error).toBeUndefined()
    expect(chat.messages.at(-1)!.id).not.toBe(replaced)
    const loaded = await loadUIMessages(memory, 'regen')
    expect(seen(loaded)).toEqual(seen(chat.messages))
    expect(loaded.map((message) => message.id)).not.toContain(replaced)
    expect(await archivedCount(memory, 'regen')).toBeGreaterThan(0)
  })

  it('regenerate on a chat with nothing in it is a 400 that names it; from a page that shows messages, a 409', async () => {
    const { memory, route } = setup()
    const regenerate = (lastSeq?: number) =>
      route(
        new Request('http://localhost/api/chat', {
          method: 'POST',
          body: JSON.stringify({ id: 'empty-regen', trigger: 'regenerate-message', lastSeq }),
        }),
      )
    const bare = await regenerate()
    expect(bare.status).toBe(400)
    expect(await strataErrorFromResponse(bare)).toMatchObject({
      code: 'STRATA_INVALID_MESSAGE',
      details: { reason: 'nothing-to-regenerate' },
    })
    // The server's own error (for its log) says what happened; the page shows its own text.
    await expect(
      openChatRequest({ memory, body: { id: 'empty-regen', trigger: 'regenerate-message' } }),
    ).rejects.toThrow(/Chat 'empty-regen' holds no answer to generate again: send a message first/)
    // A page that shows four messages of a chat since deleted is behind it: reload.
    const behind = await regenerate(4)
    expect(behind.status).toBe(409)
    expect(await strataErrorFromResponse(behind)).toMatchObject({
      code: 'STRATA_SEQ_CONFLICT',
      details: { expectedSeq: 4, actualSeq: 0 },
    })
    expect(await (await memory.thread('empty-regen')).items()).toEqual([])
  })

  it('a tab whose last answer another tab regenerated gets a 409 for its own regenerate by id; the newer answer stays', async () => {
    const { memory, route } = setup()
    const first = page(route, 'two-tabs-regen')
    await first.sendMessage({ text: 'hello' })
    const second = page(route, 'two-tabs-regen', await loadUIMessages(memory, 'two-tabs-regen'))
    const old = second.messages.at(-1)!.id
    await first.regenerate({ messageId: old })
    expect(first.error).toBeUndefined()
    const newer = first.messages.at(-1)!.id
    await second.regenerate({ messageId: old })
    expect(strataErrorFromResponse(second.error).code).toBe('STRATA_SEQ_CONFLICT')
    const ids = (await loadUIMessages(memory, 'two-tabs-regen')).map((message) => message.id)
    expect(ids.at(-1)).toBe(newer)
  })

  it('regenerating an older answer or editing an older message says only the last can be: a 409, nothing archived', async () => {
    const { memory, route } = setup()
    const chat = page(route, 'older')
    await chat.sendMessage({ text: 'one' })
    await chat.sendMessage({ text: 'two' })
    const [firstQuestion, firstAnswer] = chat.messages
    const before = await (await memory.thread('older')).items()
    const current = () => page(route, 'older', chat.messages.slice())
    const regenerating = current()
    await regenerating.regenerate({ messageId: firstAnswer!.id })
    expect(strataErrorFromResponse(regenerating.error)).toMatchObject({
      code: 'STRATA_SEQ_CONFLICT',
      message: expect.stringMatching(
        /^Only the last reply can be generated again\. If this chat has changed/,
      ),
      details: { reason: 'not-last-answer' },
    })
    const editing = current()
    await editing.sendMessage({ text: 'one, edited', messageId: firstQuestion!.id })
    expect(strataErrorFromResponse(editing.error)).toMatchObject({
      code: 'STRATA_SEQ_CONFLICT',
      message: expect.stringMatching(/^Only the last message can be edited\./),
      details: { reason: 'not-last-message' },
    })
    expect(await (await memory.thread('older')).items()).toEqual(before)
  })

  it('a retry of a message whose answer never came stores it once', async () => {
    const { memory, route } = setup()
    const chat = page(route, 'retry')
    await chat.sendMessage({ text: 'hello' })
    const thread = await memory.thread('retry')
    // A request that stored the question and died before the answer (a crashed server).
    const [question] = await thread.append({
      role: 'user',
      content: 'are you there?',
      meta: { uiMessageId: 'q-2' },
    })
    const loaded = await loadUIMessages(memory, 'retry')
    const again = page(route, 'retry', loaded)
    await again.regenerate()
    expect(again.error).toBeUndefined()
    const users = (await thread.items()).filter((item) => item.type === 'message' && item.role === 'user')
    expect(users.map((item) => item.id)).toEqual([users[0]!.id, question!.id])
    expect(seen(await loadUIMessages(memory, 'retry'))).toEqual(seen(again.messages))
  })

  it('a budget compaction reaches the page as a data-memory-compaction part; a reload shows it in the same place with the same id', async () => {
    // Ids in sequence: the token estimate of a random UUID (cited in the context) varies by a few
    // tokens, and at this budget that changed how many compactions ran, one run in about twenty.
    let ids = 0
    const memory = createMemory({
      compaction: { budget: { inputTokens: 300, rawTailTurns: 1 } },
      generateId: () => `id-${String(++ids).padStart(5, '0')}`,
    })
    // A small result: the tool step fits the budget, and the model answers after it.
    const small = {
      lookup: tool({
        inputSchema: z.object({ topic: z.string() }),
        execute: async ({ topic }) => ({ topic }),
      }),
    }
    const route = strataChatRoute({ memory, model: scriptedModel({ inputTokens: 250 }), tools: small })
    const chat = page(route, 'compacted')
    const written: string[] = []
    memory.on('compaction-end', (event) => {
      if (event.itemsArchived > 0 && event.summary !== undefined) written.push(event.summary.id)
    })
    const note = 'with a few words more to fill the budget sooner. '.repeat(6)
    for (let turn = 1; turn <= 8; turn++)
      await chat.sendMessage({ text: turn % 2 === 0 ? `look up topic${turn}` : `question ${turn} ${note}` })
    expect(chat.error).toBeUndefined()
    const compactions = chat.messages.flatMap((message) =>
      message.parts.filter((part) => part.type === 'data-memory-compaction'),
    )
    expect(compactions.length).toBeGreaterThan(1)
    expect(compactions[0]).toMatchObject({ data: { threadId: 'compacted', trigger: 'budget' } })
    expect((compactions[0] as { data: { itemsArchived: number } }).data.itemsArchived).toBeGreaterThan(0)
    // One ran between the steps of an answer (after a tool call), others before an answer's first step.
    const layouts = chat.messages.map((message) => message.parts.map((part) => part.type).join(' '))
    expect(layouts).toContain('step-start tool-lookup data-memory-compaction step-start text')
    expect(layouts).toContain('data-memory-compaction step-start text')
    // The part is the stored summary's: its id, and its figures. A later roll-up may have archived the
    // oldest summaries into a long-term one; their parts stay (the reload below shows them too).
    expect(compactions.map((part) => (part as { id: string }).id)).toEqual(written)
    const stored = await memory.store.read('compacted')
    const archived = await memory.store.readArchive('compacted')
    const episodic = [...archived, ...stored].filter(
      (item) => item.type === 'summary' && item.tier === 'episodic',
    )
    expect(episodic.map((item) => item.id).sort()).toEqual([...written].sort())
    // A reload gives what the stream gave, the compaction parts at the same places with the same ids.
    const loaded = await loadUIMessages(memory, 'compacted')
    expect(seen(loaded)).toEqual(seen(chat.messages))
    // The page continues from the reload, and again the two agree.
    const reloaded = page(route, 'compacted', loaded)
    await reloaded.sendMessage({ text: 'look up topic7' })
    expect(reloaded.error).toBeUndefined()
    expect(seen(await loadUIMessages(memory, 'compacted'))).toEqual(seen(reloaded.messages))
    const visible = await loadUIMessages(memory, 'compacted', { visibleOnly: true })
    expect(visible.length).toBeLessThan(loaded.length)
    // Further turns until the episodic summaries roll up into a long-term one (which archives them):
    // their parts stay on the page, and a reload still shows the page's parts in the same places.
    const rolledUp = async () =>
      (await memory.store.read('compacted')).some(
        (item) => item.type === 'summary' && item.tier === 'long-term',
      )
    for (let turn = 9; turn <= 40 && !(await rolledUp()); turn++)
      await reloaded.sendMessage({
        text: turn % 2 === 0 ? `look up topic${turn}` : `question ${turn} ${note}`,
      })
    expect(reloaded.error).toBeUndefined()
    expect(await rolledUp()).toBe(true)
    const parts = reloaded.messages.flatMap((message) =>
      message.parts.filter((part) => part.type === 'data-memory-compaction'),
    )
    expect(parts.map((part) => (part as { id: string }).id)).toEqual(written)
    expect(seen(await loadUIMessages(memory, 'compacted'))).toEqual(seen(reloaded.messages))
  })

  it('regenerate and edit of the last turn work after its answer compacted older turns (summary and facts stored after it)', async () => {
    const { memory, route } = await compactedChat('regen-compacted')
    // A fresh page (a reload) regenerates the last answer.
    const reloaded = page(route, 'regen-compacted', await loadUIMessages(memory, 'regen-compacted'))
    const replaced = reloaded.messages.at(-1)!.id
    await reloaded.regenerate({ messageId: replaced })
    expect(reloaded.error).toBeUndefined()
    expect(reloaded.messages.at(-1)!.id).not.toBe(replaced)
    // The compaction's part went with the replaced answer: a reload shows it at the new one's start.
    const withoutCompactions = (messages: StrataUIMessage[]) =>
      seen(messages).map((message) => ({
        ...message,
        parts: message.parts.filter((part) => part.type !== 'data-memory-compaction'),
      }))
    expect(withoutCompactions(await loadUIMessages(memory, 'regen-compacted'))).toEqual(
      withoutCompactions(reloaded.messages),
    )
    // And edits the last question.
    const question = reloaded.messages.at(-2)!
    await reloaded.sendMessage({ text: 'an edited question', messageId: question.id })
    expect(reloaded.error).toBeUndefined()
    const loaded = await loadUIMessages(memory, 'regen-compacted')
    expect(withoutCompactions(loaded)).toEqual(withoutCompactions(reloaded.messages))
    expect(loaded.at(-2)!.parts).toContainEqual(expect.objectContaining({ text: 'an edited question' }))
    expect(loaded.at(-1)!.role).toBe('assistant')
  })

  it('regenerating an answer that compacted older turns shows the compaction on the new answer, as a reload does', async () => {
    const { memory, route, chat } = await compactedChat('regen-shows-compaction')
    const compactionsOf = (message: StrataUIMessage | undefined) =>
      (message?.parts ?? []).filter((part) => part.type === 'data-memory-compaction')
    const shown = compactionsOf(chat.messages.at(-1))
    expect(shown).not.toHaveLength(0)
    // The same page regenerates its last answer: the compaction it showed stays in view, on the new
    // answer, where a reload puts it.
    await chat.regenerate({ messageId: chat.messages.at(-1)!.id })
    expect(chat.error).toBeUndefined()
    expect(compactionsOf(chat.messages.at(-1))).toEqual(shown)
    expect(seen(await loadUIMessages(memory, 'regen-shows-compaction'))).toEqual(seen(chat.messages))
    // Regenerated again, from a reloaded page this time: still shown once, on the newest answer.
    const reloaded = page(
      route,
      'regen-shows-compaction',
      await loadUIMessages(memory, 'regen-shows-compaction'),
    )
    await reloaded.regenerate({ messageId: reloaded.messages.at(-1)!.id })
    expect(reloaded.error).toBeUndefined()
    expect(compactionsOf(reloaded.messages.at(-1))).toEqual(shown)
    expect(seen(await loadUIMessages(memory, 'regen-shows-compaction'))).toEqual(seen(reloaded.messages))
  })

  it('editing the question of an answer that compacted older turns shows the compaction on the new answer, as a reload does', async () => {
    const { memory, route, chat } = await compactedChat('edit-shows-compaction')
    const compactionsOf = (message: StrataUIMessage | undefined) =>
      (message?.parts ?? []).filter((part) => part.type === 'data-memory-compaction')
    const shown = compactionsOf(chat.messages.at(-1))
    expect(shown).not.toHaveLength(0)
    // The same page edits its last question: the answer that showed the compaction is dropped with
    // it, and the compaction (its turn rewound, its summary kept) is shown on the new answer.
    await chat.sendMessage({ text: 'an edited question', messageId: chat.messages.at(-2)!.id })
    expect(chat.error).toBeUndefined()
    expect(compactionsOf(chat.messages.at(-1))).toEqual(shown)
    expect(chat.messages.slice(0, -1).flatMap(compactionsOf)).toEqual([])
    expect(seen(await loadUIMessages(memory, 'edit-shows-compaction'))).toEqual(seen(chat.messages))
    // Edited again, from a reloaded page this time: still shown once, on the newest answer.
    const reloaded = page(
      route,
      'edit-shows-compaction',
      await loadUIMessages(memory, 'edit-shows-compaction'),
    )
    await reloaded.sendMessage({ text: 'edited twice', messageId: reloaded.messages.at(-2)!.id })
    expect(reloaded.error).toBeUndefined()
    expect(compactionsOf(reloaded.messages.at(-1))).toEqual(shown)
    expect(seen(await loadUIMessages(memory, 'edit-shows-compaction'))).toEqual(seen(reloaded.messages))
    // A new question leaves it on the answer it is on (the new answer may run a compaction of its own).
    await reloaded.sendMessage({ text: 'a new question' })
    expect(compactionsOf(reloaded.messages.at(-3))).toEqual(shown)
    expect(compactionsOf(reloaded.messages.at(-1))).not.toContainEqual(shown[0])
    expect(seen(await loadUIMessages(memory, 'edit-shows-compaction'))).toEqual(seen(reloaded.messages))
  })

  it("a compaction that the answer's last step asks for ends the answer, before and after a reload", async () => {
    const memory = createMemory({ compaction: { budget: { inputTokens: 300, rawTailTurns: 1 } } })
    const route = strataChatRoute({ memory, model: scriptedModel({ inputTokens: 250 }) })
    const chat = page(route, 'compacted-after')
    for (let turn = 1; turn <= 4; turn++) await chat.sendMessage({ text: `question ${turn}` })
    expect(chat.error).toBeUndefined()
    const layouts = chat.messages.map((message) => message.parts.map((part) => part.type).join(' '))
    expect(layouts).toContain('step-start text data-memory-compaction')
    expect(seen(await loadUIMessages(memory, 'compacted-after'))).toEqual(seen(chat.messages))
  })

  it('a scope closed between responses reaches the next answer, and reloads show it in the same place', async () => {
    const { memory, route } = setup()
    const chat = page(route, 'between')
    await chat.sendMessage({ text: 'first' })
    const thread = await memory.thread('between')
    // A control on the page runs a task of the app's own between two responses.
    await thread.enter('task', { title: 'Tidy the notes' })
    await thread.exit({ summary: 'Tidied.' })
    await chat.sendMessage({ text: 'second' })
    const answer = chat.messages.at(-1)!
    expect(answer.parts.map((part) => part.type)).toEqual(['data-memory-transition', 'step-start', 'text'])
    expect(answer.parts[0]).toMatchObject({ data: { title: 'Tidy the notes', level: 'global' } })
    // A third response does not show it again: the page's last seq is past it.
    await chat.sendMessage({ text: 'third' })
    expect(chat.messages.at(-1)!.parts.map((part) => part.type)).toEqual(['step-start', 'text'])
    expect(seen(await loadUIMessages(memory, 'between'))).toEqual(seen(chat.messages))
  })

  it('a scope closed between responses stays in view when the answer showing it is regenerated or its question edited', async () => {
    const { memory, route } = setup()
    const chat = page(route, 'between-replaced')
    await chat.sendMessage({ text: 'first' })
    const thread = await memory.thread('between-replaced')
    await thread.enter('task', { title: 'Tidy the notes' })
    await thread.exit({ summary: 'Tidied.' })
    await chat.sendMessage({ text: 'second' })
    const transitionsOf = (message: StrataUIMessage | undefined) =>
      (message?.parts ?? []).filter((part) => part.type === 'data-memory-transition')
    const shown = transitionsOf(chat.messages.at(-1))
    expect(shown).toHaveLength(1)
    // The page drops the answer that showed it; the new answer shows it first, where a reload does.
    await chat.regenerate({ messageId: chat.messages.at(-1)!.id })
    expect(chat.error).toBeUndefined()
    expect(transitionsOf(chat.messages.at(-1))).toEqual(shown)
    expect(seen(await loadUIMessages(memory, 'between-replaced'))).toEqual(seen(chat.messages))
    // The same for an edit of the question, from a reloaded page.
    const reloaded = page(route, 'between-replaced', await loadUIMessages(memory, 'between-replaced'))
    await reloaded.sendMessage({ text: 'second, edited', messageId: reloaded.messages.at(-2)!.id })
    expect(reloaded.error).toBeUndefined()
    expect(reloaded.messages.flatMap(transitionsOf)).toEqual(shown)
    expect(transitionsOf(reloaded.messages.at(-1))).toEqual(shown)
    expect(seen(await loadUIMessages(memory, 'between-replaced'))).toEqual(seen(reloaded.messages))
  })

  it('the same recipe with a ToolLoopAgent in place of streamText', async () => {
    const memory = createMemory()
    const model = scriptedModel()
    const route = async (request: Request) => {
      let chat: Awaited<ReturnType<typeof openChatRequest<StrataUIMessage>>>
      try {
        chat = await openChatRequest<StrataUIMessage>({ memory, request })
      } catch (error) {
        return strataErrorResponse(error)
      }
      const { hold, message, messageId, providerOptions } = chat
      const agent = new ToolLoopAgent({
        model: wrapLanguageModel({ model, middleware: strataMiddleware({ memory, hold }) }),
        instructions: 'Be brief.',
        tools,
        stopWhen: isStepCount(5),
        providerOptions,
      })
      const stream = createUIMessageStream<StrataUIMessage>({
        execute: async ({ writer }) => {
          try {
            writer.write({ type: 'start', messageId })
            const result = await agent.stream({
              messages: await convertToModelMessages([message], { tools }),
            })
            const chunks = toUIMessageStream<typeof tools, StrataUIMessage>({
              stream: result.stream,
              tools,
              sendStart: false,
              onError: strataOnError,
            }).getReader()
            for (let read = await chunks.read(); !read.done; read = await chunks.read())
              writer.write(read.value)
          } finally {
            await hold.release()
          }
        },
        onError: strataOnError,
      })
      return createUIMessageStreamResponse({ stream })
    }
    const chat = page(route, 'agent')
    await chat.sendMessage({ text: 'look up lilies' })
    await chat.sendMessage({ text: 'thanks' })
    expect(chat.error).toBeUndefined()
    expect(model.doStreamCalls).toHaveLength(3)
    expect(seen(await loadUIMessages(memory, 'agent'))).toEqual(seen(chat.messages))
  })

  it('a body that is not JSON is a 400, and an older message sent again is a 409: nothing stored either way', async () => {
    const { memory, route } = setup()
    const chat = page(route, 'odd-bodies')
    await chat.sendMessage({ text: 'one' })
    await chat.sendMessage({ text: 'two' })
    const before = await (await memory.thread('odd-bodies')).items()
    const malformed = await route(
      new Request('http://localhost/api/chat', { method: 'POST', body: 'not json' }),
    )
    expect(malformed.status).toBe(400)
    expect(await strataErrorFromResponse(malformed)).toMatchObject({ code: 'STRATA_INVALID_OPTIONS' })
    const again = await route(
      new Request('http://localhost/api/chat', {
        method: 'POST',
        body: JSON.stringify({ id: 'odd-bodies', trigger: 'submit-message', message: chat.messages[0] }),
      }),
    )
    expect(again.status).toBe(409)
    expect((await strataErrorFromResponse(again)).code).toBe('STRATA_SEQ_CONFLICT')
    expect(await (await memory.thread('odd-bodies')).items()).toEqual(before)
  })

  it('a model that fails gives the page one error chunk, with its Strata-shaped text; the question stays stored', async () => {
    const memory = createMemory()
    const model = new MockLanguageModelV4({
      doStream: async () => {
        throw new Error('Overloaded')
      },
    })
    const route = strataChatRoute({ memory, model, tools })
    const response = await route(
      new Request('http://localhost/api/chat', {
        method: 'POST',
        body: JSON.stringify({
          id: 'failing',
          trigger: 'submit-message',
          message: { id: 'u-1', role: 'user', parts: [{ type: 'text', text: 'hello?' }] },
        }),
      }),
    )
    const chunks = (await response.text())
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)) as { type: string })
    expect(chunks.filter((chunk) => chunk.type === 'error')).toHaveLength(1)
    const stored = await (await memory.thread('failing')).items()
    expect(stored.map((item) => (item.type === 'message' ? item.role : item.type))).toEqual(['user'])
  })

  it('a user message useChat would not send, or one with nothing in it, is a 400 before anything is stored', async () => {
    const { memory, route } = setup()
    const chat = page(route, 'bad-parts')
    await chat.sendMessage({ text: 'one' })
    const before = await (await memory.thread('bad-parts')).items()
    const send = (parts: unknown) =>
      route(
        new Request('http://localhost/api/chat', {
          method: 'POST',
          body: JSON.stringify({
            id: 'bad-parts',
            trigger: 'submit-message',
            message: { id: 'u-bad', role: 'user', parts },
          }),
        }),
      )
    for (const [parts, reason] of [
      [[{ type: 'text', text: 5 }], 'invalid-ui-message'],
      [[{ type: 'foo' }], 'invalid-ui-message'],
      // The SDK's own check refuses a message without parts.
      [[], 'invalid-ui-message'],
      [[{ type: 'text', text: '  ' }], 'empty'],
    ] as const) {
      const response = await send(parts)
      expect(response.status, JSON.stringify(parts)).toBe(400)
      expect(await strataErrorFromResponse(response)).toMatchObject({
        code: 'STRATA_INVALID_MESSAGE',
        details: { reason },
      })
    }
    expect(await (await memory.thread('bad-parts')).items()).toEqual(before)
    // The chat goes on.
    await chat.sendMessage({ text: 'two' })
    expect((await (await memory.thread('bad-parts')).items()).length).toBeGreaterThan(before.length)
  })
})
