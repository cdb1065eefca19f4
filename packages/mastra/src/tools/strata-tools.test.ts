import { createMemory, type JsonObject, type MessageItem } from '@strata-memory/core'
import {
  MEMORY_TOOL_NAMES,
  memoryToolInputSchemas,
  normalizedToolSchema,
} from '@strata-memory/core/adapter-kit'
import { describe, expect, it } from 'vitest'
import { StrataMemory } from '../memory/strata-memory'
import { strataAgent } from '../testing/agent-harness'
import type { ReceivedPrompt } from '../testing/scripted-model'

/** A schema as the Standard JSON Schema interface exposes it (what Mastra makes of a JSON Schema). */
interface StandardJsonSchema {
  '~standard': { jsonSchema: { input(options: { target: string }): JsonObject } }
}

const call = { memory: { thread: 'research/orchard', resource: 'ana' }, maxSteps: 5 }

/** The memory id a citation in the prompt names. */
const memoryIdIn = (prompt: ReceivedPrompt) => {
  const found = JSON.stringify(prompt).match(/mem_[A-Za-z0-9_-]+/)
  if (found === null) throw new Error('no memory id in the prompt')
  return found[0]
}

const resultsOf = (items: readonly unknown[], toolName: string) =>
  (items as MessageItem[])
    .filter((item) => item.type === 'message' && item.role === 'tool')
    .flatMap((item) => item.content)
    .filter((part) => part.type === 'tool-result' && part.toolName === toolName)
    .map((part) => (part.type === 'tool-result' ? part.output : undefined))

describe('the memory tools on a Mastra agent', () => {
  it('listTools gives memory_store, memory_retrieve and memory_query (and the scope tools when asked)', () => {
    const memory = createMemory()
    expect(Object.keys(new StrataMemory({ memory }).listTools()).sort()).toEqual([
      'memory_query',
      'memory_retrieve',
      'memory_store',
    ])
    expect(Object.keys(new StrataMemory({ memory, tools: { scopes: true } }).listTools()).sort()).toEqual([
      'enter_scope',
      'exit_scope',
      'memory_query',
      'memory_retrieve',
      'memory_store',
    ])
    expect(new StrataMemory({ memory, tools: false }).listTools()).toEqual({})
  })

  it("gives the model the adapter kit's JSON Schemas (core's own) as the tools' input schemas", () => {
    const expected = memoryToolInputSchemas()
    const tools = new StrataMemory({ memory: createMemory() }).listTools()
    for (const name of MEMORY_TOOL_NAMES) {
      // Mastra keeps a JSON Schema as a Standard JSON Schema: what it sends the model is its input schema.
      const standard = tools[name]!.inputSchema as unknown as StandardJsonSchema
      const schema = standard['~standard'].jsonSchema.input({ target: 'draft-2020-12' })
      expect(normalizedToolSchema(schema), name).toEqual(normalizedToolSchema(expected[name]))
    }
  })

  it('memory_retrieve and memory_query reach a tool result the content channel offloaded', async () => {
    const memory = createMemory()
    const { agent, prompts, strata } = strataAgent(memory, [
      { toolCalls: [{ id: 'f1', name: 'fetch_page', input: { url: 'https://example.com/orchard' } }] },
      { text: 'I read the orchard guide.' },
      (prompt) => ({
        toolCalls: [
          {
            id: 'r1',
            name: 'memory_retrieve',
            input: { id: memoryIdIn(prompt), transform: 'excerpt', pattern: 'secret word', maxChars: 200 },
          },
          { id: 'q1', name: 'memory_query', input: { text: 'pomona' } },
        ],
      }),
      { text: 'The secret word is pomona.' },
    ])
    await agent.generate('Read the orchard guide.', call)
    await agent.generate('What was the secret word at the end of the guide?', call)
    // The second call shows the page as a citation, not in full.
    const second = JSON.stringify(prompts[2])
    expect(second).not.toContain('The secret word is pomona')
    expect(second).toContain('memory_retrieve')
    const thread = await strata.thread('research/orchard')
    const items = await thread.items()
    const [retrieved] = resultsOf(items, 'memory_retrieve')
    expect(JSON.stringify(retrieved)).toContain('The secret word is pomona.')
    const [queried] = resultsOf(items, 'memory_query')
    expect((queried as { results: { id: string }[] }).results.map((hit) => hit.id)).toContain(
      memoryIdIn(prompts[2]!),
    )
  })

  it('the scope tools let the model open and close a task; the transition is stored', async () => {
    const memory = createMemory()
    const { agent, strata } = strataAgent(
      memory,
      [
        {
          toolCalls: [
            { id: 's1', name: 'enter_scope', input: { level: 'task', title: 'Check the weather' } },
          ],
        },
        { toolCalls: [{ id: 'w1', name: 'weather', input: { city: 'Lisbon' } }] },
        { toolCalls: [{ id: 's2', name: 'exit_scope', input: { summary: 'Lisbon is sunny.' } }] },
        { text: 'Lisbon is sunny.' },
      ],
      { tools: { scopes: true } },
    )
    await agent.generate('Check the weather in Lisbon as a task.', call)
    const thread = await strata.thread('research/orchard')
    expect(thread.level).toBe('global')
    const items = await thread.items()
    expect(items.some((item) => item.type === 'transition' && item.fromLevel === 'task')).toBe(true)
    const weather = (items as MessageItem[]).find(
      (item) =>
        item.type === 'message' &&
        item.role === 'tool' &&
        item.content[0]?.type === 'tool-result' &&
        item.content[0].toolName === 'weather',
    )
    expect(weather?.level).toBe('task')
  })

  it('agent.stream writes each transition of the run as a data-memory-transition chunk', async () => {
    const memory = createMemory()
    const { agent } = strataAgent(
      memory,
      [
        {
          toolCalls: [
            { id: 's1', name: 'enter_scope', input: { level: 'task', title: 'Check the weather' } },
          ],
        },
        { toolCalls: [{ id: 's2', name: 'exit_scope', input: { summary: 'Done.' } }] },
        { text: 'Done.' },
      ],
      { tools: { scopes: true } },
    )
    const stream = await agent.stream('Do it as a task.', call)
    const chunks: { type: string; data?: unknown }[] = []
    for await (const chunk of stream.fullStream) chunks.push(chunk as { type: string; data?: unknown })
    const transitions = chunks.filter((chunk) => chunk.type === 'data-memory-transition')
    expect(transitions).toHaveLength(1)
    expect(transitions[0]!.data).toMatchObject({
      fromLevel: 'task',
      level: 'global',
      reason: 'task-complete',
    })
  })

  it('a call without a thread stores nothing and gets no memory tools', async () => {
    const memory = createMemory()
    const { agent, prompts } = strataAgent(memory, [
      { toolCalls: [{ id: 'q1', name: 'memory_query', input: { text: 'anything' } }] },
      { text: 'No memory here.' },
    ])
    const result = await agent.generate('Search your memory.', { maxSteps: 3 })
    expect(result.text).toBe('No memory here.')
    // Mastra offers memory tools only to a call with a thread: the model is told the tool is not there.
    expect(JSON.stringify(prompts[1])).toContain('Tool \\"memory_query\\" not found')
    expect(await memory.listThreads()).toEqual([])
  })
})
