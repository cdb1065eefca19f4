import { createMemory, StrataError } from '@strata-memory/core'
import { dynamicTool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { loadUIMessages } from './load-ui-messages'

describe('loadUIMessages', () => {
  it('one assistant message per response, tool calls with their results, scope openings left out', async () => {
    const memory = createMemory()
    const thread = await memory.thread('ui-load')
    const [question] = await thread.append({ role: 'user', content: 'Weather in Oslo?' })
    await thread.enter('task', { title: 'Look it up' })
    await thread.append([
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'weather', input: { city: 'Oslo' } }],
      },
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'weather', output: { celsius: 4 } }],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'It is 4 °C.' }] },
    ])
    const messages = await loadUIMessages(memory, 'ui-load')
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant'])
    expect(messages[0]).toEqual({
      id: question!.id,
      role: 'user',
      parts: [{ type: 'text', text: 'Weather in Oslo?' }],
    })
    expect(messages[1]!.parts).toEqual([
      { type: 'step-start' },
      {
        type: 'tool-weather',
        toolCallId: 'c1',
        state: 'output-available',
        input: { city: 'Oslo' },
        output: { celsius: 4 },
      },
      { type: 'step-start' },
      { type: 'text', text: 'It is 4 °C.', state: 'done' },
    ])
  })

  it('a call of a dynamic tool loads as a dynamic-tool part when the route passes its tools', async () => {
    const memory = createMemory()
    const thread = await memory.thread('ui-dynamic')
    await thread.append([
      { role: 'user', content: 'Run it' },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'd1', toolName: 'plugin', input: {} }],
      },
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'd1', toolName: 'plugin', output: 'ran' }],
      },
    ])
    const plugin = dynamicTool({ inputSchema: z.object({}), execute: async () => 'ran' })
    const [, answer] = await loadUIMessages(memory, 'ui-dynamic', { tools: { plugin } })
    expect(answer!.parts[1]).toEqual({
      type: 'dynamic-tool',
      toolName: 'plugin',
      toolCallId: 'd1',
      state: 'output-available',
      input: {},
      output: 'ran',
    })
    const [, plain] = await loadUIMessages(memory, 'ui-dynamic')
    expect(plain!.parts[1]).toMatchObject({ type: 'tool-plugin', state: 'output-available' })
  })

  it('an empty thread id is STRATA_INVALID_THREAD_ID', async () => {
    const error = await loadUIMessages(createMemory(), '').catch((caught: unknown) => caught)
    expect(StrataError.isInstance(error, 'STRATA_INVALID_THREAD_ID')).toBe(true)
  })
})
