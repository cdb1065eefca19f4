import { describe, expect, it } from 'vitest'
import type { MessagePart } from '../items'
import { gptTokenizer } from '../tokenizer'
import {
  countMessageTokens,
  countPartTokens,
  FILE_PART_TOKENS,
  MESSAGE_OVERHEAD_TOKENS,
} from './count-message'
import type { TokenCounter } from './token-counter'
import { tokenEstimator } from './token-estimator'

/** Counts characters, so every expected total below can be worked out by hand. */
const characters: TokenCounter = { name: 'characters', count: (text) => text.length }

describe('countMessageTokens', () => {
  it('charges the per-message overhead for a message without content', () => {
    expect(countMessageTokens({ content: [] }, characters)).toBe(MESSAGE_OVERHEAD_TOKENS)
  })

  it('adds the text of text and reasoning parts', () => {
    const content: MessagePart[] = [
      { type: 'reasoning', text: 'think' },
      { type: 'text', text: 'hello', meta: { ignored: 'metadata is not sent' } },
    ]
    expect(countMessageTokens({ content }, characters)).toBe(MESSAGE_OVERHEAD_TOKENS + 10)
  })

  it('counts tool calls and results by name, id and JSON, with string output as it is', () => {
    const call: MessagePart = {
      type: 'tool-call',
      toolCallId: 'c1',
      toolName: 'add',
      input: { a: 1, b: [2] },
    }
    const result: MessagePart = {
      type: 'tool-result',
      toolCallId: 'c1',
      toolName: 'add',
      output: 'line 1\nline 2',
    }
    expect(countPartTokens(call, characters)).toBe(3 + 2 + '{"a":1,"b":[2]}'.length)
    expect(countPartTokens(result, characters)).toBe(3 + 2 + 'line 1\nline 2'.length)
  })

  it('charges a file a flat amount and never counts inline data as text', () => {
    const base64 = 'iVBORw0KGgo'.repeat(1000)
    const inline: MessagePart = {
      type: 'file',
      mediaType: 'image/png',
      data: `data:image/png;base64,${base64}`,
    }
    const raw: MessagePart = { type: 'file', mediaType: 'image/png', data: base64, filename: 'chart.png' }
    const url: MessagePart = {
      type: 'file',
      mediaType: 'application/pdf',
      data: 'https://example.com/report.pdf',
    }
    expect(countPartTokens(inline, characters)).toBe(FILE_PART_TOKENS)
    expect(countPartTokens(raw, characters)).toBe(FILE_PART_TOKENS + 'chart.png'.length)
    expect(countPartTokens(url, characters)).toBe(FILE_PART_TOKENS + 'https://example.com/report.pdf'.length)
  })

  it('with the estimator, covers what o200k_base counts for the same content', () => {
    const content: MessagePart[] = [
      { type: 'text', text: 'Draw three houses along the river, the last one with a red roof.' },
      {
        type: 'tool-call',
        toolCallId: 'call_7',
        toolName: 'create_shape',
        input: { kind: 'house', x: 120, y: 48 },
      },
      {
        type: 'tool-result',
        toolCallId: 'call_7',
        toolName: 'create_shape',
        output: { id: 'shape-19', ok: true },
      },
    ]
    const o200k = gptTokenizer()
    const exact =
      MESSAGE_OVERHEAD_TOKENS + content.reduce((sum, part) => sum + countPartTokens(part, o200k), 0)
    expect(countMessageTokens({ content }, o200k)).toBe(exact)
    expect(countMessageTokens({ content }, tokenEstimator())).toBeGreaterThanOrEqual(exact)
  })
})
