import type { LanguageModelV4Prompt } from '@ai-sdk/provider'
import { createMemory } from '@strata-memory/core'
import { describe, expect, it } from 'vitest'
import { toolCall } from '../testing/model-results'
import {
  fromProviderMessage,
  fromProviderPrompt,
  fromResponseContent,
  toProviderPrompt,
} from './provider-prompt'

/** A prompt with every part kind the adapter maps, provider options on messages and parts. */
const prompt: LanguageModelV4Prompt = [
  {
    role: 'system',
    content: 'Be brief.',
    providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
  },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'Look at these', providerOptions: { openai: { detail: 'high' } } },
      {
        type: 'file',
        mediaType: 'image/png',
        data: { type: 'data', data: new Uint8Array([137, 80, 78, 71]) },
      },
      {
        type: 'file',
        mediaType: 'application/pdf',
        filename: 'a.pdf',
        data: { type: 'data', data: 'JVBERi0=' },
      },
      {
        type: 'file',
        mediaType: 'image/jpeg',
        data: {
          type: 'url',
          url: new URL('https://example.test/cat.jpg'),
          originalUrl: 'https://example.test/cat.jpg',
        },
      },
      {
        type: 'file',
        mediaType: 'text/plain',
        data: { type: 'reference', reference: { openai: 'file-123' } },
      },
      { type: 'file', mediaType: 'text/plain', data: { type: 'text', text: 'inline document' } },
    ],
    providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
  },
  {
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'Thinking…', providerOptions: { anthropic: { signature: 'sig-1' } } },
      { type: 'reasoning-file', mediaType: 'image/png', data: { type: 'data', data: 'iVBORw==' } },
      { type: 'custom', kind: 'openai.compaction', providerOptions: { openai: { id: 'c-1' } } },
      { type: 'text', text: 'Calling tools' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'search', input: { q: 'cats' } },
      { type: 'tool-call', toolCallId: 'c2', toolName: 'web', input: { url: 'x' }, providerExecuted: true },
      {
        type: 'tool-result',
        toolCallId: 'c2',
        toolName: 'web',
        output: { type: 'json', value: 'a json string' },
      },
    ],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'c1',
        toolName: 'search',
        output: { type: 'json', value: { hits: 3 } },
      },
    ],
  },
  {
    role: 'assistant',
    content: [
      { type: 'tool-call', toolCallId: 'c3', toolName: 'a', input: {} },
      { type: 'tool-call', toolCallId: 'c4', toolName: 'b', input: {} },
      { type: 'tool-call', toolCallId: 'c5', toolName: 'c', input: {} },
      { type: 'tool-call', toolCallId: 'c6', toolName: 'd', input: {} },
      { type: 'tool-call', toolCallId: 'c7', toolName: 'e', input: {} },
      { type: 'tool-call', toolCallId: 'c8', toolName: 'f', input: {} },
    ],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'c3',
        toolName: 'a',
        output: { type: 'text', value: 'plain', providerOptions: { openai: { format: 'plain' } } },
      },
      { type: 'tool-result', toolCallId: 'c4', toolName: 'b', output: { type: 'error-text', value: 'boom' } },
      {
        type: 'tool-result',
        toolCallId: 'c5',
        toolName: 'c',
        output: { type: 'error-json', value: { code: 1 } },
      },
      {
        type: 'tool-result',
        toolCallId: 'c6',
        toolName: 'd',
        output: { type: 'execution-denied', reason: 'The user said no' },
      },
      {
        type: 'tool-result',
        toolCallId: 'c7',
        toolName: 'e',
        output: {
          type: 'content',
          value: [
            { type: 'text', text: 'a chart' },
            { type: 'file', mediaType: 'image/png', data: { type: 'data', data: 'iVBORw==' } },
          ],
        },
      },
      {
        type: 'tool-result',
        toolCallId: 'c8',
        toolName: 'f',
        output: { type: 'json', value: [1, 2] },
        providerOptions: { openai: { itemId: 'i-8' } },
      },
    ],
  },
]

