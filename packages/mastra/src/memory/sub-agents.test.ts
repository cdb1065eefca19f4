import { Agent } from '@mastra/core/agent'
import { Mastra } from '@mastra/core/mastra'
import { createMemory, type Memory, type MessageItem } from '@strata-memory/core'
import { describe, expect, it } from 'vitest'
import { promptLines } from '../testing/agent-harness'
import { scriptedModel } from '../testing/scripted-model'
import { StrataMemory } from './strata-memory'

const textOf = (item: MessageItem) =>
  item.content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('')

/** The messages each of these threads holds, as texts; the threads sorted by them. */
async function storedTexts(memory: Memory, threadIds: readonly string[]): Promise<string[][]> {
  const stored: string[][] = []
  for (const id of threadIds) {
    const items = await (await memory.thread(id)).items()
    stored.push(items.flatMap((item) => (item.type === 'message' ? [textOf(item as MessageItem)] : [])))
  }
  return stored.sort()
}

/** The supervisor's two questions, each delegated to the sub-agent. */
async function twoQuestions(lead: Agent) {
  const chat = { thread: 'ana/garden', resource: 'ana' }
  await lead.generate('Tell me about tomatoes', { memory: chat, maxSteps: 4 })
  await lead.generate('And basil?', { memory: chat, maxSteps: 4 })
}

const SECOND_DELEGATION = [
  'user: Tell me about tomatoes',
  'assistant: Tomatoes like sun.',
  'user: And basil?',
  'user: Research basil',
]

const DELEGATIONS = [
  ['Research basil', 'Sub: basil likes warmth'],
  ['Research tomatoes', 'Sub: tomatoes like sun'],
]

/**
 * A supervisor with a `StrataMemory` delegating to a sub-agent, as Mastra runs it: the sub-agent is
 * called with the delegated prompt, the supervisor's conversation as `context` (not to be stored) and,
 * when it inherits the supervisor's memory, a thread of its own with `lastMessages: false`; after the
 * run Mastra saves the delegation and the answer again itself (`saveMessages`).
 */
function supervisor(subMemory: 'inherited' | 'own') {
  const memory = createMemory()
  const strata = new StrataMemory({ memory })
  const own = createMemory()
  const supervisorModel = scriptedModel([
    { toolCalls: [{ id: 'd1', name: 'agent-researcher', input: { prompt: 'Research tomatoes' } }] },
    { text: 'Tomatoes like sun.' },
    { toolCalls: [{ id: 'd2', name: 'agent-researcher', input: { prompt: 'Research basil' } }] },
    { text: 'Basil likes warmth.' },
  ])
  const sub = scriptedModel([{ text: 'Sub: tomatoes like sun' }, { text: 'Sub: basil likes warmth' }])
  const researcher = new Agent({
    id: 'researcher',
    name: 'researcher',
    description: 'Researches plants.',
    instructions: 'Research.',
    model: sub.model,
    ...(subMemory === 'own' ? { memory: new StrataMemory({ memory: own }) } : {}),
  })
  const lead = new Agent({
    id: 'lead',
    name: 'lead',
    instructions: 'Delegate.',
    model: supervisorModel.model,
    memory: strata,
    agents: { researcher },
  })
  new Mastra({ agents: { lead, researcher }, logger: false })
  return { memory, own, strata, lead, sub }
}

describe('a supervisor and its sub-agent', () => {
  it("the sub-agent's thread holds its delegation and answer once; the supervisor's conversation reaches its model, unstored", async () => {
    const { memory, lead, sub } = supervisor('inherited')
    await twoQuestions(lead)
    // Mastra gives each delegation a thread of its own: its model sees the supervisor's conversation
    // (Mastra's `context`) before the delegated prompt, as with Mastra's own memory.
    expect(promptLines(sub.prompts[0]!).slice(2)).toEqual([
      'user: Tell me about tomatoes',
      'user: Research tomatoes',
    ])
    expect(promptLines(sub.prompts[1]!).slice(2)).toEqual(SECOND_DELEGATION)
    // The delegations' threads: `ana/garden-<uuid>` (stored under mapped ids).
    const subThreads = (await memory.listThreads()).filter((id) => id.includes('garden-'))
    expect(subThreads).toHaveLength(2)
    expect(await storedTexts(memory, subThreads)).toEqual(DELEGATIONS)
  })

  it('a sub-agent with a StrataMemory of its own: one thread per delegation in it, each stored once', async () => {
    const { own, lead, sub } = supervisor('own')
    await twoQuestions(lead)
    expect(promptLines(sub.prompts[1]!).slice(2)).toEqual(SECOND_DELEGATION)
    expect(await storedTexts(own, await own.listThreads())).toEqual(DELEGATIONS)
  })
})
