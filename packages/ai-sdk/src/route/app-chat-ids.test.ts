import type { LanguageModelV4StreamPart } from '@ai-sdk/provider'
import {
  createMemory,
  isHashedThreadId,
  type Memory,
  openAppThread,
  readAppThreadId,
  StrataError,
  toStoreThreadId,
} from '@strata-memory/core'
import { generateText, tool, wrapLanguageModel } from 'ai'
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { strataMiddleware } from '../middleware/strata-middleware'
import { chatPage, seenParts } from '../testing/chat-client'
import { generated, promptText, streamParts, toolCall } from '../testing/model-results'
import { strataChatRoute } from '../testing/strata-chat-route'
import { strataTools } from '../tools/strata-tools'
import { loadUIMessages } from '../ui/load-ui-messages'
import type { StrataUIMessage } from '../ui/memory-ui-parts'

/** Chat ids as apps make them: none is a store thread id as it is; the last is too long to escape. */
const APP_IDS = ['user:42/chat:7', 'Ünïcode/名前', `chat/${'x'.repeat(295)}`]
/** Ids valid as store thread ids: stored under themselves, as before the mapping. */
const VALID_IDS = ['user-42.chat-7', `v${'1'.repeat(127)}`]

const tools = {
  lookup: tool({
    description: 'Looks a topic up',
    inputSchema: z.object({ topic: z.string() }),
    execute: async ({ topic }) => ({ topic, rows: [`${topic} fact`] }),
  }),
}

const textOf = promptText

/** Answers each user message; "look up X" gets a tool call first, then an answer after its result. */
function scriptedModel() {
  let calls = 0
  return new MockLanguageModelV4({
    doStream: async ({ prompt }) => {
      calls++
      const last = prompt.at(-1)
      const topic = last?.role === 'user' ? /look up (\w+)/.exec(textOf(last))?.[1] : undefined
      const parts: LanguageModelV4StreamPart[] =
        topic !== undefined
          ? streamParts([toolCall(`call-${calls}`, 'lookup', { topic })])
          : last?.role === 'tool'
            ? streamParts('Here is what I found.')
            : streamParts(`Answer to: ${textOf(last)}`)
      return { stream: convertArrayToReadableStream(parts) }
    },
  })
}

const page = (route: (request: Request) => Promise<Response>, id: string, messages: StrataUIMessage[] = []) =>
  chatPage<StrataUIMessage>(route, id, messages)
const seen = seenParts

/** Where the chat's items are: the store id, its listing, and the app id read back from the store. */
async function storedUnder(memory: Memory, appId: string) {
  const storeId = await toStoreThreadId(appId)
  const items = await memory.store.read(storeId)
  return {
    storeId,
    listed: (await memory.store.listThreads()).includes(storeId),
    readBack: await readAppThreadId(memory.store, storeId),
    items: items.length,
  }
}

