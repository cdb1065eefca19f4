import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { StrataUIMessage } from '@strata-memory/ai-sdk'
import type { Memory } from '@strata-memory/core'
import { fileStore } from '@strata-memory/store-file'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { handleChat } from './chat-handler'
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

/** Sends a chat request as useChat does and reads the answer back into the assistant message. */
async function send(messages: StrataUIMessage[], threadId: string, pending: Promise<unknown>[] = []) {
  const response = await handleChat(post({ id: threadId, messages, trigger: 'submit-message' }), {
    memory,
    model: new ScriptedAgentModel(),
    waitUntil: (work) => pending.push(work),
  })
  expect(response.status).toBe(200)
  return readAnswer(response)
}

describe('POST /api/chat (the route handler on its own)', () => {
  it('runs the scripted agent: a project, a task per part opened and closed by the agent, transitions in the chat', async () => {
    const pending: Promise<unknown>[] = []
    const answer = await send([user('u1', 'Build the Acme landing page')], 'web.first', pending)
    const transitions = answer.parts.filter((part) => part.type === 'data-memory-transition')
    expect(transitions.map((part) => part.data.title)).toEqual(TASKS.map((task) => task.title))
    const thread = await memory.thread('web.first')
    expect(thread.level).toBe('project')
    const items = await thread.items()
    expect(new Set(items.map((item) => item.level))).toEqual(new Set(['global', 'project', 'task']))
    // The project's context holds none of the tasks' write_file calls.
    const { messages, stats } = await thread.context({ level: 'project' })
    expect(JSON.stringify(messages)).not.toContain('write_file')
    expect(stats.savedRatio).toBeGreaterThanOrEqual(0.75)
    expect(pending).toHaveLength(1)
    await Promise.all(pending)
  })

  it('stores a re-sent history once: the second request adds only the new question and its answer', async () => {
    const first = [user('u1', 'Build the Acme landing page')]
    const answer = await send(first, 'web.resend')
    const thread = await memory.thread('web.resend')
    const before = await thread.items()
    const userMessages = (items: typeof before) =>
      items.flatMap((item) => (item.type === 'message' && item.role === 'user' && !item.scope ? [item] : []))
    await send([...first, answer, user('u2', 'What did you build?')], 'web.resend')
    const after = await (await memory.thread('web.resend')).items()
    expect(userMessages(after).map((item) => item.content)).toEqual([
      ...userMessages(before).map((item) => item.content),
      [{ type: 'text', text: 'What did you build?' }],
    ])
    const writes = (items: typeof before) =>
      items.filter(
        (item) =>
          item.type === 'message' &&
          item.content.some((part) => part.type === 'tool-call' && part.toolName === 'write_file'),
      ).length
    expect(writes(after)).toBe(writes(before))
  })

  it('shows a scope closed between responses at the start of the next response, once', async () => {
    const first = [user('u1', 'Build the Acme landing page')]
    const answer = await send(first, 'web.between')
    // The app closes the project between requests (a control on the page could do the same).
    const thread = await memory.thread('web.between')
    await thread.exit({ outcome: 'complete', summary: 'Landing page delivered.' })
    const second = [...first, answer, user('u2', 'What did you build?')]
    const next = await send(second, 'web.between')
    const titles = (message: StrataUIMessage) =>
      message.parts.flatMap((part) => (part.type === 'data-memory-transition' ? [part.data.title] : []))
    expect(titles(next)).toEqual(['Landing page for Acme Rockets'])
    // Shown once: the next request re-sends it in the chat, and it is not written again.
    const third = await send([...second, next, user('u3', 'Thanks')], 'web.between')
    expect(titles(third)).toEqual([])
  })

  // A compaction that archived tool steps of the newest turn: the re-sent history still lines up.
  it('continues a re-sent history after a forced compaction archived steps of the last turn', async () => {
    const first = [user('u1', 'Build the Acme landing page')]
    const answer = await send(first, 'web.compacted')
    await (await memory.thread('web.compacted')).compact({ force: true })
    const next = await send([...first, answer, user('u2', 'What did you build?')], 'web.compacted')
    expect(next.parts.some((part) => part.type === 'text' && part.text.startsWith('So far'))).toBe(true)
  })

  it('starts an unknown thread fresh, with only what this request holds', async () => {
    await send([user('u1', 'Build the Acme landing page')], 'web.other')
    await send([user('u1', 'Build the Acme landing page')], 'web.unknown')
    const items = await (await memory.thread('web.unknown')).items()
    const users = items.filter((item) => item.type === 'message' && item.role === 'user' && !item.scope)
    expect(users).toHaveLength(1)
    expect(items[0]).toMatchObject({ seq: 1, type: 'message', role: 'user' })
  })

  it('answers a malformed body with a 400 and a message that says what is wrong', async () => {
    const model = new ScriptedAgentModel()
    const cases: [unknown, RegExp][] = [
      ['{not json', /not JSON/],
      [[1, 2], /JSON object/],
      [{ messages: [user('u1', 'Hi')] }, /"id"/],
      [{ id: 'web.bad', messages: [] }, /"messages"/],
      [{ id: 'web.bad', messages: [{ role: 'user', content: 'Hi' }] }, /messages\[0\] is not a UI message/],
    ]
    for (const [body, message] of cases) {
      const response = await handleChat(post(body), { memory, model })
      expect(response.status, JSON.stringify(body)).toBe(400)
      const error = await errorOf(response)
      expect(error.code).toBe('BAD_REQUEST')
      expect(error.message).toMatch(message)
    }
    expect(await (await memory.thread('web.bad')).items()).toEqual([])
  })

  it("answers a bad thread id with a 400 carrying Strata's code and message", async () => {
    const response = await handleChat(post({ id: '../../etc', messages: [user('u1', 'Hi')] }), {
      memory,
      model: new ScriptedAgentModel(),
    })
    expect(response.status).toBe(400)
    const error = await errorOf(response)
    expect(error.code).toBe('STRATA_INVALID_THREAD_ID')
    expect(error.message).toMatch(/thread id/i)
  })
})
