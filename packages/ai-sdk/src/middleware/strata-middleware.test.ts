import type { LanguageModelV4Prompt } from '@ai-sdk/provider'
import { createMemory, type Item, StrataError } from '@strata-memory/core'
import {
  generateText,
  isStepCount,
  type ModelMessage,
  streamText,
  ToolLoopAgent,
  tool,
  wrapLanguageModel,
} from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { toProviderPrompt } from '../messages/provider-prompt'
import { generated, streamed, toolCall } from '../testing/model-results'
import { strataMiddleware } from './strata-middleware'

/** A model answering from a script, one answer per call, wrapped with the middleware. */
function scripted(answers: Parameters<typeof generated>[0][], options: { inputTokens?: number } = {}) {
  let call = 0
  const mock = new MockLanguageModelV4({
    doGenerate: async () => generated(answers[call++] ?? 'done', options),
    doStream: async () => streamed(answers[call++] ?? 'done', options),
  })
  return mock
}

const texts = (prompt: LanguageModelV4Prompt) =>
  prompt.map((message) => {
    const content =
      typeof message.content === 'string'
        ? message.content
        : message.content
            .map((part) =>
              part.type === 'text'
                ? part.text
                : part.type === 'tool-call'
                  ? `call ${part.toolCallId}`
                  : part.type === 'tool-result'
                    ? `result ${part.toolCallId}`
                    : part.type,
            )
            .join(' | ')
    return `${message.role}: ${content}`
  })

/** The stored log as role and content, without ids, seqs and metadata. */
const conversation = (items: readonly Item[]) =>
  items.map((item) =>
    item.type === 'message'
      ? {
          role: item.role,
          turnId: item.turnId,
          content: item.content.map(({ meta: _, ...part }) => part),
        }
      : { type: item.type },
  )

/**
 * A message of the app's history as the log should hold it, written out independently of the
 * adapter's mapping for the shapes the property test uses (text, tool calls, text tool outputs).
 */
function asStored(message: ModelMessage) {
  if (typeof message.content === 'string') {
    return { role: message.role, content: [{ type: 'text', text: message.content }] }
  }
  return {
    role: message.role,
    content: message.content.map((part) => {
      switch (part.type) {
        case 'text':
          return { type: 'text', text: part.text }
        case 'tool-call':
          return {
            type: 'tool-call',
            toolCallId: part.toolCallId,
            toolName: part.toolName,
            input: part.input,
          }
        case 'tool-result':
          if (part.output.type !== 'text') throw new Error(`unexpected output ${part.output.type}`)
          return {
            type: 'tool-result',
            toolCallId: part.toolCallId,
            toolName: part.toolName,
            output: part.output.value,
          }
        default:
          throw new Error(`unexpected part ${part.type}`)
      }
    }),
  }
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected a rejection')
}

