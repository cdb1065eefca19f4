import { createMemory, StrataError } from '@strata-memory/core'
import { describe, expect, it } from 'vitest'
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

  it('a bad thread id is STRATA_INVALID_THREAD_ID', async () => {
    const error = await loadUIMessages(createMemory(), '../x').catch((caught: unknown) => caught)
    expect(StrataError.isInstance(error, 'STRATA_INVALID_THREAD_ID')).toBe(true)
  })
})
