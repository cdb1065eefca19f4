import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { MemorySaver } from '@langchain/langgraph'
import { createMemory } from '@strata-memory/core'
import { fileStore } from '@strata-memory/store-file'
import {
  type AgentMiddleware,
  ClearToolUsesEdit,
  contextEditingMiddleware,
  createAgent,
  summarizationMiddleware,
} from 'langchain'
import { afterEach, describe, expect, it } from 'vitest'
import { storedMessages, weather } from '../testing/agent'
import { verifyThread } from '../testing/verify-thread'
import { strataMiddleware } from './strata-middleware'

const dirs: string[] = []
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
})

/** Answers like an agent: a weather question calls the tool, a tool result is answered, else an echo. */
function agentModel() {
  const model = fakeModel()
  let calls = 0
  for (let index = 0; index < 40; index++) {
    model.respond((messages: BaseMessage[]) => {
      const last = messages.at(-1)!
      if (last.type === 'tool') return new AIMessage(`Answer: ${last.text}`)
      const city = /weather in (\w+)/.exec(last.text)?.[1]
      if (city === undefined) return new AIMessage(`Echo: ${last.text}`)
      return new AIMessage({
        content: '',
        tool_calls: [{ id: `call-${++calls}`, name: 'weather', args: { city } }],
      })
    })
  }
  return model
}

const summarizer = () => {
  const model = fakeModel()
  for (let index = 0; index < 20; index++) model.respond(new AIMessage(`Summary ${index + 1}.`))
  return model
}

/** The middleware that rewrites the start of the history the agent sends, with Strata after it. */
const rewriters: {
  name: string
  middleware: (memory: ReturnType<typeof createMemory>) => AgentMiddleware[]
}[] = [
  {
    name: 'summarizationMiddleware (its summary in place of the old messages)',
    middleware: (memory) => [
      summarizationMiddleware({ model: summarizer(), trigger: { messages: 6 }, keep: { messages: 4 } }),
      strataMiddleware({ memory }),
    ],
  },
  {
    name: 'contextEditingMiddleware before Strata (old tool results cleared)',
    middleware: (memory) => [
      contextEditingMiddleware({
        edits: [new ClearToolUsesEdit({ trigger: { messages: 6 }, keep: { messages: 1 } })],
      }),
      strataMiddleware({ memory }),
    ],
  },
  {
    name: "state: 'compact' (the state holds what the model was shown)",
    middleware: (memory) => [strataMiddleware({ memory, state: 'compact' })],
  },
]

describe('a fork from an earlier checkpoint when another middleware rewrote the start of the history', {
  timeout: 60_000,
}, () => {
  for (const rewriter of rewriters) {
    it(`${rewriter.name}: the thread rewinds to the checkpoint and goes on from it`, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'strata-lc-fork-'))
      dirs.push(dir)
      const memory = createMemory({ store: fileStore({ dir }) })
      const model = agentModel()
      const agent = createAgent({
        model,
        tools: [weather],
        checkpointer: new MemorySaver(),
        middleware: rewriter.middleware(memory),
      })
      const config = { configurable: { thread_id: 'forked' } }
      const turns = [
        'hello',
        'weather in Paris',
        'thanks',
        'weather in Rome',
        'weather in Berlin',
        'last one',
      ]
      for (const turn of turns) await agent.invoke({ messages: [new HumanMessage(turn)] }, config)
      // The checkpoint where the Berlin turn ended (the agent's own time travel).
      let fork: Parameters<typeof agent.invoke>[1] | undefined
      for await (const snapshot of agent.graph.getStateHistory(config)) {
        const messages = (snapshot.values as { messages: BaseMessage[] }).messages
        if (snapshot.next.length === 0 && messages.at(-1)?.text.includes('Berlin')) {
          fork ??= snapshot.config as never
        }
      }
      expect(fork).toBeDefined()

      const result = await agent.invoke({ messages: [new HumanMessage('weather in Oslo')] }, fork)
      expect(result.messages.at(-1)!.text).toContain('Sunny in Oslo')
      const thread = await memory.thread('forked')
      const stored = await storedMessages(thread)
      // What the fork left (the last turn) is archived; the thread goes on from the Berlin answer.
      expect(stored.filter((line) => line.startsWith('user:'))).toEqual([
        ...turns.slice(0, -1).map((turn) => `user:${turn}`),
        'user:weather in Oslo',
      ])
      expect(stored.some((line) => line.includes('last one'))).toBe(false)
      expect((await thread.status()).items.archived).toBe(2)
      // The model was sent the thread's context from the Berlin answer on.
      const sent = model.calls.at(-2)!.messages.map((message) => message.text)
      expect(sent.filter((text) => text === 'last one')).toEqual([])
      expect(sent.at(-1)).toBe('weather in Oslo')
      expect((await verifyThread(dir, 'forked')).threads[0]!.problems).toEqual([])
      await memory.close()
    })
  }
})
