import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages'
import { createMemory, type MessageItem } from '@strata-memory/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { fromLangChainMessage } from './from-langchain'
import { toLangChainMessage, toLangChainMessages } from './to-langchain'

const key = fc
  .string({ minLength: 1, maxLength: 8 })
  .filter((k) => !['memory_level', 'memory_id', 'memory_ids', 'strata', '__proto__'].includes(k))
const scalar = fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.boolean())
const record = fc.dictionary(key, fc.oneof(scalar, fc.dictionary(key, scalar, { maxKeys: 2 })), {
  maxKeys: 3,
})
const id = fc.option(fc.uuid(), { nil: undefined })
const name = fc.option(fc.string({ minLength: 1, maxLength: 10 }), { nil: undefined })

const textBlock = fc.record(
  {
    type: fc.constant('text'),
    text: fc.string({ maxLength: 20 }),
    cache_control: fc.constant({ type: 'ephemeral' }),
  },
  { requiredKeys: ['type', 'text'] },
)
const imageBlock = fc.oneof(
  fc.record({
    type: fc.constant('image'),
    url: fc.webUrl(),
    mimeType: fc.constantFrom('image/png', 'image/jpeg'),
  }),
  fc.record({
    type: fc.constant('image'),
    data: fc.base64String({ maxLength: 16 }),
    mimeType: fc.constant('image/png'),
  }),
  fc.record({
    type: fc.constant('image_url'),
    image_url: fc.record(
      { url: fc.webUrl(), detail: fc.constantFrom('low', 'high') },
      { requiredKeys: ['url'] },
    ),
  }),
  fc.record({ type: fc.constant('image_url'), image_url: fc.webUrl() }),
)
const reasoningBlock = fc.oneof(
  fc.record({ type: fc.constant('reasoning'), reasoning: fc.string({ maxLength: 20 }) }),
  fc.record({
    type: fc.constant('thinking'),
    thinking: fc.string({ maxLength: 20 }),
    signature: fc.string({ maxLength: 8 }),
  }),
)
const otherBlock = fc.record({
  type: fc.constant('tool_use'),
  id: fc.string({ maxLength: 6 }),
  input: record,
})
const content = (blocks: fc.Arbitrary<Record<string, unknown>>) =>
  fc.oneof(fc.string({ maxLength: 30 }), fc.array(blocks, { maxLength: 4 }))

const human = fc
  .record({ id, name, content: content(fc.oneof(textBlock, imageBlock)), additional_kwargs: record })
  .map((fields) => new HumanMessage(fields as never))
const system = fc
  .record({ id, content: fc.string({ maxLength: 30 }) })
  .map((fields) => new SystemMessage(fields))
const toolCall = fc.record({
  type: fc.constant('tool_call' as const),
  id: fc.string({ minLength: 1, maxLength: 10 }),
  name: fc.stringMatching(/^[a-z_]{1,10}$/),
  args: record,
})
const ai = fc
  .record(
    {
      id,
      content: content(fc.oneof(textBlock, reasoningBlock, otherBlock)),
      tool_calls: fc.array(toolCall, { maxLength: 3 }),
      additional_kwargs: record,
      response_metadata: record,
      usage_metadata: fc.record({ input_tokens: fc.nat(), output_tokens: fc.nat(), total_tokens: fc.nat() }),
    },
    { requiredKeys: ['content', 'tool_calls'] },
  )
  .map((fields) => new AIMessage(fields as never))
const tool = fc
  .record(
    {
      id,
      name,
      content: fc.oneof(
        fc.string({ maxLength: 30 }),
        fc.json().map((json) => json),
      ),
      tool_call_id: fc.string({ minLength: 1, maxLength: 10 }),
      status: fc.constantFrom('success' as const, 'error' as const),
      artifact: record,
      additional_kwargs: record,
    },
    { requiredKeys: ['content', 'tool_call_id'] },
  )
  .map((fields) => new ToolMessage(fields as never))

