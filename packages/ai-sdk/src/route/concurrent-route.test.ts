import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider'
import { createMemory } from '@strata-memory/core'
import { fileStore } from '@strata-memory/store-file'
import { MockLanguageModelV4 } from 'ai/test'
import { afterAll, describe, expect, it } from 'vitest'
import { sendLastMessage } from '../client/send-last-message'
import { strataErrorFromResponse } from '../client/strata-error-from-response'
import { TestChat } from '../testing/chat-client'
import { streamParts } from '../testing/model-results'
import { strataChatRoute } from '../testing/strata-chat-route'
import { loadUIMessages } from '../ui/load-ui-messages'
import type { StrataUIMessage } from '../ui/memory-ui-parts'

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** A file store in a fresh directory, as a deployed app has. */
function fileMemory() {
  const dir = mkdtempSync(join(tmpdir(), 'strata-ai-sdk-route-'))
  dirs.push(dir)
  return { dir, memory: createMemory({ store: fileStore({ dir }) }) }
}

/** `strata verify <thread>` with the built CLI, as an operator runs it. */
function verify(dir: string, threadId: string): Promise<{ code: number; stdout: string }> {
  const bin = createRequire(import.meta.url)
    .resolve('@strata-memory/cli/package.json')
    .replace(/package\.json$/, 'dist/bin.js')
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [bin, '--store', dir, 'verify', threadId], (error, stdout) => {
      if (error && typeof error.code !== 'number') reject(error)
      else resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout })
    })
  })
}

/** A gate the test opens: a slow provider's second half waits for it. */
function gate() {
  let open!: () => void
  const opened = new Promise<void>((resolve) => {
    open = resolve
  })
  return { open, wait: () => opened }
}

/** A provider that streams half an answer, then waits for the gate before the rest. */
function slowModel(wait: () => Promise<void>) {
  return new MockLanguageModelV4({
    doStream: async ({ prompt }) => {
      const last = prompt.at(-1)
      const text =
        last?.role === 'user'
          ? last.content.map((part) => (part.type === 'text' ? part.text : '')).join('')
          : ''
      const parts = streamParts(`A long answer to: ${text}`)
      const half = Math.ceil(parts.length / 2)
      return {
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          async start(controller) {
            for (const part of parts.slice(0, half)) controller.enqueue(part)
            await wait()
            for (const part of parts.slice(half)) controller.enqueue(part)
            controller.close()
          },
        }),
      }
    },
  })
}

