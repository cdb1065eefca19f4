import { execFile } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { Memory } from '@strata-memory/core'
import { fileStore } from '@strata-memory/store-file'
import { redisStore } from '@strata-memory/store-redis'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { AppUIMessage } from './app-ui-message'
import { handleChat } from './chat-handler'
import { createAppMemory } from './memory'
import { ScriptedAgentModel } from './scripted-agent'
import { errorOf, post, readAnswer, user } from './testing/chat-requests'
import { startRedis, type TestRedisServer } from './testing/redis-server'

const run = promisify(execFile)
/** The `strata` command as built in this repository (the lead's CI builds packages before tests). */
const strataCli = fileURLToPath(new URL('../../../../packages/cli/dist/bin.js', import.meta.url))

let dir: string
let memory: Memory
let redis: TestRedisServer | undefined
/** The store the app runs on (see memory.ts): each suite below runs on both. */
let storeKind: 'file' | 'redis' = 'file'
let prefix = 0

/** The hooks of a suite on one kind of store. */
function onStore(kind: 'file' | 'redis') {
  beforeAll(async () => {
    storeKind = kind
    if (kind === 'redis') redis = await startRedis()
  })
  afterAll(async () => {
    await redis?.stop()
    redis = undefined
  })
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'strata-web-busy-'))
    memory = createAppMemory(
      redis === undefined
        ? fileStore({ dir, fsync: false })
        : redisStore({ url: redis.url, prefix: `web-busy-${++prefix}` }),
    )
  })
  afterEach(async () => {
    await memory.close()
    await rm(dir, { recursive: true, force: true })
  })
}

/**
 * What the store holds of a thread, to compare before and after a refused request: every file of its
 * folder, byte for byte (file store), or its log, archive and state as the store returns them (Redis).
 */
async function storedThread(threadId: string): Promise<unknown> {
  if (storeKind === 'redis') {
    const { store } = memory
    return {
      active: await store.read(threadId),
      archive: await store.readArchive(threadId),
      state: await store.getState(threadId),
      content: await store.queryContent?.(threadId),
    }
  }
  const folder = join(dir, 'agents', threadId)
  const files: Record<string, string> = {}
  for (const name of (await readdir(folder, { recursive: true })).sort()) {
    // The lease and lock files are the hold itself, not the thread's data.
    if (name.endsWith('.lease') || name.endsWith('.lock')) continue
    files[name] = await readFile(join(folder, name), 'utf8').catch(() => '<folder>')
  }
  return files
}

/** `strata verify <thread>` on the app's store folder: its exit code and what it printed. */
async function verify(threadId: string) {
  const target =
    redis === undefined ? ['--store', dir] : ['--store', redis.url, '--prefix', `web-busy-${prefix}`]
  try {
    const { stdout } = await run(process.execPath, [strataCli, ...target, 'verify', threadId])
    return { code: 0, stdout }
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string }
    return { code: failed.code, stdout: `${failed.stdout}${failed.stderr}` }
  }
}

const chat = (messages: AppUIMessage[], threadId: string, init?: RequestInit) =>
  handleChat(post({ id: threadId, messages, trigger: 'submit-message' }, init), {
    memory,
    model: new ScriptedAgentModel({ delayMs: 2 }),
  })

