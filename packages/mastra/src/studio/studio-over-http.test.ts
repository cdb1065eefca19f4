import { mkdtemp, rm } from 'node:fs/promises'
import type { AddressInfo, Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Mastra } from '@mastra/core/mastra'
import { createNodeServer } from '@mastra/deployer/server'
import { createMemory, type Memory } from '@strata-memory/core'
import { fileStore } from '@strata-memory/store-file'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { StrataMemory } from '../memory/strata-memory'
import { promptLines, strataAgent } from '../testing/agent-harness'
import type { ReceivedPrompt } from '../testing/scripted-model'

// Mastra's own server (`@mastra/deployer`'s Node server, as `mastra dev` runs it, with
// `@mastra/server`'s memory routes) over real HTTP, against a StrataMemory on a file store.

const TEMPLATE = '# Ana\n- **Garden**:\n- **Likes**:'

let dir: string
let memory: Memory
let strata: StrataMemory
let prompts: ReceivedPrompt[]
let server: Server
let base: string
let ask: (text: string, thread: string, resource: string) => Promise<unknown>

const get = async (path: string) => {
  const response = await fetch(`${base}${path}`)
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}
const send = async (method: string, path: string, body?: object) => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}
const texts = (messages: unknown) =>
  (messages as { content: { parts: { type: string; text?: string }[] } }[]).map((message) =>
    message.content.parts.map((part) => part.text ?? '').join(''),
  )

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'strata-studio-'))
  memory = createMemory({ store: fileStore({ dir }) })
  const harness = strataAgent(
    memory,
    [
      { text: 'Plant the tomatoes in May, after the last frost.' },
      { text: 'Basil likes full sun and warm nights.' },
      { text: 'Ben, your tomatoes need staking.' },
      { text: 'Noted.' },
    ],
    { options: { workingMemory: { enabled: true, template: TEMPLATE } } },
  )
  ;({ strata, prompts } = harness)
  const mastra = new Mastra({
    agents: { helper: harness.agent },
    server: { port: 0, host: '127.0.0.1', handleShutdownSignals: false },
    logger: false,
  })
  ask = (text, thread, resource) => harness.agent.generate(text, { memory: { thread, resource } })
  await ask('When do I plant tomatoes?', 'ana/garden', 'ana')
  await ask('And basil?', 'ana/herbs', 'ana')
  await ask('What about my tomatoes?', 'ben/plot', 'ben')
  server = (await createNodeServer(mastra, { tools: {}, isDev: true })) as unknown as Server
  if (!server.listening) await new Promise((resolve) => server.once('listening', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`
}, 60_000)

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve))
  await memory?.close()
  await rm(dir, { recursive: true, force: true })
})

describe("Mastra's server memory routes over HTTP, against StrataMemory", () => {
  it("lists a resource's threads a page at a time, never another resource's", async () => {
    const first = await get('/memory/threads?agentId=helper&resourceId=ana&page=0&perPage=1')
    expect(first.status).toBe(200)
    expect(first.body).toMatchObject({ total: 2, page: 0, perPage: 1, hasMore: true })
    const second = await get('/memory/threads?agentId=helper&resourceId=ana&page=1&perPage=1')
    expect(second.body).toMatchObject({ total: 2, page: 1, hasMore: false })
    const ids = [first.body, second.body].flatMap((page) =>
      (page.threads as { id: string; resourceId: string }[]).map((thread) => thread.id),
    )
    expect(ids.sort()).toEqual(['ana/garden', 'ana/herbs'])
  })

  it('opens a thread whose id holds a "/" by its URL, and its messages a page at a time', async () => {
    const thread = await get('/memory/threads/ana%2Fgarden?agentId=helper')
    expect(thread.status).toBe(200)
    expect(thread.body).toMatchObject({ id: 'ana/garden', resourceId: 'ana' })
    const messages = await get('/memory/threads/ana%2Fgarden/messages?agentId=helper')
    expect(messages.status).toBe(200)
    expect(texts(messages.body.messages)).toEqual([
      'When do I plant tomatoes?',
      'Plant the tomatoes in May, after the last frost.',
    ])
    // Studio pages back from the newest, as with Mastra's own memory.
    const page = await get('/memory/threads/ana%2Fgarden/messages?agentId=helper&page=1&perPage=1')
    expect(texts(page.body.messages)).toEqual(['When do I plant tomatoes?'])
    const newest = await get('/memory/threads/ana%2Fgarden/messages?agentId=helper&page=0&perPage=1')
    expect(texts(newest.body.messages)).toEqual(['Plant the tomatoes in May, after the last frost.'])
  })

  it("searches every thread of the resource through memory_query, with each hit's neighbours", async () => {
    // No thread named: Mastra searches from the resource's newest thread (ana/herbs); the hit is in the other.
    const search = await get('/memory/search?agentId=helper&resourceId=ana&searchQuery=frost')
    expect(search.status).toBe(200)
    const results = search.body.results as {
      content: string
      threadId: string
      context?: { before: { content: string }[] }
    }[]
    expect(results.length).toBeGreaterThan(0)
    expect(results[0]).toMatchObject({
      content: 'Plant the tomatoes in May, after the last frost.',
      threadId: 'ana/garden',
    })
    expect(results[0]!.context?.before.map((message) => message.content)).toEqual([
      'When do I plant tomatoes?',
    ])
    // Ben's thread also speaks of tomatoes: another resource's messages are never found.
    const tomatoes = await get('/memory/search?agentId=helper&resourceId=ana&searchQuery=tomatoes')
    const threads = (tomatoes.body.results as { threadId: string }[]).map((result) => result.threadId)
    expect(threads.length).toBeGreaterThan(0)
    expect(threads.every((threadId) => threadId === 'ana/garden')).toBe(true)
    // Scoped to one thread: only that thread's messages.
    const scoped = await get(
      '/memory/search?agentId=helper&resourceId=ana&threadId=ana%2Fherbs&searchQuery=tomatoes&memoryConfig=' +
        encodeURIComponent(JSON.stringify({ semanticRecall: { scope: 'thread', topK: 3, messageRange: 1 } })),
    )
    expect(scoped.status).toBe(200)
    expect(scoped.body.results).toEqual([])
  })

  it("shows and edits the resource's working memory; the next call's prompt shows the edit", async () => {
    const before = await get('/memory/threads/ana%2Fgarden/working-memory?agentId=helper&resourceId=ana')
    expect(before.status).toBe(200)
    expect(before.body).toMatchObject({ source: 'resource', threadExists: true })
    const edited = '# Ana\n- **Garden**: raised beds\n- **Likes**: heirloom tomatoes'
    const update = await send('POST', '/memory/threads/ana%2Fgarden/working-memory?agentId=helper', {
      workingMemory: edited,
      resourceId: 'ana',
    })
    expect(update).toEqual({ status: 200, body: { success: true } })
    const after = await get('/memory/threads/ana%2Fgarden/working-memory?agentId=helper&resourceId=ana')
    expect(after.body.workingMemory).toBe(edited)
    await ask('Anything else?', 'ana/garden', 'ana')
    expect(promptLines(prompts.at(-1)!).join('\n')).toContain('heirloom tomatoes')
  })

  it('refuses to clone with the explanation, and changes nothing', async () => {
    const clone = await send('POST', '/memory/threads/ana%2Fgarden/clone?agentId=helper', {
      newThreadId: 'ana/garden-copy',
    })
    expect(clone.status).toBeGreaterThanOrEqual(400)
    expect(JSON.stringify(clone.body)).toMatch(/cloneThread\(\) is not supported/)
    expect((await get('/memory/threads/ana%2Fgarden-copy?agentId=helper')).status).toBe(404)
  })

  it('deletes a thread by its URL: gone from the list, the store and search', async () => {
    const removed = await send('DELETE', '/memory/threads/ana%2Fherbs?agentId=helper')
    expect(removed.status).toBe(200)
    expect((await get('/memory/threads/ana%2Fherbs?agentId=helper')).status).toBe(404)
    const list = await get('/memory/threads?agentId=helper&resourceId=ana')
    expect((list.body.threads as { id: string }[]).map((thread) => thread.id)).toEqual(['ana/garden'])
    expect(await memory.listThreads()).not.toContain('_.ana_2Fherbs')
    const basil = await get('/memory/search?agentId=helper&resourceId=ana&searchQuery=basil')
    expect(basil.body.results).toEqual([])
    expect(await strata.getThreadById({ threadId: 'ana/herbs' })).toBeNull()
  })
})