/** Waits (bounded) until the thread can be held again: the route's request has ended. */
async function requestEnded(memory: ReturnType<typeof createMemory>, threadId: string) {
  const thread = await memory.thread(threadId)
  for (let attempt = 0; attempt < 200; attempt++) {
    try {
      const hold = await thread.hold()
      await hold.release()
      return
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  }
  throw new Error('the request never ended')
}

const body = (id: string, text: string, messageId = `m-${text}`) =>
  JSON.stringify(
    sendLastMessage({
      id,
      trigger: 'submit-message',
      messageId: undefined,
      messages: [{ id: messageId, role: 'user', parts: [{ type: 'text', text }] }],
    }).body,
  )

describe('the persistence route under reloads and concurrent requests (file store)', () => {
  it('a reload mid-stream keeps the finished answer; the reloaded page shows it and continues', async () => {
    const { dir, memory } = fileMemory()
    const { open, wait } = gate()
    const route = strataChatRoute({ memory, model: slowModel(wait) })
    const response = await route(
      new Request('http://localhost/api/chat', { method: 'POST', body: body('reload', 'hello') }),
    )
    expect(response.status).toBe(200)
    // The page reads the first chunks, then goes away (a reload).
    const reader = response.body!.getReader()
    const first = new TextDecoder().decode((await reader.read()).value)
    const messageId = /"messageId":"([^"]+)"/.exec(first)?.[1]
    expect(messageId).toBeDefined()
    await reader.cancel()
    open()
    await requestEnded(memory, 'reload')

    const reloaded = await loadUIMessages(memory, 'reload')
    expect(reloaded.map((message) => message.id)).toEqual(['m-hello', messageId])
    expect(reloaded[1]!.parts.filter((part) => part.type === 'text')).toEqual([
      { type: 'text', text: 'A long answer to: hello', state: 'done' },
    ])
    // The reloaded page continues: nothing rewound.
    const chat = new TestChat<StrataUIMessage>(
      strataChatRoute({ memory, model: slowModel(async () => {}) }),
      {
        id: 'reload',
        messages: reloaded,
        prepareSendMessagesRequest: sendLastMessage,
      },
    )
    await chat.sendMessage({ text: 'and then?' })
    expect(chat.error).toBeUndefined()
    const thread = await memory.thread('reload')
    expect((await thread.status()).items.archived).toBe(0)
    expect((await loadUIMessages(memory, 'reload')).map((message) => message.id)).toEqual(
      chat.messages.map((message) => message.id),
    )
    expect((await verify(dir, 'reload')).code).toBe(0)
    await memory.close()
  })

  it('two POSTs at once on one chat: one 409 STRATA_THREAD_BUSY a person can read, the other completes; verify is clean', async () => {
    const { dir, memory } = fileMemory()
    const { open, wait } = gate()
    const model = slowModel(wait)
    const route = strataChatRoute({ memory, model })
    const first = new TestChat<StrataUIMessage>(route, {
      id: 'busy',
      prepareSendMessagesRequest: sendLastMessage,
    })
    const second = new TestChat<StrataUIMessage>(route, {
      id: 'busy',
      prepareSendMessagesRequest: sendLastMessage,
    })
    const sending = first.sendMessage({ text: 'from tab one' })
    // The first request holds the chat while its answer streams (it has reached the model).
    for (let attempt = 0; model.doStreamCalls.length === 0 && attempt < 500; attempt++)
      await new Promise((resolve) => setTimeout(resolve, 5))
    expect(model.doStreamCalls).toHaveLength(1)
    const direct = await route(
      new Request('http://localhost/api/chat', { method: 'POST', body: body('busy', 'from tab two') }),
    )
    expect(direct.status).toBe(409)
    const shown = await strataErrorFromResponse(direct)
    expect(shown).toMatchObject({ code: 'STRATA_THREAD_BUSY', status: 409 })
    expect(shown.message).toBe(
      'This chat is busy with another reply (in another tab or window). Wait until it has finished, then send again.',
    )
    await second.sendMessage({ text: 'from tab two' })
    expect(strataErrorFromResponse(second.error).code).toBe('STRATA_THREAD_BUSY')
    open()
    await sending
    expect(first.error).toBeUndefined()

    const thread = await memory.thread('busy')
    const users = (await thread.items()).filter((item) => item.type === 'message' && item.role === 'user')
    expect(users).toHaveLength(1)
    expect(JSON.stringify(await thread.items())).not.toContain('from tab two')
    const { code, stdout } = await verify(dir, 'busy')
    expect(stdout).toContain('busy: 2 items, no problem')
    expect(code).toBe(0)
    // The busy tab still shows its refused message (useChat added it before sending). It sends it
    // again once the first has finished, as the README says: taken off the list, then sent.
    expect(second.messages.map((message) => message.role)).toEqual(['user'])
    second.messages = second.messages.slice(0, -1)
    await second.sendMessage({ text: 'from tab two' })
    expect(second.error).toBeUndefined()
    const loaded = await loadUIMessages(memory, 'busy')
    expect(loaded.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
    // The page shows the refused message once, now answered.
    const asked = second.messages.filter(
      (message) => message.role === 'user' && JSON.stringify(message.parts).includes('from tab two'),
    )
    expect(asked).toHaveLength(1)
    expect(second.messages.at(-1)?.role).toBe('assistant')
    await memory.close()
  })
})
