import { Agent } from '@mastra/core/agent'
import { Mastra } from '@mastra/core/mastra'
import { createMemory, type Item, type MessageItem } from '@strata-memory/core'
import { describe, expect, it } from 'vitest'
import { promptLines } from '../testing/agent-harness'
import { type ReceivedPrompt, type ScriptedResponse, scriptedModel } from '../testing/scripted-model'
import { StrataMemory } from './strata-memory'

const QUESTION = 'When do I plant tomatoes?'
const FINAL = 'Plant them in May, after the last frost.'

/**
 * The routing agent's model: Mastra's network asks it (read-only, with structured output) which
 * primitive to call, then whether the task is complete. Each prompt is kept.
 */
function routerModel() {
  const routed: string[] = []
  const answer = (prompt: ReceivedPrompt): ScriptedResponse => {
    const text = promptLines(prompt).join('\n')
    routed.push(text)
    if (text.includes('"isComplete": boolean'))
      return { text: JSON.stringify({ isComplete: true, completionReason: 'answered', finalResult: FINAL }) }
    return {
      text: JSON.stringify({
        primitiveId: 'gardener',
        primitiveType: 'agent',
        prompt: 'When should tomatoes be planted?',
        selectionReason: 'a garden question',
      }),
    }
  }
  return { ...scriptedModel(Array.from({ length: 6 }, () => answer)), routed }
}

const textOf = (item: MessageItem) =>
  item.content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('')

describe('an agent network on a Strata thread', () => {
  it("stores what Mastra's network saves of the user's exchange; its read-only routing calls store nothing", async () => {
    const memory = createMemory()
    const strata = new StrataMemory({ memory })
    const router = routerModel()
    const sub = scriptedModel([{ text: 'In May, once the frost is over.' }])
    const gardener = new Agent({
      id: 'gardener',
      name: 'gardener',
      description: 'Answers garden questions.',
      instructions: 'You know gardens.',
      model: sub.model,
    })
    const helper = new Agent({
      id: 'helper',
      name: 'helper',
      instructions: 'Route each task to the right agent.',
      model: router.model,
      agents: { gardener },
      memory: strata,
    })
    new Mastra({ agents: { helper, gardener }, logger: false })

    const stream = await helper.network(QUESTION, { memory: { thread: 'ana/network', resource: 'ana' } })
    const kinds: string[] = []
    for await (const chunk of stream) kinds.push(chunk.type)
    expect(kinds).toContain('routing-agent-end')
    expect(kinds).toContain('agent-execution-end')
    expect(router.routed).toHaveLength(2)
    expect(sub.prompts).toHaveLength(1)

    const thread = await strata.thread('ana/network')
    const stored = (await thread.items()).filter(
      (item: Item): item is MessageItem => item.type === 'message',
    ) as MessageItem[]
    const texts = stored.map(textOf)
    // The user's message once, first; the network's record of the gardener's answer (which the next
    // routing decision reads), the final answer and Mastra's completion note: what Mastra's network
    // saves through saveMessages, and nothing else.
    expect(stored.map((item) => item.role)).toEqual(['user', 'assistant', 'assistant', 'assistant'])
    expect(texts[0]).toBe(QUESTION)
    expect(JSON.parse(texts[1]!)).toMatchObject({
      isNetwork: true,
      primitiveId: 'gardener',
      finalResult: { text: 'In May, once the frost is over.' },
    })
    expect(texts[2]).toBe(FINAL)
    expect(texts[3]).toContain('Completion Check Results')
    // The routing calls themselves (read-only): neither their instructions nor their JSON decisions.
    const everything = texts.join('\n')
    expect(everything).not.toContain('Route each task')
    expect(everything).not.toContain('"primitiveType": "agent" | "workflow" | "tool"')
    expect(everything).not.toContain('"isComplete":true')
    expect(texts.filter((text) => text.startsWith('{"primitiveId"'))).toEqual([])
    // A read-only call reports no usage and keeps no hold: the thread is free.
    expect((await thread.status()).lastUsage).toBeUndefined()
    await (await thread.hold()).release()

    // Mastra's completion check read the network's record back from Strata (through recall).
    expect(router.routed[1]).toContain('Primitives already executed: agent "gardener"')
    // The thread record is Mastra's (resource, the network's title).
    expect(await strata.getThreadById({ threadId: 'ana/network' })).toMatchObject({
      id: 'ana/network',
      resourceId: 'ana',
    })
  }, 30_000)

  it('a routing call of a read-only memory, and the network of one, store nothing at all', async () => {
    const memory = createMemory()
    const strata = new StrataMemory({ memory, readOnly: true })
    const router = routerModel()
    const sub = scriptedModel([{ text: 'In May.' }])
    const gardener = new Agent({
      id: 'gardener',
      name: 'gardener',
      description: 'Answers garden questions.',
      instructions: 'You know gardens.',
      model: sub.model,
    })
    const helper = new Agent({
      id: 'helper',
      name: 'helper',
      instructions: 'Route each task.',
      model: router.model,
      agents: { gardener },
      memory: strata,
    })
    new Mastra({ agents: { helper, gardener }, logger: false })
    const stream = await helper.network(QUESTION, { memory: { thread: 'ana/quiet', resource: 'ana' } })
    for await (const _chunk of stream) {
      // drained
    }
    expect(router.routed.length).toBeGreaterThan(0)
    expect(await memory.listThreads()).toEqual([])
  }, 30_000)
})
