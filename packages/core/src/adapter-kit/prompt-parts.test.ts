import { describe, expect, it } from 'vitest'
import type { MessagePart, ToolResultPart } from '../items'
import { createMemory } from '../memory'
import {
  adapterPartMeta,
  fromToolOutput,
  type PlainToolOutput,
  partsText,
  providerToolCall,
  toolCallPart,
  toolOutputKind,
  toolResultPart,
  toToolOutput,
} from './prompt-parts'

const result = (output: ToolResultPart['output'], isError?: true): ToolResultPart => ({
  type: 'tool-result',
  toolCallId: 'c1',
  toolName: 'lookup',
  output,
  ...(isError === undefined ? {} : { isError }),
})

describe('prompt-part mapping', () => {
  it('keeps an adapter’s fields under its own meta key, as plain JSON, and reads them back', () => {
    const meta = adapterPartMeta<{ providerOptions?: { a?: number }; kind?: string }>('frame')
    expect(meta.write({})).toEqual({})
    expect(meta.write({ kind: undefined })).toEqual({})
    const written = meta.write({ providerOptions: { a: 1 }, kind: 'x' })
    expect(written).toEqual({ meta: { frame: { providerOptions: { a: 1 }, kind: 'x' } } })
    expect(meta.read({ type: 'text', text: '', ...written } as MessagePart)).toEqual({
      providerOptions: { a: 1 },
      kind: 'x',
    })
    expect(meta.read({})).toEqual({})
    expect(meta.read({})).toBe(meta.read({ meta: { other: {} } }))
  })

  it('maps a tool call with its input as JSON and the provider’s flag', () => {
    expect(toolCallPart({ toolCallId: 'c1', toolName: 'lookup' }, {})).toEqual({
      type: 'tool-call',
      toolCallId: 'c1',
      toolName: 'lookup',
      input: {},
    })
    const at = new Date(0)
    expect(
      toolCallPart(
        { toolCallId: 'c2', toolName: 'search', input: { at, skip: undefined }, providerExecuted: true },
        { meta: { frame: { x: 1 } } },
      ),
    ).toEqual({
      type: 'tool-call',
      toolCallId: 'c2',
      toolName: 'search',
      input: { at: '1970-01-01T00:00:00.000Z' },
      providerExecuted: true,
      meta: { frame: { x: 1 } },
    })
  })

  it('maps a tool result with its mapped output, and core’s call back to a provider’s', () => {
    const mapped = fromToolOutput({ type: 'error-json', value: 'gone' })
    expect(toolResultPart({ toolCallId: 'c1', toolName: 'lookup' }, mapped, {})).toEqual({
      type: 'tool-result',
      toolCallId: 'c1',
      toolName: 'lookup',
      output: 'gone',
      isError: true,
    })
    expect(toolResultPart({ toolCallId: 'c2', toolName: 'lookup' }, { output: 1 }, {})).not.toHaveProperty(
      'isError',
    )
    const call = toolCallPart(
      { toolCallId: 'c3', toolName: 'web', input: { q: 'x' }, providerExecuted: true },
      {},
    )
    expect(providerToolCall(call)).toEqual({
      type: 'tool-call',
      toolCallId: 'c3',
      toolName: 'web',
      input: { q: 'x' },
      providerExecuted: true,
    })
    expect(providerToolCall({ ...call, providerExecuted: undefined })).not.toHaveProperty('providerExecuted')
    expect(providerToolCall({ ...call, providerExecuted: undefined }, false).providerExecuted).toBe(false)
  })

  it('round-trips every plain tool output through a stored thread, kinds a value cannot tell kept', async () => {
    const outputs: PlainToolOutput[] = [
      { type: 'text', value: 'sunny' },
      { type: 'error-text', value: 'not found' },
      { type: 'json', value: { temp: 21 } },
      { type: 'json', value: '{"a":1}' },
      { type: 'error-json', value: { code: 404 } },
      { type: 'error-json', value: 'gone' },
    ]
    const thread = await createMemory().thread('outputs')
    for (const [index, given] of outputs.entries()) {
      const id = `c${index}`
      const { output, isError, kind } = fromToolOutput(given)
      await thread.append([
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: id, toolName: 'lookup', input: {} }],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: id,
              toolName: 'lookup',
              output,
              ...(isError === undefined ? {} : { isError }),
              ...(kind === undefined ? {} : { meta: { frame: { output: kind } } }),
            },
          ],
        },
      ])
    }
    const stored = (await thread.items()).flatMap((item) =>
      item.type === 'message' ? item.content.filter((part) => part.type === 'tool-result') : [],
    )
    const back = stored.map((part) => {
      const kept = (part.meta?.frame as { output?: 'json' | 'error-json' } | undefined)?.output
      return toToolOutput(part, toolOutputKind(part, kept) as 'text')
    })
    expect(back).toEqual(outputs)
  })

  it('writes a JSON value as text when a text kind is asked for, and joins a message’s text', () => {
    expect(toToolOutput(result({ a: 1 }), 'text')).toEqual({ type: 'text', value: '{"a":1}' })
    expect(toolOutputKind(result('x', true), undefined)).toBe('error-text')
    expect(toolOutputKind(result({ a: 1 }, true), undefined)).toBe('error-json')
    expect(toolOutputKind(result('x'), 'content')).toBe('content')
    expect(
      partsText([
        { type: 'text', text: 'a' },
        { type: 'reasoning', text: 'b' },
        { type: 'file', mediaType: 'text/plain', data: 'Yw==' },
      ]),
    ).toBe('ab')
  })
})
