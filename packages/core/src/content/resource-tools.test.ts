import { describe, expect, it } from 'vitest'
import { createMemory } from '../memory'
import { inMemoryStore } from '../stores'
import type { MemoryQueryOutput, MemoryToolError, MemoryUpdateWorkingConflict } from './memory-tool-types'
import { memoryTools } from './memory-tools'

async function twoThreads(options: Parameters<typeof createMemory>[0] = {}) {
  const memory = createMemory({ store: inMemoryStore(), ...options })
  const first = await memory.thread('chat-1', { resource: 'user-1' })
  await first.append({ role: 'user', content: 'Plan the kayak trip to Norway in June.' })
  const second = await memory.thread('chat-2', { resource: 'user-1' })
  await second.append({ role: 'user', content: 'What should I cook tonight?' })
  const stranger = await memory.thread('chat-bob', { resource: 'user-2' })
  await stranger.append({ role: 'user', content: 'Bob plans a kayak trip too.' })
  return { memory, first, second }
}

describe('memory_query with scope', () => {
  it("searches every thread of the resource with scope 'resource', and only this one by default", async () => {
    const { second } = await twoThreads()
    const tools = memoryTools(second)
    const here = (await tools.memory_query.execute({ text: 'kayak' })) as MemoryQueryOutput
    expect(here.results).toEqual([])
    const everywhere = (await tools.memory_query.execute({
      text: 'kayak',
      scope: 'resource',
    })) as MemoryQueryOutput
    expect(everywhere.results).toHaveLength(1)
    expect(everywhere.results[0]).toMatchObject({
      threadId: 'chat-1',
      seq: 1,
      type: 'message',
      source: 'user',
    })
    expect(everywhere.results[0]!.snippet).toContain('kayak trip to Norway')
    // Filters apply across threads too.
    const typed = (await tools.memory_query.execute({
      text: 'kayak',
      scope: 'resource',
      type: 'fact',
    })) as MemoryQueryOutput
    expect(typed.results).toEqual([])
  })

  it('refuses a bad scope, and scope resource on a thread without a resource, as tool errors', async () => {
    const memory = createMemory()
    const loose = await memory.thread('loose')
    const tools = memoryTools(loose)
    const bad = (await tools.memory_query.execute({ text: 'x', scope: 'world' })) as MemoryToolError
    expect(bad.error).toMatchObject({ code: 'STRATA_INVALID_OPTIONS' })
    expect(bad.error.message).toMatch(/scope must be "thread"/)
    const none = (await tools.memory_query.execute({ text: 'x', scope: 'resource' })) as MemoryToolError
    expect(none.error.message).toMatch(/belongs to no resource/)
    expect(tools.memory_update_working).toBeUndefined()
  })
})

describe('memory_update_working', () => {
  it('is there for a thread with a resource; writes with the version; a stale one returns the current version and content', async () => {
    const { memory, first, second } = await twoThreads({
      resources: { workingMemory: { template: '- Name:\n- Likes:' } },
    })
    const tool = memoryTools(first).memory_update_working!
    expect(tool.name).toBe('memory_update_working')
    expect(tool.description).toContain('- Name:\n- Likes:')
    expect(await tool.execute({ content: '- Name: Ana\n- Likes:', version: 0 })).toEqual({ version: 1 })
    // The other thread's model wrote from the same version meanwhile.
    const stale = (await memoryTools(second).memory_update_working!.execute({
      content: '- Name:\n- Likes: tea',
      version: 0,
    })) as MemoryUpdateWorkingConflict
    expect(stale.error.code).toBe('STRATA_SEQ_CONFLICT')
    expect(stale.error.message).toMatch(/now at version 1/)
    expect(stale.current).toEqual({ version: 1, content: '- Name: Ana\n- Likes:' })
    expect(
      await memoryTools(second).memory_update_working!.execute({
        content: '- Name: Ana\n- Likes: tea',
        version: 1,
      }),
    ).toEqual({ version: 2 })
    expect((await memory.resource('user-1').getWorkingMemory())?.value).toBe('- Name: Ana\n- Likes: tea')
    // The context shows the version to name next.
    const { messages } = await first.context()
    expect(messages.some((message) => JSON.stringify(message).includes('[MEMORY:WORKING version=2]'))).toBe(
      true,
    )
  })

  it('with a schema, takes JSON text that fits it and refuses anything else as a tool error, writing nothing', async () => {
    const { memory, first } = await twoThreads({
      resources: {
        workingMemory: {
          schema: { type: 'object', properties: { name: { type: 'string' } }, additionalProperties: false },
        },
      },
    })
    const tool = memoryTools(first).memory_update_working!
    expect(tool.description).toContain('JSON Schema')
    const cases: [unknown, RegExp][] = [
      [{ content: 'Ana', version: 0 }, /must be JSON text/],
      [{ content: '{"age": 3}', version: 0 }, /\$\.age is not allowed/],
      [{ content: '{}', version: -1 }, /version must be the version shown/],
      [{ content: 3, version: 0 }, /content must be the whole new working memory/],
      [{ content: '{}', version: 0, extra: 1 }, /unknown keys extra/],
    ]
    for (const [input, message] of cases) {
      const result = (await tool.execute(input)) as MemoryToolError
      expect(result.error.code, JSON.stringify(input)).toBe('STRATA_INVALID_OPTIONS')
      expect(result.error.message).toMatch(message)
    }
    expect(await memory.resource('user-1').getWorkingMemory()).toBeUndefined()
    expect(await tool.execute({ content: '{"name":"Ana"}', version: 0 })).toEqual({ version: 1 })
    expect((await memory.resource('user-1').getWorkingMemory())?.value).toEqual({ name: 'Ana' })
  })
})
