import { describe, expect, it } from 'vitest'
import type { Item, MessagePart } from '../items'
import { patternSummarizer } from './pattern-summarizer'

let seq = 0
const message = (role: 'user' | 'assistant' | 'tool', content: MessagePart[]): Item => ({
  id: `i${++seq}`,
  seq,
  ts: seq,
  level: 'task',
  turnId: 'turn_0001',
  type: 'message',
  role,
  content,
})
const call = (toolName: string, input: object = {}) =>
  message('assistant', [{ type: 'tool-call', toolCallId: `c${seq}`, toolName, input: input as never }])

describe('patternSummarizer', () => {
  it('counts tool calls by action, most frequent first, and adds the outcome', async () => {
    const items = [
      message('user', [{ type: 'text', text: 'Draw' }]),
      ...Array.from({ length: 15 }, () => call('create_shape')),
      ...Array.from({ length: 3 }, () => call('update_shape')),
      call('canvas', { action: 'delete_shape' }),
      message('tool', [
        { type: 'tool-result', toolCallId: 'x', toolName: 'update_shape', output: 'no', isError: true },
      ]),
    ]
    const { summary, facts } = await patternSummarizer().summarize(items, {
      tier: 'scope',
      scope: { title: 'House', level: 'task', outcome: 'complete' },
    })
    expect(summary).toBe(
      '19 tool calls: 15 create_shape, 3 update_shape, 1 delete_shape. 1 tool call failed. 1 user message. Outcome: task "House" completed.',
    )
    expect(facts).toEqual([])
  })

  it('is deterministic under ties and folds the tail past maxActions', async () => {
    const items = ['b', 'a', 'c', 'a', 'b', 'c', 'd'].map((name) => call(name))
    const summarizer = patternSummarizer({ maxActions: 2 })
    const first = await summarizer.summarize(items, { tier: 'scope' })
    const reversed = await summarizer.summarize([...items].reverse(), { tier: 'scope' })
    expect(first.summary).toBe('7 tool calls: 2 a, 2 b, 3 other.')
    expect(reversed.summary).toBe(first.summary)
  })

  it('says so when there were no tool calls, and honours an aborted signal', async () => {
    const { summary } = await patternSummarizer().summarize([], { tier: 'long-term' })
    expect(summary).toBe('No tool calls.')
    const controller = new AbortController()
    controller.abort(new Error('stop'))
    await expect(
      patternSummarizer().summarize([], { tier: 'scope', signal: controller.signal }),
    ).rejects.toThrow('stop')
  })

  it('labels by tool name, not by an input field named type (create_shape of a text is create_shape)', async () => {
    const items = [
      call('create_shape', { type: 'text' }),
      call('create_shape', { type: 'rect' }),
      message('assistant', [{ type: 'text', text: 'Done.' }]),
      message('assistant', [{ type: 'text', text: 'Really.' }]),
    ]
    const { summary } = await patternSummarizer().summarize(items, { tier: 'scope' })
    expect(summary).toBe('2 tool calls: 2 create_shape. 2 assistant replies.')
  })
})
