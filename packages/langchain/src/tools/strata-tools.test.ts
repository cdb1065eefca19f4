import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { tool } from '@langchain/core/tools'
import { MemorySaver } from '@langchain/langgraph'
import { createMemory, type JsonObject, StrataError } from '@strata-memory/core'
import { memoryToolInputSchemas, normalizedToolSchema } from '@strata-memory/core/adapter-kit'
import { createAgent } from 'langchain'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { strataMiddleware } from '../middleware/strata-middleware'
import { memoryToolSchemas } from './memory-tool-schemas'
import { strataTools } from './strata-tools'

const page = Array.from({ length: 40 }, (_, index) => `line ${index + 1}: lorem ipsum dolor`).join('\n')
const fetchPage = tool(async () => page, {
  name: 'fetch_page',
  description: 'Fetches a page.',
  schema: z.object({ url: z.string() }),
})

const toolResults = (messages: readonly BaseMessage[], name: string) =>
  messages.filter(
    (message): message is ToolMessage => ToolMessage.isInstance(message) && message.name === name,
  )

describe('strataTools', () => {
  it("has zod schemas equal to the adapter kit's JSON Schemas (core's own), and its tools use them", () => {
    const expected = memoryToolInputSchemas()
    for (const name of Object.keys(expected) as (keyof typeof expected)[]) {
      const actual = z.toJSONSchema(memoryToolSchemas[name]) as JsonObject
      expect(normalizedToolSchema(actual), name).toEqual(normalizedToolSchema(expected[name]))
    }
    const tools = strataTools(createMemory(), { resource: 'user-42' })
    for (const name of Object.keys(expected) as (keyof typeof expected)[]) {
      expect(tools.find((each) => each.name === name)?.schema, name).toBe(memoryToolSchemas[name])
    }
  })

  it('let the agent read back a tool result the content channel replaced by a citation, on the run’s thread', async () => {
    const memory = createMemory({ content: { offloadAboveBytes: 200 } })
    let memoryId: string | undefined
    const model = fakeModel()
      .respondWithTools([{ name: 'fetch_page', args: { url: 'https://example.test/a' }, id: 'f1' }])
      .respond(new AIMessage('Fetched the page.'))
      .respond((messages) => {
        // The model reads the memory id from the citation it was sent.
        memoryId = /Memory id: (mem_[A-Za-z0-9_-]+)/.exec(messages.map((m) => m.text).join('\n'))?.[1]
        return new AIMessage({
          content: '',
          tool_calls: [
            {
              type: 'tool_call',
              id: 'r1',
              name: 'memory_retrieve',
              args: { id: memoryId, transform: 'filtered', pattern: 'line 33' },
            },
            { type: 'tool_call', id: 'r2', name: 'memory_retrieve', args: { id: 'mem_missing' } },
          ],
        })
      })
      .respond(new AIMessage('Line 33 says lorem ipsum.'))
    const agent = createAgent({
      model,
      tools: [fetchPage, ...strataTools(memory)],
      checkpointer: new MemorySaver(),
      middleware: [strataMiddleware({ memory })],
    })
    const config = { configurable: { thread_id: 'tools-1' } }
    await agent.invoke({ messages: [new HumanMessage('Fetch https://example.test/a')] }, config)
    const result = await agent.invoke({ messages: [new HumanMessage('What does line 33 say?')] }, config)

    expect(memoryId).toMatch(/^mem_/)
    // The third call saw the citation, not the page.
    expect(model.calls[2]!.messages.map((m) => m.text).join('\n')).not.toContain('line 33: lorem')
    // The citation's ToolMessage names the memory id in additional_kwargs.
    const cited = model.calls[2]!.messages.find((m) => m.type === 'tool')!
    expect(cited.additional_kwargs).toMatchObject({ memory_level: 'global', memory_ids: [memoryId] })
    const [found, missing] = toolResults(result.messages, 'memory_retrieve')
    expect(JSON.parse(found!.text)).toMatchObject({ id: memoryId, content: 'line 33: lorem ipsum dolor' })
    expect(JSON.parse(missing!.text)).toMatchObject({ error: { code: expect.stringMatching(/^STRATA_/) } })
    // The results are on the run's thread: a thread of another id holds nothing.
    expect(await (await memory.thread('tools-2')).items()).toEqual([])
  })

  it('a run with no thread id is STRATA_INVALID_OPTIONS; malformed options are refused when built', async () => {
    const memory = createMemory()
    const [store] = strataTools(memory)
    const error = await store!.invoke({ content: 'x' }).catch((caught: unknown) => caught)
    expect(StrataError.isInstance(error, 'STRATA_INVALID_OPTIONS')).toBe(true)
    for (const attempt of [
      () => strataTools({} as never),
      () => strataTools(memory, { threadId: '' }),
      () => strataTools(memory, { scopes: 'yes' as never }),
    ]) {
      let caught: unknown
      try {
        attempt()
      } catch (thrown) {
        caught = thrown
      }
      expect(StrataError.isInstance(caught)).toBe(true)
    }
    // With a thread id the tools run outside an agent too.
    const [bound] = strataTools(memory, { threadId: 'direct' })
    expect(await bound!.invoke({ content: 'Revenue rose 12%.', tags: ['kpi'] })).toMatchObject({
      id: expect.stringMatching(/^mem_/),
    })
  })

  it('adds enter_scope and exit_scope with scopes: true, their schemas core’s', () => {
    const memory = createMemory()
    const tools = strataTools(memory, { scopes: true })
    expect(tools.map((t) => t.name)).toEqual([
      'memory_store',
      'memory_retrieve',
      'memory_query',
      'enter_scope',
      'exit_scope',
    ])
  })
})
