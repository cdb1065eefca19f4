import { createMemory, type Summarizer } from '@strata-memory/core'
import { describe, expect, it } from 'vitest'
import { strataAgent } from '../testing/agent-harness'

const call = { memory: { thread: 'ana/trip', resource: 'ana' } }

/** A summarizer that answers only after `open()`, and then 50 ms later: background work stays pending. */
function slowSummarizer() {
  let open: () => void = () => {}
  const gate = new Promise<void>((resolve) => {
    open = resolve
  })
  const summarizer: Summarizer = {
    name: 'slow',
    async summarize(items) {
      await gate
      await new Promise((resolve) => setTimeout(resolve, 50))
      return { summary: `Turns ${items[0]?.seq}-${items.at(-1)?.seq} about the trip.`, facts: [] }
    },
  }
  return { summarizer, open: () => open() }
}

describe('StrataMemory.settled() and the thread record’s updatedAt', () => {
  it('settled() waits for the compaction a run started', async () => {
    const { summarizer, open } = slowSummarizer()
    const memory = createMemory({ summarizer, compaction: { budget: { inputTokens: 8_000 } } })
    const answers = Array.from({ length: 7 }, (_, index) => ({
      text: `Answer ${index + 1} about the trip.`,
      inputTokens: index === 6 ? 7_500 : 200,
    }))
    const { agent, strata } = strataAgent(memory, answers)
    for (let index = 0; index < 7; index++) {
      await agent.generate(`Question ${index + 1}: what about day ${index + 1}?`, call)
    }
    const thread = await strata.thread(call.memory.thread)
    const summaries = async () =>
      (await memory.store.read(thread.id)).filter((item) => item.type === 'summary').length
    expect(await summaries()).toBe(0)
    open()
    await strata.settled()
    expect(await summaries()).toBe(1)
    expect((await memory.store.readArchive(thread.id)).length).toBeGreaterThan(0)
  })

  it('updatedAt moves with every run that stores messages', async () => {
    const memory = createMemory()
    const { agent, strata } = strataAgent(memory, [{ text: 'One.' }, { text: 'Two.' }])
    await agent.generate('First', call)
    const first = await strata.getThreadById({ threadId: call.memory.thread })
    await new Promise((resolve) => setTimeout(resolve, 15))
    await agent.generate('Second', call)
    const second = await strata.getThreadById({ threadId: call.memory.thread })
    expect(second!.createdAt.getTime()).toBe(first!.createdAt.getTime())
    expect(second!.updatedAt.getTime()).toBeGreaterThan(first!.updatedAt.getTime())
    const { threads } = await strata.listThreads({ filter: { resourceId: 'ana' } })
    expect(threads[0]!.updatedAt.getTime()).toBe(second!.updatedAt.getTime())
  })
})
