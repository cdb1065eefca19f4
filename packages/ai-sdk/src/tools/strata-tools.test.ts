import { createMemory, type JsonObject, StrataError } from '@strata-memory/core'
import { memoryToolInputSchemas, normalizedToolSchema } from '@strata-memory/core/adapter-kit'
import { generateText, isStepCount, type ModelMessage, tool, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { strataMiddleware } from '../middleware/strata-middleware'
import { generated, toolCall } from '../testing/model-results'
import { memoryToolSchemas, strataTools } from './strata-tools'

describe('strataTools', () => {
  it("has zod schemas equal to the adapter kit's JSON Schemas (core's own), and its tools use them", () => {
    const expected = memoryToolInputSchemas()
    for (const name of Object.keys(expected) as (keyof typeof expected)[]) {
      const actual = z.toJSONSchema(memoryToolSchemas[name]) as JsonObject
      expect(normalizedToolSchema(actual), name).toEqual(normalizedToolSchema(expected[name]))
    }
    const tools = strataTools(createMemory(), { threadId: 'schemas', resource: 'user-42' })
    for (const name of Object.keys(expected) as (keyof typeof expected)[]) {
      expect(tools[name].inputSchema, name).toBe(memoryToolSchemas[name])
    }
  })

  it('lets the agent read back a tool result the content channel replaced by a citation', async () => {
    const memory = createMemory({ content: { offloadAboveBytes: 200 } })
    const page = Array.from({ length: 40 }, (_, index) => `line ${index + 1}: lorem ipsum dolor`).join('\n')
    let memoryId: string | undefined
    let turn = 0
    const mock = new MockLanguageModelV4({
      doGenerate: async ({ prompt }) => {
        turn++
        if (turn === 1)
          return generated([toolCall('fetch-1', 'fetch_page', { url: 'https://example.test/a' })])
        if (turn === 2) return generated('Fetched the page.')
        if (turn === 3) {
          // The model reads the memory id from the citation it was sent.
          const sent = JSON.stringify(prompt)
          memoryId = /Memory id: (mem_[A-Za-z0-9_-]+)/.exec(sent)?.[1]
          return generated([
            toolCall('retrieve-1', 'memory_retrieve', {
              id: memoryId,
              transform: 'filtered',
              pattern: 'line 33',
            }),
          ])
        }
        return generated('Line 33 says lorem ipsum dolor.')
      },
    })
    const model = wrapLanguageModel({
      model: mock,
      middleware: strataMiddleware({ memory, threadId: 'web' }),
    })
    const tools = {
      fetch_page: tool({ inputSchema: z.object({ url: z.string() }), execute: async () => page }),
      ...strataTools(memory, { threadId: 'web' }),
    }
    const history: ModelMessage[] = [{ role: 'user', content: 'Fetch the page' }]
    const first = await generateText({ model, tools, messages: history, stopWhen: isStepCount(3) })
    history.push(...first.responseMessages, { role: 'user', content: 'What does line 33 say?' })
    const second = await generateText({ model, tools, messages: history, stopWhen: isStepCount(3) })

    // The first context after the fetch showed the page; the next call saw only the citation.
    expect(JSON.stringify(mock.doGenerateCalls[1]!.prompt)).toContain('line 33: lorem ipsum dolor')
    expect(JSON.stringify(mock.doGenerateCalls[2]!.prompt)).not.toContain('line 33: lorem ipsum dolor')
    expect(memoryId).toMatch(/^mem_/)
    const retrieved = second.steps[0]!.toolResults[0]!
    expect(retrieved.toolName).toBe('memory_retrieve')
    expect(retrieved.output).toMatchObject({
      id: memoryId,
      transform: 'filtered',
      content: 'line 33: lorem ipsum dolor',
      truncated: true,
    })
    expect(second.text).toBe('Line 33 says lorem ipsum dolor.')
    // The re-sent history holds the whole page, the log a citation: the result is still stored once.
    const items = await (await memory.thread('web')).items()
    const fetchResults = items.filter(
      (item) => item.type === 'message' && item.role === 'tool' && JSON.stringify(item).includes('fetch-1'),
    )
    expect(fetchResults).toHaveLength(1)

    // memory_query finds it too; a bad id is an error the model can read, not a throw.
    const direct = strataTools(memory, { threadId: 'web' })
    const options = { toolCallId: 'direct', messages: [], context: {} }
    const query = await direct.memory_query.execute!({ text: 'lorem 33' }, options)
    expect(JSON.stringify(query)).toContain(memoryId!)
    const missing = await direct.memory_retrieve.execute!({ id: 'mem_missing' }, options)
    expect(missing).toMatchObject({ error: { code: expect.stringMatching(/^STRATA_/) } })
  })

  it('rejects a missing or invalid thread id with a typed error', () => {
    const memory = createMemory()
    for (const options of [{ threadId: undefined }, { threadId: '' }, { threadId: 'x\uDC00' }, undefined]) {
      let thrown: unknown
      try {
        strataTools(memory, options as never)
      } catch (error) {
        thrown = error
      }
      expect(StrataError.isInstance(thrown, 'STRATA_INVALID_THREAD_ID'), JSON.stringify(options)).toBe(true)
    }
  })
})