describe("the app's own chat ids", () => {
  it.each(APP_IDS)(
    'the route recipe stores %j under its mapped id and loads it back after a reload',
    async (id) => {
      const memory = createMemory()
      const errors: unknown[] = []
      const route = strataChatRoute({ memory, model: scriptedModel(), tools, errors })
      const chat = page(route, id)
      await chat.sendMessage({ text: 'My name is Ana' })
      await chat.sendMessage({ text: 'look up roses' })
      expect(chat.error).toBeUndefined()
      expect(errors).toEqual([])

      const where = await storedUnder(memory, id)
      expect(where.storeId).not.toBe(id)
      expect(where.storeId).toMatch(/^_\.[A-Za-z0-9_.-]{1,126}$/)
      expect(isHashedThreadId(where.storeId)).toBe(id.length > 100)
      expect(where).toMatchObject({ listed: true, readBack: id })
      expect(where.items).toBeGreaterThan(0)
      // Nothing is stored under the app's id itself.
      expect(await memory.store.listThreads()).toEqual([where.storeId])

      // The page reloads: it starts from the thread, and goes on from there.
      const loaded = await loadUIMessages(memory, id)
      expect(seen(loaded)).toEqual(seen(chat.messages))
      const reloaded = page(route, id, loaded)
      // A scope the app closes between responses reaches the next answer, naming the chat's own id.
      const thread = await memory.thread(where.storeId)
      await thread.enter('task', { title: 'Tidy the notes' })
      await thread.exit({ summary: 'Tidied.' })
      await reloaded.sendMessage({ text: 'What is my name?' })
      expect(reloaded.error).toBeUndefined()
      const answer = reloaded.messages.at(-1)!
      expect(answer.parts[0]).toMatchObject({
        type: 'data-memory-transition',
        data: { threadId: id, title: 'Tidy the notes' },
      })
      expect(answer.parts.at(-1)).toMatchObject({ type: 'text', text: 'Answer to: What is my name?' })
      // The context statistics writeMemoryParts matched to the chat (a hashed id's events too).
      expect(answer.metadata?.strata?.contextTokens).toBeGreaterThan(0)
      expect(seen(await loadUIMessages(memory, id))).toEqual(seen(reloaded.messages))
      expect(await memory.store.listThreads()).toEqual([where.storeId])
    },
  )

  it.each(VALID_IDS)('the route recipe stores %j, a valid store id, under itself as before', async (id) => {
    const memory = createMemory()
    const chat = page(strataChatRoute({ memory, model: scriptedModel(), tools }), id)
    await chat.sendMessage({ text: 'look up tulips' })
    expect(chat.error).toBeUndefined()
    const where = await storedUnder(memory, id)
    expect(where).toMatchObject({ storeId: id, listed: true, readBack: id })
    // No app id recorded: the thread's state is as it was before the mapping.
    expect((await memory.store.getState(id))?.appThreadId).toBeUndefined()
    expect(seen(await loadUIMessages(memory, id))).toEqual(seen(chat.messages))
  })

  it.each([...APP_IDS, ...VALID_IDS])(
    'generateText with providerOptions.strata.threadId %j keeps the chat in its thread',
    async (id) => {
      const memory = createMemory()
      const model = new MockLanguageModelV4({
        doGenerate: async ({ prompt }) => generated(`Answer to: ${textOf(prompt.at(-1))}`),
      })
      const wrapped = wrapLanguageModel({ model, middleware: strataMiddleware({ memory }) })
      const providerOptions = { strata: { threadId: id } }
      await generateText({ model: wrapped, prompt: 'My name is Ana', providerOptions })
      // Only the new message is sent: the thread gives the model the rest.
      await generateText({
        model: wrapped,
        messages: [{ role: 'user', content: 'What is my name?' }],
        providerOptions,
      })
      expect(JSON.stringify(model.doGenerateCalls.at(-1)!.prompt)).toContain('My name is Ana')
      const where = await storedUnder(memory, id)
      expect(where).toMatchObject({ listed: true, readBack: id, items: 4 })
      expect(where.storeId === id).toBe(VALID_IDS.includes(id))
      const loaded = await loadUIMessages(memory, id)
      expect(loaded.map((message) => [message.role, message.parts.at(-1)])).toEqual([
        ['user', { type: 'text', text: 'My name is Ana' }],
        ['assistant', { type: 'text', text: 'Answer to: My name is Ana', state: 'done' }],
        ['user', { type: 'text', text: 'What is my name?' }],
        ['assistant', { type: 'text', text: 'Answer to: What is my name?', state: 'done' }],
      ])
    },
  )

  it("strataMiddleware's threadId and strataTools take the app's id, on the same thread", async () => {
    const memory = createMemory()
    const id = APP_IDS[0]!
    const model = new MockLanguageModelV4({ doGenerate: async () => generated('Noted.') })
    const wrapped = wrapLanguageModel({ model, middleware: strataMiddleware({ memory, threadId: id }) })
    await generateText({ model: wrapped, prompt: 'Remember the blue gate code 4417' })
    const memoryTools = strataTools(memory, { threadId: id, scopes: true })
    const options = { toolCallId: 't1', messages: [], context: {} }
    const found = await memoryTools.memory_query.execute!({ text: 'gate code 4417' }, options)
    expect(JSON.stringify(found)).toContain('4417')
    await memoryTools.enter_scope.execute!({ level: 'task', title: 'Fix the gate' }, options)
    const storeId = await toStoreThreadId(id)
    expect((await (await memory.thread(storeId)).status()).level).toBe('task')
    expect(await memory.store.listThreads()).toEqual([storeId])
  })

  it("a request hold and the middleware's threadId are compared by the mapped id", async () => {
    const memory = createMemory()
    const [plain, , long] = APP_IDS as [string, string, string]
    // Taken as a route takes it: the app's thread opened (its id recorded), then held.
    const held = await (await openAppThread(memory, long)).hold()
    try {
      const model = new MockLanguageModelV4({ doGenerate: async () => generated('Yes.') })
      // The app's id of the held thread: accepted, and the call is the holder's.
      const wrapped = wrapLanguageModel({
        model,
        middleware: strataMiddleware({ memory, threadId: long, hold: held }),
      })
      await generateText({ model: wrapped, prompt: 'Hi', providerOptions: { strata: { threadId: long } } })
      expect(await loadUIMessages(memory, long)).toHaveLength(2)
      // Another chat's id is refused, at once when the ids tell, else by the call; nothing is stored.
      const codeOf = (run: () => unknown) => {
        try {
          run()
        } catch (error) {
          return StrataError.isInstance(error) ? error.code : 'not a StrataError'
        }
        return 'no error'
      }
      const plainHold = await (await openAppThread(memory, plain)).hold()
      expect(codeOf(() => strataMiddleware({ memory, threadId: `${plain}!`, hold: plainHold }))).toBe(
        'STRATA_INVALID_OPTIONS',
      )
      expect(codeOf(() => strataMiddleware({ memory, threadId: plain, hold: plainHold }))).toBe('no error')
      await plainHold.release()
      const other = wrapLanguageModel({
        model,
        middleware: strataMiddleware({ memory, threadId: `${long}!`, hold: held }),
      })
      const error = await generateText({ model: other, prompt: 'Hi' }).catch((thrown: unknown) => thrown)
      expect(StrataError.isInstance(error, 'STRATA_INVALID_OPTIONS')).toBe(true)
      expect((error as Error).message).toContain(long)
      expect(await loadUIMessages(memory, long)).toHaveLength(2)
    } finally {
      await held.release()
    }
  })

  it('an empty chat id is still a 400 STRATA_INVALID_THREAD_ID with the text for people, storing nothing', async () => {
    const memory = createMemory()
    const route = strataChatRoute({ memory, model: scriptedModel() })
    const response = await route(
      new Request('http://localhost/api/chat', {
        method: 'POST',
        body: JSON.stringify({
          id: '',
          trigger: 'submit-message',
          message: { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] },
        }),
      }),
    )
    expect(response.status).toBe(400)
    const body = (await response.json()) as {
      error: { code: string; message: string; details: { developerMessage: string } }
    }
    expect(body.error.code).toBe('STRATA_INVALID_THREAD_ID')
    expect(body.error.message).toBe('This chat’s address is not valid. Start a new chat.')
    expect(body.error.details.developerMessage).toMatch(/non-empty/)
    expect(await memory.store.listThreads()).toEqual([])
    await expect(loadUIMessages(memory, '')).rejects.toMatchObject({ code: 'STRATA_INVALID_THREAD_ID' })
  })
})
