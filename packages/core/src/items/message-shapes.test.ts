import { describe, expect, it } from 'vitest'
import { StrataError } from '../errors'
import { createMemory } from '../memory'
import { inMemoryStore } from '../stores'
import type { MessageInput } from './message-input'
import { MAX_JSON_DEPTH } from './serializable'

/** A value nested `depth` levels deep: { a: { a: … { a: 'leaf' } } }. */
const nested = (depth: number): unknown => {
  let value: unknown = 'leaf'
  for (let level = 0; level < depth; level++) value = { a: value }
  return value
}

const errorOf = async (call: () => Promise<unknown>): Promise<StrataError> => {
  const error = await call().then(
    () => undefined,
    (caught: unknown) => caught,
  )
  if (!StrataError.isInstance(error)) throw new Error(`expected a StrataError, got ${String(error)}`)
  return error
}

const call: MessageInput = {
  role: 'assistant',
  content: [
    { type: 'tool-call', toolCallId: 'c1', toolName: 'fetch', input: { url: 'https://example.com' } },
  ],
}

describe('JSON nesting and size are bounded (deep-nesting regression)', () => {
  it('5 000 levels in providerOptions or a tool output are a typed error; the log is unchanged', async () => {
    const store = inMemoryStore()
    const thread = await createMemory({ store }).thread('deep')
    await thread.append([{ role: 'user', content: 'fetch it' }, call])
    const before = await store.read('deep')
    const deepOptions = {
      role: 'user',
      content: [{ type: 'text', text: 'hi', providerOptions: nested(5_000) }],
    }
    const deepOutput = {
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'fetch', output: nested(5_000) }],
    }
    for (const message of [deepOptions, deepOutput]) {
      const error = await errorOf(() => thread.append(message as never))
      expect(error.code).toBe('STRATA_INVALID_MESSAGE')
      expect(error.message).toContain(`more than ${MAX_JSON_DEPTH} levels deep`)
      expect(error.details).toMatchObject({ reason: 'depth', maxDepth: MAX_JSON_DEPTH })
    }
    expect(await store.read('deep')).toStrictEqual(before)
  })

  it('accepts nesting up to the limit and stores it whole', async () => {
    const thread = await createMemory().thread('at-limit')
    await thread.append([{ role: 'user', content: 'fetch it' }, call])
    // The output sits under content[0].output: the message's parts use three of the levels.
    const output = nested(MAX_JSON_DEPTH - 3)
    const [stored] = await thread.append({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'fetch', output: output as never }],
    })
    expect(stored!.content[0]).toMatchObject({ output })
    const over = nested(MAX_JSON_DEPTH - 2)
    const error = await errorOf(() =>
      thread.append({
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'fetch', output: over as never }],
      }),
    )
    expect(error.code).toBe('STRATA_INVALID_MESSAGE')
  })
})

describe('messages in other shapes', () => {
  it('a UIMessage (parts, no content) is refused with a pointer to convertToModelMessages', async () => {
    const thread = await createMemory().thread('ui')
    const error = await errorOf(() =>
      thread.append({ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'hi' }] } as never),
    )
    expect(error.code).toBe('STRATA_INVALID_MESSAGE')
    expect(error.message).toMatch(/^message is a UIMessage/)
    expect(error.message).toContain('convertToModelMessages')
    expect(await thread.items()).toEqual([])
  })

  it('errors about one message do not name an index; in a list of several they do', async () => {
    const thread = await createMemory().thread('where')
    const one = await errorOf(() => thread.append({ role: 'robot', content: 'x' } as never))
    expect(one.message).toMatch(/^message\.role "robot" is invalid/)
    const several = await errorOf(() =>
      thread.append([{ role: 'user', content: 'ok' }, { role: 'robot', content: 'x' } as never]),
    )
    expect(several.message).toMatch(/^message\[1\]\.role "robot" is invalid/)
  })

  it('an AI SDK typed tool output without a format is refused as ambiguous, storing nothing', async () => {
    const thread = await createMemory().thread('typed')
    await thread.append([{ role: 'user', content: 'fetch it' }, call])
    const before = await thread.items()
    const error = await errorOf(() =>
      thread.append({
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'fetch',
            output: { type: 'text', value: 'page' },
          },
        ],
      }),
    )
    expect(error.code).toBe('STRATA_INVALID_MESSAGE')
    expect(error.message).toContain("{ format: 'ai-sdk' }")
    expect(error.details).toMatchObject({ reason: 'ai-sdk-tool-output' })
    expect(await thread.items()).toEqual(before)
  })

  it("{ format: 'core' } stores such JSON as the tool's own output", async () => {
    const thread = await createMemory().thread('core-format')
    await thread.append([{ role: 'user', content: 'fetch it' }, call])
    const output = { type: 'text', value: 'a tool whose data has this shape' }
    const [stored] = await thread.append(
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'fetch', output }] },
      { format: 'core' },
    )
    expect(stored!.content[0]).toMatchObject({ output })
  })

  it("{ format: 'ai-sdk' } maps ModelMessages: the model sees the page as text, not as JSON", async () => {
    const thread = await createMemory().thread('model-messages')
    const page = 'Tomatoes need six hours of sun a day.'
    await thread.append(
      [
        { role: 'user', content: 'How much sun do tomatoes need?' },
        {
          role: 'assistant',
          content: [
            { type: 'tool-call', toolCallId: 'c1', toolName: 'fetch', input: { url: 'https://x.test' } },
          ],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'c1',
              toolName: 'fetch',
              output: { type: 'text', value: page },
            },
          ],
        },
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: 'c2', toolName: 'weather', input: {} }],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'c2',
              toolName: 'weather',
              output: { type: 'error-json', value: { status: 503 } },
            },
          ],
        },
      ],
      { format: 'ai-sdk' },
    )
    const { messages } = await thread.context()
    const results = messages.flatMap((message) =>
      message.content.filter((part) => part.type === 'tool-result'),
    )
    expect(results).toEqual([
      expect.objectContaining({ toolCallId: 'c1', output: page }),
      expect.objectContaining({ toolCallId: 'c2', output: { status: 503 }, isError: true }),
    ])
    expect(JSON.stringify(messages)).not.toContain('"type":"text","value"')
  })
})
