import { HumanMessage, ToolMessage } from '@langchain/core/messages'
import { type ToolRuntime, tool } from '@langchain/core/tools'
import { getStore, MemorySaver } from '@langchain/langgraph'
import type { BaseStore } from '@langchain/langgraph-checkpoint'
import { createMemory, type Memory } from '@strata-memory/core'
import { createAgent } from 'langchain'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { scriptedModel } from '../testing/agent'
import { GRAPH_STORE_BACKENDS } from '../testing/graph-store-backends'
import { strataGraphStore } from './strata-graph-store'

const contextSchema = z.object({ userId: z.string() })

/** Saves a memory of the user through the tool runtime's store. */
const remember = tool(
  async ({ key, text }, runtime: ToolRuntime) => {
    const { userId } = runtime.context as z.infer<typeof contextSchema>
    // LangChain types runtime.store as @langchain/core's key-value store; at run time it is the graph's.
    const store = runtime.store as unknown as BaseStore
    await store.put([userId, 'memories'], key, { text })
    return `Saved ${key}.`
  },
  {
    name: 'remember',
    description: 'Remembers something about the user.',
    schema: z.object({ key: z.string(), text: z.string() }),
  },
)

/** Reads the user's memories back, by `getStore()` this time, and by key when one is given. */
const recall = tool(
  async ({ query, key }, runtime: ToolRuntime) => {
    const { userId } = runtime.context as z.infer<typeof contextSchema>
    const store = getStore()!
    if (key !== undefined) {
      const item = await store.get([userId, 'memories'], key)
      return item === null ? 'Nothing under that key.' : `${item.key}: ${item.value.text}`
    }
    const items = await store.search([userId, 'memories'], { query })
    return items.length === 0
      ? 'Nothing remembered.'
      : items.map((item) => `${item.key}: ${item.value.text}`).join('\n')
  },
  {
    name: 'recall',
    description: 'Recalls what is known about the user.',
    schema: z.object({ query: z.string(), key: z.string().optional() }),
  },
)

const toolTexts = (messages: readonly unknown[]) =>
  messages.filter((message): message is ToolMessage => ToolMessage.isInstance(message)).map((m) => m.text)

describe.each(GRAPH_STORE_BACKENDS)(
  'createAgent({ store: strataGraphStore(memory) }) on the $name store',
  (backend) => {
    let memory: Memory | undefined
    afterEach(async () => {
      await memory?.close()
      await backend.cleanup?.()
    })

    it('a tool puts a user’s memory in one thread and another thread of the user gets and searches it; another user sees nothing', async () => {
      memory = createMemory({ store: await backend.create() })
      const model = scriptedModel([
        { calls: [{ name: 'remember', args: { key: 'diet', text: 'Vegetarian, no mushrooms.' }, id: 'c1' }] },
        'Noted.',
        {
          calls: [
            { name: 'recall', args: { query: 'vegetarian dinner' }, id: 'c2' },
            { name: 'recall', args: { query: '', key: 'diet' }, id: 'c3' },
          ],
        },
        'A vegetarian dinner without mushrooms.',
        { calls: [{ name: 'recall', args: { query: 'vegetarian dinner' }, id: 'c4' }] },
        'I know nothing about you yet.',
      ])
      const agent = createAgent({
        model,
        tools: [remember, recall],
        store: strataGraphStore(memory),
        checkpointer: new MemorySaver(),
        contextSchema,
      })

      await agent.invoke(
        { messages: [new HumanMessage('I am vegetarian and hate mushrooms.')] },
        { configurable: { thread_id: 'user-42.chat-1' }, context: { userId: 'user-42' } },
      )
      // The memory is a document of the user's resource, in the memory's store.
      expect(await memory.resource('user-42').getDocument(['user-42', 'memories'], 'diet')).toMatchObject({
        value: { text: 'Vegetarian, no mushrooms.' },
      })

      const second = await agent.invoke(
        { messages: [new HumanMessage('What should I cook tonight?')] },
        { configurable: { thread_id: 'user-42.chat-2' }, context: { userId: 'user-42' } },
      )
      // A new thread: its state holds nothing of the first; what it knows came from the store.
      expect(second.messages.some((message) => message.text.includes('hate mushrooms'))).toBe(false)
      expect(toolTexts(second.messages)).toEqual([
        'diet: Vegetarian, no mushrooms.',
        'diet: Vegetarian, no mushrooms.',
      ])
      // The model was sent the recalled memory before it answered.
      expect(toolTexts(model.calls[3]!.messages)).toEqual([
        'diet: Vegetarian, no mushrooms.',
        'diet: Vegetarian, no mushrooms.',
      ])

      const other = await agent.invoke(
        { messages: [new HumanMessage('What should I cook tonight?')] },
        { configurable: { thread_id: 'user-7.chat-1' }, context: { userId: 'user-7' } },
      )
      expect(toolTexts(other.messages)).toEqual(['Nothing remembered.'])

      // Another memory on the same store (for files: what another process opens) reads the same documents.
      const reopened = createMemory({ store: await backend.reopen() })
      expect(await strataGraphStore(reopened).search(['user-42'], { query: 'mushrooms' })).toMatchObject([
        { key: 'diet', namespace: ['user-42', 'memories'], value: { text: 'Vegetarian, no mushrooms.' } },
      ])
      await reopened.settled()

      // Deleting the user's resource deletes what the agent remembered of them.
      await memory.resource('user-42').delete()
      expect(await strataGraphStore(memory).get(['user-42', 'memories'], 'diet')).toBeNull()
    })
  },
)