const message = fc.oneof(human, system, ai, tool)

/** A conversation a thread takes: each tool call answered by a tool message right after its AI message. */
const conversation = fc
  .array(fc.tuple(human, fc.array(fc.tuple(ai, fc.array(tool, { maxLength: 3 })), { maxLength: 2 }), ai), {
    minLength: 1,
    maxLength: 3,
  })
  .map((turns) => {
    let next = 0
    const messages: BaseMessage[] = []
    for (const [request, steps, answer] of turns) {
      messages.push(request)
      for (const [call, results] of steps) {
        const ids = results.map(() => `call_${next++}`)
        messages.push(
          new AIMessage({
            ...fieldsOf(call),
            tool_calls: ids.map((callId, index) => ({
              type: 'tool_call',
              id: callId,
              name: `tool_${index}`,
              args: {},
            })),
          } as never),
        )
        results.forEach((result, index) => {
          messages.push(new ToolMessage({ ...fieldsOf(result), tool_call_id: ids[index]! } as never))
        })
      }
      messages.push(new AIMessage({ ...fieldsOf(answer), tool_calls: [] } as never))
    }
    return messages
  })

/** What a LangChain message is made of, for comparing. */
const FIELDS = [
  'type',
  'id',
  'name',
  'content',
  'additional_kwargs',
  'response_metadata',
  'tool_calls',
  'invalid_tool_calls',
  'usage_metadata',
  'tool_call_id',
  'status',
  'artifact',
  'metadata',
] as const
const fieldsOf = (m: BaseMessage) =>
  Object.fromEntries(FIELDS.map((field) => [field, (m as unknown as Record<string, unknown>)[field]]))

describe('LangChain messages → core → LangChain', () => {
  it('gives back equal messages (through JSON, as a store keeps them)', () => {
    fc.assert(
      fc.property(message, (original) => {
        const stored = JSON.parse(JSON.stringify(fromLangChainMessage(original)))
        const [back, ...rest] = toLangChainMessage(stored)
        expect(rest).toEqual([])
        expect(fieldsOf(back!)).toEqual(fieldsOf(original))
      }),
      { numRuns: 300 },
    )
  })

  it('gives back equal messages stored in a thread and read from its log', async () => {
    await fc.assert(
      fc.asyncProperty(conversation, async (originals) => {
        const memory = createMemory({ content: false })
        const thread = await memory.thread('round-trip')
        await thread.append(originals.map(fromLangChainMessage), { format: 'core' })
        const items = (await thread.items()).filter((item) => item.type === 'message') as MessageItem[]
        const back = items.flatMap((item) => toLangChainMessage(item))
        expect(back.map(fieldsOf)).toEqual(originals.map(fieldsOf))
      }),
      { numRuns: 60 },
    )
  })

  it('keeps the level and the kind of Strata’s own messages in additional_kwargs, never in name', async () => {
    const memory = createMemory()
    const thread = await memory.thread('kinds')
    await thread.enter('project', { title: 'Garden' })
    await thread.append(fromLangChainMessage(new HumanMessage({ content: 'Plant trees', name: 'ann' })))
    await thread.exit({ outcome: 'complete', summary: 'Trees planted.' })
    const context = await thread.context({ system: 'Be brief.' })
    const messages = toLangChainMessages(context.messages, { level: context.stats.level })
    expect(messages.map((m) => [m.type, m.name, m.additional_kwargs])).toEqual([
      ['system', undefined, { memory_level: 'global', strata: { kind: 'memory' } }],
      // The turn's request, written inside the closed project, stays in view (a user's own message).
      ['human', 'ann', { memory_level: 'global' }],
      ['human', undefined, { memory_level: 'global', strata: { kind: 'transition' } }],
      ['human', undefined, { memory_level: 'global', strata: { kind: 'summary' } }],
    ])
  })
})
