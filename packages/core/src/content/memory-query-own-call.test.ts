import { describe, expect, it } from 'vitest'
import { createMemory } from '../memory'
import { inMemoryStore } from '../stores'
import { fetchMessages, makePage } from '../testing'
import type { MemoryQueryOutput, MemoryRetrieveOutput } from './memory-tool-types'
import { memoryTools } from './memory-tools'

/*
 * Regression: memory_query's first hit was always the model's own memory_query call (its input holds
 * every word of the query, and it is the newest item), then its result (which quotes the hits).
 */
describe("memory_query and the model's own memory tool calls", () => {
  it('never returns its own call or result, nor a retrieve: the question and the page lead', async () => {
    const memory = createMemory({ store: inMemoryStore() })
    const thread = await memory.thread('own-call')
    const tools = memoryTools(thread)
    await thread.append({ role: 'user', content: 'What is the vendor reference code of Lusa Ltd?' })
    const page = `${makePage(6_000, 'vendors')}\nLusa Ltd: vendor reference code ZX-4471.`
    await thread.append(fetchMessages('f1', 'https://example.com/vendors', page))
    await thread.append({ role: 'assistant', content: 'I read the vendors page.' })

    // The model searches, reads what it found, and the framework stores both calls and results.
    const input = { text: 'Lusa vendor reference code' }
    const first = (await tools.memory_query.execute(input)) as MemoryQueryOutput
    const pageHit = first.results.find((hit) => hit.type === 'web-page')!
    const read = (await tools.memory_retrieve.execute({
      id: pageHit.id,
      transform: 'excerpt',
      pattern: 'ZX-4471',
      maxChars: 200,
    })) as MemoryRetrieveOutput
    expect(read.content).toContain('ZX-4471')
    await thread.append([
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'q1', toolName: 'memory_query', input },
          { type: 'tool-call', toolCallId: 'r1', toolName: 'memory_retrieve', input: { id: read.id } },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'q1', toolName: 'memory_query', output: first as never },
          { type: 'tool-result', toolCallId: 'r1', toolName: 'memory_retrieve', output: read as never },
        ],
      },
    ])

    const again = (await tools.memory_query.execute({ ...input, limit: 100 })) as MemoryQueryOutput
    // The question (short, holding every word) and the page (long, its snippet on the value) lead;
    // the call and result that quote both are not hits.
    expect(again.results.slice(0, 2).map((hit) => hit.source)).toEqual(['user', 'fetch_page'])
    expect(again.results[1]).toMatchObject({ id: pageHit.id, where: 'content', type: 'web-page' })
    expect(again.results[1]!.snippet).toContain('ZX-4471')
    const ids = again.results.map((hit) => hit.id)
    const memoryToolItems = (await thread.items()).slice(-2).map((item) => item.id)
    expect(memoryToolItems).toHaveLength(2)
    expect(ids.filter((id) => memoryToolItems.includes(id))).toEqual([])
    expect(
      again.results.every((hit) => hit.source !== 'memory_query' && hit.source !== 'memory_retrieve'),
    ).toBe(true)
  })
})
