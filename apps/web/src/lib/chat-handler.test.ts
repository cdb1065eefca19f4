import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Memory } from '@strata-memory/core'
import { fileStore } from '@strata-memory/store-file'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { AppUIMessage } from './app-ui-message'
import { handleChat, handleChatGet, handleResume, handleStop } from './chat-handler'
import { loadChat } from './chat-load'
import { isRunning } from './chat-runs'
import { createAppMemory } from './memory'
import { TASKS } from './project-plan'
import { ScriptedAgentModel } from './scripted-agent'
import { errorOf, post, readAnswer, user } from './testing/chat-requests'

let dir: string
let memory: Memory
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'strata-web-'))
  memory = createAppMemory(fileStore({ dir, fsync: false }))
})
afterEach(async () => {
  await memory.close()
  await rm(dir, { recursive: true, force: true })
})

/** A request as the page sends it: the chat's last message only. */
const request = (threadId: string, message: AppUIMessage, extra: Record<string, unknown> = {}) =>
  handleChat(post({ id: threadId, message, trigger: 'submit-message', ...extra }), {
    memory,
    model: new ScriptedAgentModel(),
  })

/** Sends the page's last message and reads the answer back into the assistant message. */
async function send(threadId: string, message: AppUIMessage, extra: Record<string, unknown> = {}) {
  const response = await request(threadId, message, extra)
  expect(
    response.status,
    await response
      .clone()
      .text()
      .catch(() => ''),
  ).toBe(200)
  return readAnswer(response)
}

const texts = (messages: AppUIMessage[], role: string) =>
  messages
    .filter((message) => message.role === role)
    .map((message) => message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join(''))

const titles = (message: AppUIMessage) =>
  message.parts.flatMap((part) => (part.type === 'data-memory-transition' ? [part.data.title] : []))

