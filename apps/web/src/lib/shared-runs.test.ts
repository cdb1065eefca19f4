import type { Memory } from '@strata-memory/core'
import { redisStore } from '@strata-memory/store-redis'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { AppUIMessage } from './app-ui-message'
import { handleChat, handleResume } from './chat-handler'
import { loadChat } from './chat-load'
import { createAppMemory } from './memory'
import { TASKS } from './project-plan'
import { ScriptedAgentModel } from './scripted-agent'
import { redisRuns, type SharedRuns } from './shared-runs'
import { post, readAnswer, user } from './testing/chat-requests'
import { startRedis, type TestRedisServer } from './testing/redis-server'

let redis: TestRedisServer
beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  await redis.stop()
})

/** What each server process holds: its memory on the shared Redis store, its shared runs. */
const opened: { memory: Memory; runs: SharedRuns }[] = []
function serverProcess() {
  const process = {
    memory: createAppMemory(redisStore({ url: redis.url, prefix: 'web-shared' })),
    runs: redisRuns({ url: redis.url, prefix: 'web-shared-runs' }),
  }
  opened.push(process)
  return process
}
afterEach(async () => {
  for (const { memory, runs } of opened.splice(0)) await Promise.all([memory.close(), runs.close()])
})

const titles = (message: AppUIMessage) =>
  message.parts.flatMap((part) => (part.type === 'data-memory-transition' ? [part.data.title] : []))

/** An SSE body as the route's response. */
const asResponse = (sse: ReadableStream<string>) => new Response(sse.pipeThrough(new TextEncoderStream()))

describe('a response resumed on another server process (resumable-stream on Redis)', () => {
  it('starts on one process and resumes from its first chunk on another; the chat there then shows the finished answer', async () => {
    const first = serverProcess()
    const second = serverProcess()
    const response = await handleChat(
      post({
        id: 'web.shared',
        message: user('u1', 'Build the Acme landing page'),
        trigger: 'submit-message',
      }),
      { memory: first.memory, model: new ScriptedAgentModel({ delayMs: 20 }), runs: first.runs },
    )
    // The page reads the first chunk and goes away (a reload); the run goes on.
    const reader = response.body!.getReader()
    await reader.read()
    await reader.cancel()
    // The reloaded page lands on the other process: it is told a response runs, and resumes it there.
    await expect.poll(() => second.runs.running('web.shared')).toBe(true)
    const reloaded = await loadChat(second.memory, 'web.shared', { runs: second.runs })
    expect(reloaded.running).toBe(true)
    const shared = await second.runs.resume('web.shared')
    expect(shared).toBeDefined()
    const replay = await readAnswer(asResponse(shared!))
    // The whole answer, from its first chunk: every task the agent opened and closed.
    expect(titles(replay)).toEqual(TASKS.map((task) => task.title))
    // Once it ended, the other process sees no run, and its chat shows the finished answer by the same id.
    await expect.poll(() => second.runs.running('web.shared'), { timeout: 10_000 }).toBe(false)
    const after = await loadChat(second.memory, 'web.shared', { runs: second.runs })
    expect(after.running).toBe(false)
    expect(after.messages.at(-1)?.id).toBe(replay.id)
    expect(titles(after.messages.at(-1)!)).toEqual(titles(replay))
  })

  it('the resume route on the other process streams the running answer; with none running it is a 204', async () => {
    const first = serverProcess()
    const second = serverProcess()
    const response = await handleChat(
      post({
        id: 'web.shared-route',
        message: user('u1', 'Build the Acme landing page'),
        trigger: 'submit-message',
      }),
      { memory: first.memory, model: new ScriptedAgentModel({ delayMs: 10 }), runs: first.runs },
    )
    await expect.poll(() => second.runs.running('web.shared-route')).toBe(true)
    // Counts the resumes the shared store answered (not this test process's own record of the run).
    let fromRedis = 0
    const runs: SharedRuns = {
      ...second.runs,
      resume: async (threadId) => {
        const stream = await second.runs.resume(threadId)
        if (stream !== undefined) fromRedis++
        return stream
      },
    }
    const [own, resumed] = await Promise.all([
      readAnswer(response),
      handleResume('web.shared-route', runs).then(readAnswer),
    ])
    expect(fromRedis).toBe(1)
    expect(resumed.id).toBe(own.id)
    expect(resumed.parts.map((part) => part.type)).toEqual(own.parts.map((part) => part.type))
    expect((await handleResume('web.shared-none', second.runs)).status).toBe(204)
    expect(await second.runs.resume('web.shared-none')).toBeUndefined()
  })
})