describe.each(['file', 'redis'] as const)(
  'POST /api/chat: one request at a time per chat (%s store)',
  (kind) => {
    onStore(kind)

    it('answers the second of two concurrent requests with a 409 and stores nothing of it; the first completes and the thread verifies clean', async () => {
      const first = [user('u1', 'Build the Acme landing page')]
      const second = [user('u2', 'Build the Zenith landing page instead')]
      // A double submit from two tabs: both requests reach the route at once.
      const [a, b] = await Promise.all([chat(first, 'web.twice'), chat(second, 'web.twice')])
      expect([a.status, b.status]).toEqual([200, 409])
      const error = await errorOf(b)
      expect(error.code).toBe('STRATA_THREAD_BUSY')
      expect(error.message).toMatch(/^This chat is busy/)
      expect(error.details?.developerMessage).toContain("Thread 'web.twice' is held by another request")
      const answer = await readAnswer(a)
      expect(answer.parts.some((part) => part.type === 'data-memory-transition')).toBe(true)

      const thread = await memory.thread('web.twice')
      const stored = JSON.stringify(await thread.items())
      expect(stored).toContain('Acme')
      expect(stored).not.toContain('Zenith')
      const interactions = await thread.toolInteractions()
      expect(interactions.length).toBeGreaterThan(0)
      expect(interactions.filter((interaction) => interaction.status === 'pending')).toEqual([])
      const verified = await verify('web.twice')
      expect(verified.stdout).not.toContain('orphan')
      expect(verified.code).toBe(0)
    })

    it('answers 409 to a request another server process receives while this one holds the chat', async () => {
      // A second process on the same store: its own memory object, so only the store's lease tells.
      const other = createAppMemory(
        redis === undefined
          ? fileStore({ dir, fsync: false })
          : redisStore({ url: redis.url, prefix: `web-busy-${prefix}` }),
      )
      try {
        const first = [user('u1', 'Build the Acme landing page')]
        const running = await chat(first, 'web.processes')
        expect(running.status).toBe(200)
        const refused = await handleChat(
          post({ id: 'web.processes', messages: [user('u9', 'Build the Zenith landing page')] }),
          { memory: other, model: new ScriptedAgentModel() },
        )
        expect(refused.status).toBe(409)
        expect((await errorOf(refused)).code).toBe('STRATA_THREAD_BUSY')
        await readAnswer(running)
        expect(JSON.stringify(await (await memory.thread('web.processes')).items())).not.toContain('Zenith')
        expect((await verify('web.processes')).code).toBe(0)
      } finally {
        await other.close()
      }
    })

    it('a request on a busy chat changes no byte of its thread', async () => {
      const first = [user('u1', 'Build the Acme landing page')]
      const answer = await readAnswer(await chat(first, 'web.bytes'))
      // The next request waits at its model call (its message stored) when another one arrives.
      let open!: () => void
      const gate = new Promise<void>((resolve) => {
        open = resolve
      })
      let reached!: () => void
      const atGate = new Promise<void>((resolve) => {
        reached = resolve
      })
      const model = new (class extends ScriptedAgentModel {
        override async doStream(options: Parameters<ScriptedAgentModel['doStream']>[0]) {
          reached()
          await gate
          return super.doStream(options)
        }
      })()
      const running = await handleChat(
        post({ id: 'web.bytes', messages: [...first, answer, user('u2', 'What did you build?')] }),
        { memory, model },
      )
      expect(running.status).toBe(200)
      await atGate
      const before = await storedThread('web.bytes')
      const refused = await chat([...first, answer, user('u3', 'Start over')], 'web.bytes')
      expect(refused.status).toBe(409)
      expect(await storedThread('web.bytes')).toEqual(before)
      open()
      await readAnswer(running)
      const stored = JSON.stringify(await (await memory.thread('web.bytes')).items())
      expect(stored).toContain('What did you build?')
      expect(stored).not.toContain('Start over')
    })

    it('a client that goes away releases the chat once the answer is stored', async () => {
      const first = [user('u1', 'Build the Acme landing page')]
      const response = await chat(first, 'web.gone')
      const reader = response.body!.getReader()
      await reader.read()
      await reader.cancel()
      // The route reads the model's stream to its end (consumeStream), stores the answer, then releases.
      await expect
        .poll(
          async () => {
            const hold = await (await memory.thread('web.gone')).hold().catch(() => undefined)
            await hold?.release()
            return hold !== undefined
          },
          { timeout: 10_000, interval: 50 },
        )
        .toBe(true)
      // The whole run was stored: every task closed, every call with its result, the closing answer last.
      const thread = await memory.thread('web.gone')
      expect(thread.level).toBe('project')
      const last = (await thread.items()).at(-1)
      expect(last?.type === 'message' && last.role === 'assistant').toBe(true)
      const interactions = await thread.toolInteractions()
      expect(interactions.filter((interaction) => interaction.status !== 'success')).toEqual([])
      expect((await verify('web.gone')).code).toBe(0)
    })
  },
)
