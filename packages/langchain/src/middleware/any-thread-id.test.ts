import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { HumanMessage } from '@langchain/core/messages'
import { MemorySaver } from '@langchain/langgraph'
import { createMemory, openAppThread, toStoreThreadId } from '@strata-memory/core'
import { fileStore } from '@strata-memory/store-file'
import { createAgent } from 'langchain'
import { afterAll, describe, expect, it } from 'vitest'
import { scriptedModel, storedMessages, weather } from '../testing/agent'
import { strataJson, verifyThread } from '../testing/verify-thread'
import { strataMiddleware } from './strata-middleware'

const APP_IDS = ['user:42', 'user:42/chat:7', 'a b', 'Ünïcode/名前', `${'long-thread/'.repeat(25)}end`]

const dirs: string[] = []
afterAll(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
})

describe('any LangGraph thread id', { timeout: 120_000 }, () => {
  it('each id is stored under its mapped id, listed and opened by the CLI under the app’s own id', async () => {
    expect(APP_IDS[4]!.length).toBeGreaterThan(300)
    const dir = await mkdtemp(join(tmpdir(), 'strata-lc-ids-'))
    dirs.push(dir)
    const memory = createMemory({ store: fileStore({ dir }) })
    for (const id of APP_IDS) {
      const model = scriptedModel([
        { calls: [{ name: 'weather', args: { city: 'Oslo' }, id: 'c1' }] },
        `Done for ${id}.`,
      ])
      const agent = createAgent({
        model,
        tools: [weather],
        checkpointer: new MemorySaver(),
        middleware: [strataMiddleware({ memory })],
      })
      await agent.invoke(
        { messages: [new HumanMessage(`Hello from ${id}`)] },
        { configurable: { thread_id: id } },
      )
      const thread = await openAppThread(memory, id)
      expect(thread.id).toBe(await toStoreThreadId(id))
      expect(await storedMessages(thread)).toEqual([
        `user:Hello from ${id}`,
        'assistant: →weather#c1',
        'tool:#c1',
        `assistant:Done for ${id}.`,
      ])
      expect((await verifyThread(dir, id)).threads[0]!.problems).toEqual([])
    }
    const listed = await strataJson<{ threads: { threadId: string; appThreadId: string }[] }>(dir, [
      'threads',
    ])
    expect(listed.json.threads.map((row) => row.appThreadId).sort()).toEqual([...APP_IDS].sort())
    for (const id of APP_IDS) {
      const status = await strataJson<{ threadId?: string }>(dir, ['status', id])
      expect(status.code, id).toBe(0)
    }
  })
})