describe('strataMiddleware', () => {
  it('sends the context, not the history, to generateText and streamText', async () => {
    const memory = createMemory()
    const mock = scripted(['Hello!', 'Planted.', 'Bye.'])
    const model = wrapLanguageModel({
      model: mock,
      middleware: strataMiddleware({ memory, threadId: 'chat-1' }),
    })
    const thread = await memory.thread('chat-1')

    const history: ModelMessage[] = [{ role: 'user', content: 'Hi' }]
    const first = await generateText({ model, system: 'You are a gardener.', messages: history })
    history.push(...first.responseMessages, { role: 'user', content: 'Plant a tree' })

    // The scope closes between calls: its detail leaves the global view.
    await thread.enter('project', { title: 'Garden' })
    await thread.enter('task', { title: 'Plant' })
    await thread.exit({ outcome: 'complete', summary: 'Planted one tree.' })
    await thread.exit({ outcome: 'complete', summary: 'Garden done.' })

    const second = streamText({ model, system: 'You are a gardener.', messages: history })
    expect(await second.text).toBe('Planted.')
    const sent = mock.doStreamCalls[0]!.prompt
    const context = await thread.context()
    // The call-level system message stays first; the rest is exactly the thread's context.
    expect(sent[0]).toEqual({ role: 'system', content: 'You are a gardener.' })
    expect(sent.slice(1)).toEqual(toProviderPrompt(context.messages).slice(0, -1))
    expect(texts(sent)).toEqual([
      'system: You are a gardener.',
      'user: Hi',
      'assistant: Hello!',
      expect.stringContaining('[ACTIONS]'),
      'user: [SUMMARY]: Garden done.',
      'user: Plant a tree',
    ])
    expect(texts(mock.doGenerateCalls[0]!.prompt)).toEqual(['system: You are a gardener.', 'user: Hi'])
  })

  it('stores every call and result of a ToolLoopAgent run once, in order, in the turn of its user message', async () => {
    const memory = createMemory()
    const mock = scripted([
      [toolCall('call-1', 'weather', { city: 'Oslo' })],
      [toolCall('call-2', 'weather', { city: 'Bergen' }), toolCall('call-3', 'weather', { city: 'Rome' })],
      'Oslo 3°, Bergen 5°, Rome 18°.',
    ])
    const model = wrapLanguageModel({
      model: mock,
      middleware: strataMiddleware({ memory, threadId: 'agent-1' }),
    })
    const agent = new ToolLoopAgent({
      model,
      tools: {
        weather: tool({
          inputSchema: z.object({ city: z.string() }),
          execute: async ({ city }) => ({ city, celsius: city.length }),
        }),
      },
      stopWhen: isStepCount(5),
    })
    const thread = await memory.thread('agent-1')
    await thread.append([
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello' },
    ])
    const result = await agent.generate({
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello' },
        { role: 'user', content: 'Weather in Oslo, Bergen and Rome?' },
      ],
    })
    expect(result.text).toBe('Oslo 3°, Bergen 5°, Rome 18°.')
    expect(mock.doGenerateCalls).toHaveLength(3)
    // The call's tools reach the model with every step's context.
    for (const call of mock.doGenerateCalls) {
      expect(call.tools?.map((definition) => definition.name)).toEqual(['weather'])
    }
    const stored = conversation(await thread.items())
    const result_ = (id: string, city: string) => ({
      type: 'tool-result',
      toolCallId: id,
      toolName: 'weather',
      output: { city, celsius: city.length },
    })
    const call_ = (id: string, city: string) => ({
      type: 'tool-call',
      toolCallId: id,
      toolName: 'weather',
      input: { city },
    })
    expect(stored).toEqual([
      { role: 'user', turnId: 'turn_0001', content: [{ type: 'text', text: 'Hi' }] },
      { role: 'assistant', turnId: 'turn_0001', content: [{ type: 'text', text: 'Hello' }] },
      {
        role: 'user',
        turnId: 'turn_0002',
        content: [{ type: 'text', text: 'Weather in Oslo, Bergen and Rome?' }],
      },
      { role: 'assistant', turnId: 'turn_0002', content: [call_('call-1', 'Oslo')] },
      { role: 'tool', turnId: 'turn_0002', content: [result_('call-1', 'Oslo')] },
      {
        role: 'assistant',
        turnId: 'turn_0002',
        content: [call_('call-2', 'Bergen'), call_('call-3', 'Rome')],
      },
      {
        role: 'tool',
        turnId: 'turn_0002',
        content: [result_('call-2', 'Bergen'), result_('call-3', 'Rome')],
      },
      {
        role: 'assistant',
        turnId: 'turn_0002',
        content: [{ type: 'text', text: 'Oslo 3°, Bergen 5°, Rome 18°.' }],
      },
    ])
    const interactions = await thread.toolInteractions({ turnId: 'turn_0002' })
    expect(interactions.map((interaction) => [interaction.toolCallId, interaction.status])).toEqual([
      ['call-1', 'success'],
      ['call-2', 'success'],
      ['call-3', 'success'],
    ])
  })

  it('stores the history the app holds, once, whether it re-sends all of it or only the new message', async () => {
    const turn = fc.record({
      text: fc.constantFrom('yes', 'no', 'again'),
      answer: fc.constantFrom('ok', 'yes', 'done'),
      tools: fc.integer({ min: 0, max: 2 }),
      stream: fc.boolean(),
    })
    // How the app calls: what it sends, and what the middleware is told it sends.
    const setups = [
      { sends: 'all', history: 'full' },
      { sends: 'all', history: 'auto' },
      { sends: 'new', history: 'auto' },
      { sends: 'new', history: 'new' },
    ] as const
    let run = 0
    await fc.assert(
      fc.asyncProperty(fc.array(turn, { minLength: 1, maxLength: 5 }), async (turns) => {
        run++
        for (const setup of setups) {
          const memory = createMemory()
          const script: Parameters<typeof generated>[0][] = []
          turns.forEach(({ answer, tools }, index) => {
            for (let step = 0; step < tools; step++) {
              script.push([toolCall(`c${run}-${index}-${step}`, 'echo', { step })])
            }
            script.push(answer)
          })
          const model = wrapLanguageModel({
            model: scripted(script),
            middleware: strataMiddleware({ memory, threadId: 'property', history: setup.history }),
          })
          const tools = {
            echo: tool({
              inputSchema: z.object({ step: z.number() }),
              execute: async ({ step }) => `echo ${step}`,
            }),
          }
          const history: ModelMessage[] = []
          for (const { text, stream } of turns) {
            history.push({ role: 'user', content: text })
            const messages = setup.sends === 'all' ? [...history] : [history.at(-1)!]
            const options = { model, tools, messages, stopWhen: isStepCount(4) }
            const responseMessages = stream
              ? await streamText(options).responseMessages
              : (await generateText(options)).responseMessages
            history.push(...responseMessages)
          }
          const items = await (await memory.thread('property')).items()
          const stored = conversation(items).map(
            ({ turnId: _, ...message }: Record<string, unknown>) => message,
          )
          // Every message of the app's history once, in order: tool results included, since every
          // run ends with an answer step whose prompt carried them.
          expect(stored, JSON.stringify(setup)).toEqual(history.map(asStored))
        }
      }),
      { numRuns: 25 },
    )
  })

  it('does not duplicate anything when the whole history is re-sent', async () => {
    const memory = createMemory()
    const model = wrapLanguageModel({
      model: scripted(['A1', 'A2', 'A3']),
      middleware: strataMiddleware({ memory, threadId: 't' }),
    })
    const history: ModelMessage[] = []
    for (const text of ['one', 'two', 'three']) {
      history.push({ role: 'user', content: text })
      history.push(...(await generateText({ model, messages: history })).responseMessages)
    }
    const stored = conversation(await (await memory.thread('t')).items())
    expect(
      stored.map(
        (message) =>
          `${(message as { role: string }).role} ${JSON.stringify((message as { content: unknown }).content)}`,
      ),
    ).toEqual(
      ['one', 'A1', 'two', 'A2', 'three', 'A3'].map(
        (text, index) => `${index % 2 ? 'assistant' : 'user'} ${JSON.stringify([{ type: 'text', text }])}`,
      ),
    )
  })

  it('stores a new message once when two calls with the same history race (hold: false)', async () => {
    const memory = createMemory()
    const model = wrapLanguageModel({
      model: scripted(['A1', 'retry answer', 'other answer']),
      middleware: strataMiddleware({ memory, threadId: 'race', hold: false }),
    })
    const history: ModelMessage[] = [{ role: 'user', content: 'one' }]
    history.push(...(await generateText({ model, messages: history })).responseMessages)
    history.push({ role: 'user', content: 'two' })
    // A double-submitted request: both calls carry the same new message.
    await Promise.all([
      generateText({ model, messages: history }),
      generateText({ model, messages: history }),
    ])
    const users = (await (await memory.thread('race')).items()).filter(
      (item) => item.type === 'message' && item.role === 'user',
    )
    expect(users.map((item) => item.type === 'message' && item.content[0])).toEqual([
      { type: 'text', text: 'one' },
      { type: 'text', text: 'two' },
    ])
  })

  it('reports the usage of generate and stream calls', async () => {
    const memory = createMemory()
    const model = wrapLanguageModel({
      model: scripted(['A', 'B'], { inputTokens: 1234 }),
      middleware: strataMiddleware({ memory, threadId: 'usage' }),
    })
    const thread = await memory.thread('usage')
    await generateText({ model, prompt: 'Hi' })
    expect((await thread.status()).lastUsage).toMatchObject({ inputTokens: 1234, outputTokens: 5 })

    const streamModel = wrapLanguageModel({
      model: scripted(['C'], { inputTokens: 4321 }),
      middleware: strataMiddleware({ memory, threadId: 'usage' }),
    })
    const stream = streamText({ model: streamModel, prompt: 'Again' })
    // The caller still gets the stream (stream-abort.test.ts checks every part is passed untouched).
    const parts = []
    for await (const part of stream.fullStream) parts.push(part.type)
    expect(parts).toEqual(expect.arrayContaining(['text-start', 'text-delta', 'text-end', 'finish']))
    expect(await stream.text).toBe('C')
    expect((await thread.status()).lastUsage).toMatchObject({ inputTokens: 4321, outputTokens: 5 })
  })

  it('sends the view of the level in force at each call, with the turn request', async () => {
    const memory = createMemory()
    const thread = await memory.thread('levels')
    // While the model runs, the response is not stored yet: the view then is what must have been sent.
    const views: string[][] = []
    const viewText = (item: Item) =>
      item.type === 'message'
        ? `${item.role}: ${item.content.map((part) => (part.type === 'text' ? part.text : part.type)).join(' | ')}`
        : item.type === 'transition'
          ? `user: ${item.agentFacingMessage}`
          : item.type === 'summary'
            ? `user: [SUMMARY]: ${item.text}`
            : `user: [FACT]: ${item.text}`
    let answer = 0
    let asked: string | undefined
    const mock = new MockLanguageModelV4({
      doGenerate: async () => {
        views.push((await thread.view((asked ?? thread.level) as 'global')).map(viewText))
        return generated(`answer ${++answer}`)
      },
    })
    const model = wrapLanguageModel({
      model: mock,
      middleware: strataMiddleware({ memory, threadId: 'levels' }),
    })
    const call = async (text: string, level?: string) => {
      asked = level
      await generateText({
        model,
        prompt: text,
        ...(level ? { providerOptions: { strata: { level } } } : {}),
      })
      const sent = texts(mock.doGenerateCalls.at(-1)!.prompt)
      // The view, with the turn's request (the newest item here) when the level's view does not hold it.
      const view = views.at(-1)!
      expect(sent).toEqual(view.includes(`user: ${text}`) ? view : [...view, `user: ${text}`])
      return sent
    }
    expect(await call('At the global level')).toEqual(['user: At the global level'])
    await thread.enter('project', { title: 'Website', instructions: 'Build the landing page.' })
    // The project view starts with the scope's opening item and holds nothing of the global level.
    expect(await call('Start the hero section')).toEqual([
      'user: Project: Website\n\nBuild the landing page.',
      'user: Start the hero section',
    ])
    // A call can ask for a broader level's context: the global view skips the project's items, and
    // the turn's request (stored in the project) is shown with it.
    expect(await call('What did I say first?', 'global')).toEqual([
      'user: At the global level',
      'assistant: answer 1',
      'user: What did I say first?',
    ])
    await thread.exit({ outcome: 'complete', summary: 'Hero built.' })
    expect(await call('Thanks')).toEqual([
      'user: At the global level',
      'assistant: answer 1',
      expect.stringContaining('[ACTIONS]'),
      'user: [SUMMARY]: Hero built.',
      'user: Thanks',
    ])
  })

  it('fails with a typed error when no thread id is given, and stores nothing', async () => {
    const memory = createMemory()
    const model = wrapLanguageModel({ model: scripted(['A']), middleware: strataMiddleware({ memory }) })
    const error = await caught(generateText({ model, prompt: 'Hi' }))
    expect(StrataError.isInstance(error, 'STRATA_INVALID_OPTIONS')).toBe(true)
    expect((error as Error).message).toContain('providerOptions: { strata: { threadId')
    expect(await memory.listThreads()).toEqual([])

    // streamText reports errors through onError and the stream, not by throwing.
    let streamError: unknown
    const stream = streamText({
      model,
      prompt: 'Hi',
      onError: ({ error }) => {
        streamError = error
      },
    })
    await stream.consumeStream()
    expect(StrataError.isInstance(streamError, 'STRATA_INVALID_OPTIONS')).toBe(true)

    // A thread id per call works.
    const result = await generateText({
      model,
      prompt: 'Hi',
      providerOptions: { strata: { threadId: 'per-call' } },
    })
    expect(result.text).toBe('A')
    expect(await memory.listThreads()).toEqual(['per-call'])
  })

  it('rejects a malformed providerOptions.strata with a typed error before storing anything', async () => {
    const memory = createMemory()
    const model = wrapLanguageModel({
      model: scripted(['A']),
      middleware: strataMiddleware({ memory, threadId: 'bad' }),
    })
    const cases: [unknown, string][] = [
      ['chat-7', 'STRATA_INVALID_OPTIONS'],
      [{ threadID: 'chat-7' }, 'STRATA_INVALID_OPTIONS'],
      [{ threadId: 42 }, 'STRATA_INVALID_OPTIONS'],
      [{ history: 'everything' }, 'STRATA_INVALID_OPTIONS'],
      [{ internal: 'yes' }, 'STRATA_INVALID_OPTIONS'],
      // Any other id is mapped (see app-chat-ids.test.ts); an empty one cannot be.
      [{ threadId: '' }, 'STRATA_INVALID_THREAD_ID'],
      [{ level: 'galaxy' }, 'STRATA_INVALID_LEVEL'],
    ]
    for (const [strata, code] of cases) {
      const error = await caught(
        generateText({ model, prompt: 'Hi', providerOptions: { strata: strata as never } }),
      )
      expect(StrataError.isInstance(error), JSON.stringify(strata)).toBe(true)
      expect((error as StrataError).code).toBe(code)
    }
    expect(await (await memory.thread('bad')).items()).toEqual([])
  })

  it('rejects bad middleware options at once', () => {
    const memory = createMemory()
    const codeOf = (run: () => unknown) => {
      try {
        run()
      } catch (error) {
        return StrataError.isInstance(error) ? error.code : 'not a StrataError'
      }
      return 'no error'
    }
    expect(codeOf(() => strataMiddleware({} as never))).toBe('STRATA_INVALID_OPTIONS')
    expect(codeOf(() => strataMiddleware({ memory, threadId: '' }))).toBe('STRATA_INVALID_THREAD_ID')
    // A lone surrogate has no UTF-8 form, so no mapping.
    expect(codeOf(() => strataMiddleware({ memory, threadId: 'a\uD800' }))).toBe('STRATA_INVALID_THREAD_ID')
    expect(codeOf(() => strataMiddleware({ memory, history: 'all' as never }))).toBe('STRATA_INVALID_OPTIONS')
    expect(codeOf(() => strataMiddleware({ memory, level: 'galaxy' as never }))).toBe('STRATA_INVALID_LEVEL')
    // A misspelt option is refused, not ignored (the calls would go to another thread).
    expect(() => strataMiddleware({ memory, threadID: 'chat-7' } as never)).toThrow(
      "strataMiddleware(): unknown option 'threadID' (did you mean 'threadId'?). It takes memory, resource, level, system, history, onDivergence, threadId, telemetry, hold, toolStepWaitMs.",
    )
  })

  it("keeps its own options from the provider and the call's other provider options as they were", async () => {
    const memory = createMemory()
    const mock = scripted(['A', 'B'])
    const model = wrapLanguageModel({ model: mock, middleware: strataMiddleware({ memory }) })
    const providerOptions = { strata: { threadId: 'per-call' }, openai: { user: 'user-42' } }
    await generateText({ model, prompt: 'One', providerOptions })
    await streamText({ model, prompt: 'Two', providerOptions }).consumeStream()
    // A provider that forwards every option (the AI Gateway sends the whole call) never sees the thread id.
    expect(mock.doGenerateCalls[0]!.providerOptions).toEqual({ openai: { user: 'user-42' } })
    expect(mock.doStreamCalls[0]!.providerOptions).toEqual({ openai: { user: 'user-42' } })
    // The responses still reached the call's thread.
    const stored = conversation(await (await memory.thread('per-call')).items())
    expect(stored.map((item) => (item as { role: string }).role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ])
  })

  it('passes calls marked internal through untouched', async () => {
    const memory = createMemory()
    const mock = scripted(['summary'])
    const model = wrapLanguageModel({
      model: mock,
      middleware: strataMiddleware({ memory, threadId: 'internal' }),
    })
    await generateText({ model, prompt: 'Summarize', providerOptions: { strata: { internal: true } } })
    expect(texts(mock.doGenerateCalls[0]!.prompt)).toEqual(['user: Summarize'])
    expect(await memory.listThreads()).toEqual([])
  })
})