describe('POST /api/chat (the route handler on its own)', () => {
  it('runs the scripted agent: a project, a task per part opened and closed by the agent, transitions in the chat', async () => {
    const pending: Promise<unknown>[] = []
    const response = await handleChat(
      post({
        id: 'web.first',
        message: user('u1', 'Build the Acme landing page'),
        trigger: 'submit-message',
      }),
      { memory, model: new ScriptedAgentModel(), waitUntil: (work) => pending.push(work) },
    )
    const answer = await readAnswer(response)
    expect(titles(answer)).toEqual(TASKS.map((task) => task.title))
    const thread = await memory.thread('web.first')
    expect(thread.level).toBe('project')
    const items = await thread.items()
    expect(new Set(items.map((item) => item.level))).toEqual(new Set(['global', 'project', 'task']))
    // The project's context holds none of the tasks' write_file calls.
    const { messages, stats } = await thread.context({ level: 'project' })
    expect(JSON.stringify(messages)).not.toContain('write_file')
    expect(stats.savedRatio).toBeGreaterThanOrEqual(0.75)
    // The run itself, then the compaction it started: the platform waits for both.
    expect(pending).toHaveLength(2)
    await Promise.all(pending)
  })

  it('continues the thread from the last message alone, turn after turn; the chat reads back from the thread', async () => {
    await send('web.last', user('u1', 'Build the Acme landing page'))
    await send('web.last', user('u2', 'What did you build?'))
    const third = await send('web.last', user('u3', 'And now?'))
    expect(texts([third], 'assistant')[0]).toContain('So far: Hero done')
    const { messages, running } = await loadChat(memory, 'web.last')
    expect(running).toBe(false)
    expect(texts(messages, 'user')).toEqual([
      'Build the Acme landing page',
      'What did you build?',
      'And now?',
    ])
    // The ids the page holds: its own for its messages, the stream's for the answers.
    expect(messages.filter((message) => message.role === 'user').map((message) => message.id)).toEqual([
      'u1',
      'u2',
      'u3',
    ])
    expect(messages.at(-1)?.id).toBe(third.id)
    // The first answer's tool calls are there with their outputs.
    const tools = messages[1]!.parts.filter(
      (part) => part.type === 'dynamic-tool' || part.type.startsWith('tool-'),
    )
    expect(tools.length).toBeGreaterThan(10)
    expect(tools.every((part) => (part as { state: string }).state === 'output-available')).toBe(true)
  })

  it('continues a thread from a second device with an empty chat, and from a stale copy two turns behind, rewinding nothing', async () => {
    const first = await send('web.devices', user('u1', 'Build the Acme landing page'))
    await send('web.devices', user('u2', 'What did you build?'))
    const archivedBefore = (await (await memory.thread('web.devices')).status()).items.archived
    // A second browser: it has nothing but its new message.
    await send('web.devices', user('d2-1', 'Thanks, what is left?'))
    // A stale tab: its copy stops after the first answer, two turns behind; it sends it whole.
    const stale = await readAnswer(
      await handleChat(
        post({
          id: 'web.devices',
          messages: [user('u1', 'Build the Acme landing page'), first, user('u9', 'One more thing')],
          trigger: 'submit-message',
        }),
        { memory, model: new ScriptedAgentModel() },
      ),
    )
    expect(stale.role).toBe('assistant')
    const thread = await memory.thread('web.devices')
    expect((await thread.status()).items.archived).toBe(archivedBefore)
    // A stale tab sending again the message the thread answered last: refused, nothing rewound.
    const before = await thread.items()
    const resent = await request('web.devices', user('u9', 'One more thing'))
    expect(resent.status).toBe(409)
    expect((await errorOf(resent)).code).toBe('STRATA_SEQ_CONFLICT')
    expect(await thread.items()).toEqual(before)
    const { messages } = await loadChat(memory, 'web.devices')
    expect(texts(messages, 'user')).toEqual([
      'Build the Acme landing page',
      'What did you build?',
      'Thanks, what is left?',
      'One more thing',
    ])
  })

  it('shows a scope closed between responses in the next answer of a page that had not seen it, once', async () => {
    const answer = await send('web.between', user('u1', 'Build the Acme landing page'), { lastSeq: 0 })
    // The page has seen what it streamed: the answer's finish carries the thread's last seq.
    const seen = answer.metadata?.strata?.seq
    expect(seen).toBe((await memory.store.head('web.between')).lastSeq)
    // The app closes the project between requests (a control on the page could do the same).
    const thread = await memory.thread('web.between')
    await thread.exit({ outcome: 'complete', summary: 'Landing page delivered.' })
    const next = await send('web.between', user('u2', 'What did you build?'), { lastSeq: seen })
    const shown = next.parts.flatMap((part) => (part.type === 'data-memory-transition' ? [part.data] : []))
    expect(shown).toHaveLength(1)
    expect(shown[0]).toMatchObject({ fromLevel: 'project', level: 'global' })
    expect(shown[0]!.text).toContain('Landing page for Acme Rockets')
    // A page that read the thread after it (its lastSeq is past the transition) is not shown it again.
    const { lastSeq } = await loadChat(memory, 'web.between')
    const third = await send('web.between', user('u3', 'Thanks'), { lastSeq })
    expect(third.parts.filter((part) => part.type === 'data-memory-transition')).toEqual([])
  })

  it('finishes a run whose page went away; the reloaded chat shows the finished answer and the next message continues it', async () => {
    const response = await request('web.reload', user('u1', 'Build the Acme landing page'))
    const reader = response.body!.getReader()
    await reader.read()
    await reader.cancel()
    // The page comes back while the run goes on: it is told to resume, and the replay is the whole answer.
    expect(isRunning('web.reload')).toBe(true)
    const reloaded = await loadChat(memory, 'web.reload')
    expect(reloaded.running).toBe(true)
    expect(reloaded.messages.at(-1)?.role).toBe('user')
    const replay = await readAnswer(await handleResume('web.reload'))
    expect(titles(replay)).toEqual(TASKS.map((task) => task.title))
    await expect.poll(() => isRunning('web.reload'), { timeout: 10_000 }).toBe(false)
    const after = await loadChat(memory, 'web.reload')
    expect(after.running).toBe(false)
    expect(texts(after.messages, 'assistant').at(-1)).toContain('The landing page is built')
    // The reloaded answer is the replayed one: same id, as many file writes.
    expect(after.messages.at(-1)?.id).toBe(replay.id)
    const writes = (message: AppUIMessage | undefined) =>
      message?.parts.filter((part) => part.type === 'tool-write_file').length
    expect(writes(after.messages.at(-1))).toBe(writes(replay))
    expect(writes(replay)).toBeGreaterThan(10)
    const archived = (await (await memory.thread('web.reload')).status()).items.archived
    // The next message continues the finished work: nothing is rewound.
    const next = await send('web.reload', user('u2', 'What did you build?'))
    expect(texts([next], 'assistant')[0]).toContain('So far: Hero done')
    expect((await (await memory.thread('web.reload')).status()).items.archived).toBe(archived)
    // No run: nothing to resume.
    expect((await handleResume('web.none')).status).toBe(204)
  })

  it("stops a running answer on the page's Stop: the run ends early, what it did stays stored, the chat is free", async () => {
    const response = await handleChat(
      post({ id: 'web.stop', message: user('u1', 'Build the Acme landing page'), trigger: 'submit-message' }),
      { memory, model: new ScriptedAgentModel({ delayMs: 20 }) },
    )
    const reader = response.body!.getReader()
    await reader.read()
    await expect.poll(async () => (await (await memory.thread('web.stop')).items()).length).toBeGreaterThan(4)
    expect(await (await handleStop('web.stop')).json()).toEqual({ stopped: true })
    await reader.cancel()
    await expect.poll(() => isRunning('web.stop'), { timeout: 10_000 }).toBe(false)
    const { messages } = await loadChat(memory, 'web.stop')
    expect(texts(messages, 'user')).toEqual(['Build the Acme landing page'])
    expect(texts(messages, 'assistant').join('')).not.toContain('The landing page is built')
    expect(await (await handleStop('web.stop')).json()).toEqual({ stopped: false })
    const hold = await (await memory.thread('web.stop')).hold()
    await hold.release()
  })

  it('regenerates the last answer by its id (the old one archived), and refuses a page that is behind, changing nothing', async () => {
    await send('web.regen', user('u1', 'Build the Acme landing page'))
    const old = await send('web.regen', user('u2', 'What did you build?'))
    const regenerate = (messageId: string, question = user('u2', 'What did you build?')) =>
      handleChat(post({ id: 'web.regen', message: question, trigger: 'regenerate-message', messageId }), {
        memory,
        model: new ScriptedAgentModel(),
      })
    const again = await readAnswer(await regenerate(old.id))
    expect(again.id).not.toBe(old.id)
    expect(texts([again], 'assistant')[0]).toContain('So far: Hero done')
    const archive = await memory.store.readArchive('web.regen')
    expect(archive.some((item) => item.type === 'message' && item.role === 'assistant')).toBe(true)
    const reloaded = await loadChat(memory, 'web.regen')
    expect(texts(reloaded.messages, 'user')).toEqual(['Build the Acme landing page', 'What did you build?'])
    expect(reloaded.messages.map((message) => message.id).slice(-2)).toEqual(['u2', again.id])
    // The old id is gone: a page still showing it asks to regenerate it, or an earlier answer.
    const thread = await memory.thread('web.regen')
    const before = await thread.items()
    for (const refused of [
      await regenerate(old.id),
      await regenerate(reloaded.messages[1]!.id, user('u1', 'Build the Acme landing page')),
    ]) {
      expect(refused.status).toBe(409)
      expect((await errorOf(refused)).code).toBe('STRATA_SEQ_CONFLICT')
    }
    expect(await thread.items()).toEqual(before)
    // The thread is free again after a refused request.
    await (await thread.hold()).release()
  })

  it('writes a data-memory-compaction part when a budget compaction ends during the answer', async () => {
    await memory.close()
    memory = createAppMemory(fileStore({ dir, fsync: false }), { budgetTokens: 6_000 })
    const answer = await send('web.budget', user('u1', 'Build the Acme landing page'))
    const compactions = answer.parts.flatMap((part) =>
      part.type === 'data-memory-compaction' ? [part.data] : [],
    )
    expect(compactions.length).toBeGreaterThan(0)
    expect(compactions[0]).toMatchObject({ threadId: 'web.budget', trigger: 'budget' })
    expect(compactions[0]!.itemsArchived).toBeGreaterThan(0)
    expect(compactions[0]!.tokensAfter).toBeLessThan(compactions[0]!.tokensBefore)
    // The page reloaded: the same parts, in the same places, with the same ids.
    const { messages } = await loadChat(memory, 'web.budget')
    expect(messages.at(-1)!.parts.map((part) => part.type)).toEqual(answer.parts.map((part) => part.type))
    expect(messages.at(-1)!.parts.filter((part) => part.type === 'data-memory-compaction')).toEqual(
      answer.parts.filter((part) => part.type === 'data-memory-compaction'),
    )
  })

  it('publishes only after a person approves: the call waits, the approval runs it once, a reload shows it done', async () => {
    const asked = await send('web.publish', user('u1', 'Publish the site'))
    const call = asked.parts.find((part) => part.type === 'tool-publish_site') as
      | { state: string; approval?: { id: string }; toolCallId: string }
      | undefined
    expect(call?.state).toBe('approval-requested')
    // A reload while it waits: the call still asks for approval.
    const waiting = (await loadChat(memory, 'web.publish')).messages.at(-1)!
    expect(waiting.parts.find((each) => each.type === 'tool-publish_site')).toMatchObject({
      state: 'approval-requested',
    })
    // The page approves: the answer goes back, as useChat sends it after addToolApprovalResponse.
    const approved = structuredClone(asked)
    const part = approved.parts.find((each) => each.type === 'tool-publish_site') as Record<string, unknown>
    Object.assign(part, { state: 'approval-responded', approval: { id: call!.approval!.id, approved: true } })
    const { lastSeq } = await memory.store.head('web.publish')
    // The answer goes on: the stream continues the page's message, as useChat continues it.
    const done = await readAnswer(await request('web.publish', approved, { lastSeq }), approved)
    expect(done.id).toBe(asked.id)
    expect(texts([done], 'assistant')[0]).toContain('Published to production.')
    const items = await (await memory.thread('web.publish')).items()
    const parts = items.flatMap((item) => (item.type === 'message' ? item.content : []))
    expect(
      parts.filter((each) => each.type === 'tool-call' && each.toolName === 'publish_site'),
    ).toHaveLength(1)
    expect(
      parts.filter((each) => each.type === 'tool-result' && each.toolName === 'publish_site'),
    ).toHaveLength(1)
    const { messages } = await loadChat(memory, 'web.publish')
    expect(messages.at(-1)!.parts.find((each) => each.type === 'tool-publish_site')).toMatchObject({
      state: 'output-available',
      approval: { id: call!.approval!.id, approved: true },
    })
  })

  it('answers a malformed body with a 400 and a message that says what is wrong, storing nothing', async () => {
    const model = new ScriptedAgentModel()
    const cases: [unknown, string, RegExp][] = [
      ['{not json', 'BAD_REQUEST', /not JSON/],
      [[1, 2], 'STRATA_INVALID_OPTIONS', /JSON object/],
      [{ message: user('u1', 'Hi') }, 'STRATA_INVALID_OPTIONS', /chat id/],
      [{ id: 'web.bad', messages: [] }, 'STRATA_INVALID_OPTIONS', /message/],
      [{ id: 'web.bad', messages: [{ role: 'user', content: 'Hi' }] }, 'STRATA_INVALID_OPTIONS', /message/],
      [{ id: 'web.bad', message: user('u1', 'Hi'), trigger: 'resume' }, 'STRATA_INVALID_OPTIONS', /trigger/],
      [
        { id: 'web.bad', message: { id: 'a', role: 'assistant', parts: [] } },
        'STRATA_INVALID_MESSAGE',
        /user/,
      ],
      [{ id: 'web.bad', message: user('u1', 'Hi'), lastSeq: -1 }, 'STRATA_INVALID_OPTIONS', /lastSeq/],
    ]
    for (const [body, code, message] of cases) {
      const response = await handleChat(post(body), { memory, model })
      expect(response.status, JSON.stringify(body)).toBe(400)
      const error = await errorOf(response)
      expect(error.code, JSON.stringify(body)).toBe(code)
      expect(error.details?.developerMessage ?? error.message).toMatch(message)
    }
    const thread = await memory.thread('web.bad')
    expect(await thread.items()).toEqual([])
    // No refused request kept the chat.
    await (await thread.hold()).release()
  })

  it("answers a bad thread id with a 400 carrying Strata's code and message, on POST and GET", async () => {
    // Any non-empty chat id is mapped onto a store thread id (issue 26); an empty one cannot be.
    const response = await request('', user('u1', 'Hi'))
    expect(response.status).toBe(400)
    const error = await errorOf(response)
    expect(error.code).toBe('STRATA_INVALID_THREAD_ID')
    expect(error.details?.developerMessage).toMatch(/thread id/i)
    expect(error.message).not.toContain('STRATA_')
    const read = await handleChatGet(new Request('http://localhost/api/chat?id='), memory)
    expect(read.status).toBe(400)
    expect((await errorOf(read)).code).toBe('STRATA_INVALID_THREAD_ID')
  })

  it('pages a long chat: the newest turns first, the earlier ones before a message, none twice', async () => {
    for (const [index, text] of ['Build the Acme landing page', 'One', 'Two', 'Three', 'Four'].entries()) {
      await send('web.pages', user(`p${index}`, text))
    }
    const first = await loadChat(memory, 'web.pages', { limit: 2 })
    expect(texts(first.messages, 'user')).toEqual(['Three', 'Four'])
    expect(first.hasEarlier).toBe(true)
    const read = async (before: string) =>
      (await (
        await handleChatGet(new Request(`http://localhost/api/chat?id=web.pages&before=${before}`), memory)
      ).json()) as { messages: AppUIMessage[]; hasEarlier: boolean }
    const second = await read(first.messages[0]!.id)
    expect(texts(second.messages, 'user').slice(-2)).toEqual(['One', 'Two'])
    expect(second.hasEarlier).toBe(false)
    expect(texts([...second.messages, ...first.messages], 'user')).toEqual([
      'Build the Acme landing page',
      'One',
      'Two',
      'Three',
      'Four',
    ])
  })

  it('reads a chat for a page that fell behind: its messages, its last seq, and whether a response runs', async () => {
    await send('web.read', user('u1', 'What did you build?'))
    const read = await handleChatGet(new Request('http://localhost/api/chat?id=web.read'), memory)
    expect(read.status).toBe(200)
    const body = (await read.json()) as { messages: AppUIMessage[]; lastSeq: number; running: boolean }
    expect(texts(body.messages, 'user')).toEqual(['What did you build?'])
    expect(body.lastSeq).toBe((await (await memory.thread('web.read')).status()).lastSeq)
    expect(body.running).toBe(false)
  })
})