describe('provider prompt mapping', () => {
  it('keeps system messages aside and maps the rest to core messages that survive storage', async () => {
    const { system, messages } = fromProviderPrompt(prompt)
    expect(system).toEqual([prompt[0]])
    expect(messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
    ])
    const thread = await createMemory().thread('mapping')
    await thread.append(messages)
    const stored = await thread.items()
    // What comes back from the store maps to exactly the prompt that went in.
    const roundTrip = toProviderPrompt(
      stored.map(
        (item) => (item.type === 'message' ? { role: item.role, content: item.content } : item) as never,
      ),
    )
    expect(roundTrip).toEqual(prompt.slice(1))
  })

  it('maps a response as the SDK re-sends it: parsed tool inputs, metadata as provider options', () => {
    const message = fromResponseContent(
      [
        { type: 'reasoning', text: 'Let me see', providerMetadata: { anthropic: { signature: 's' } } },
        { type: 'text', text: '' },
        { type: 'text', text: 'Checking the weather' },
        toolCall('w1', 'weather', { city: 'Oslo' }),
        { type: 'tool-call', toolCallId: 'w2', toolName: 'weather', input: 'not json' },
        {
          type: 'source',
          sourceType: 'url',
          id: 's1',
          url: 'https://example.test',
          title: 'Example',
        },
      ],
      { responseId: 'r-1', modelId: 'm' },
    )
    expect(message).toBeDefined()
    expect(toProviderPrompt([{ role: 'assistant', content: message!.content as never }])).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Let me see', providerOptions: { anthropic: { signature: 's' } } },
          { type: 'text', text: 'Checking the weather' },
          { type: 'tool-call', toolCallId: 'w1', toolName: 'weather', input: { city: 'Oslo' } },
          { type: 'tool-call', toolCallId: 'w2', toolName: 'weather', input: 'not json' },
        ],
      },
    ])
    expect(message!.meta).toEqual({
      aiSdk: {
        responseId: 'r-1',
        modelId: 'm',
        extras: [
          { type: 'source', sourceType: 'url', id: 's1', url: 'https://example.test', title: 'Example' },
        ],
      },
    })
    expect(fromResponseContent([{ type: 'text', text: '' }])).toBeUndefined()
  })

  it('copies inputs and options as JSON would: undefined dropped, non-finite numbers null, nothing shared', () => {
    const input = { city: 'Oslo', unit: undefined, days: [1, undefined, Number.NaN], when: new Date(0) }
    const providerOptions = { openai: { store: undefined, user: 'u-1' } }
    const message = fromProviderMessage({
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'w1', toolName: 'weather', input, providerOptions }],
    })
    const part = message.content[0]!
    expect(part).toEqual({
      type: 'tool-call',
      toolCallId: 'w1',
      toolName: 'weather',
      input: JSON.parse(JSON.stringify(input)),
      meta: { aiSdk: { providerOptions: { openai: { user: 'u-1' } } } },
    })
    expect(part.type === 'tool-call' && part.input).not.toBe(input)
    input.city = 'Bergen'
    expect(part.type === 'tool-call' && (part.input as { city: string }).city).toBe('Oslo')
  })

  it('keeps a tool input key named __proto__ as a key, as JSON.parse gives it', () => {
    const input = JSON.parse('{"__proto__": {"admin": true}, "q": "x"}') as Record<string, unknown>
    const message = fromProviderMessage({
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'p1', toolName: 'search', input }],
    })
    const stored = (message.content[0] as { input: Record<string, unknown> }).input
    expect(Object.getPrototypeOf(stored)).toBe(Object.prototype)
    expect(Object.keys(stored)).toEqual(['__proto__', 'q'])
    expect(JSON.stringify(stored)).toBe(JSON.stringify(input))
  })
})
