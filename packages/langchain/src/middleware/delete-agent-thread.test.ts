import { HumanMessage } from '@langchain/core/messages'
import { MemorySaver } from '@langchain/langgraph'
import { createMemory } from '@strata-memory/core'
import { createAgent } from 'langchain'
import { describe, expect, it } from 'vitest'
import { scriptedModel } from '../testing/agent'
import { deleteAgentThread } from './delete-agent-thread'
import { strataMiddleware } from './strata-middleware'

describe('deleteAgentThread', () => {
  it('removes the thread from the checkpointer and from the memory; other threads stay', async () => {
    const memory = createMemory()
    const checkpointer = new MemorySaver()
    const agent = createAgent({
      model: scriptedModel(['One.', 'Two.']),
      checkpointer,
      middleware: [strataMiddleware({ memory })],
    })
    for (const threadId of ['user:42/chat:7', 'keep-me'])
      await agent.invoke({ messages: [new HumanMessage('Hi')] }, { configurable: { thread_id: threadId } })
    expect((await memory.listThreads()).length).toBe(2)

    await deleteAgentThread({ memory, checkpointer, threadId: 'user:42/chat:7' })
    const stateOf = async (threadId: string) =>
      (
        await (
          agent as unknown as { getState(config: object): Promise<{ values: { messages?: unknown[] } }> }
        ).getState({ configurable: { thread_id: threadId } })
      ).values.messages ?? []
    expect(await stateOf('user:42/chat:7')).toEqual([])
    expect(await memory.listThreads()).toEqual(['keep-me'])
    expect(await stateOf('keep-me')).toHaveLength(2)
  })
})
