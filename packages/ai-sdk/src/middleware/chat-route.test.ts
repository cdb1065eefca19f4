import type {
  LanguageModelV4Message,
  LanguageModelV4Middleware,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider'
import { createMemory, type Item, StrataError } from '@strata-memory/core'
import {
  convertToModelMessages,
  createUIMessageStreamResponse,
  isStepCount,
  type LanguageModel,
  streamText,
  type Tool,
  tool,
  toUIMessageStream,
  type UIMessage,
  wrapLanguageModel,
} from 'ai'
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { TestChat } from '../testing/chat-client'
import { usage } from '../testing/model-results'
import { strataMiddleware } from './strata-middleware'

const start: LanguageModelV4StreamPart = { type: 'stream-start', warnings: [] }
const finish = (unified: 'stop' | 'tool-calls' = 'stop'): LanguageModelV4StreamPart => ({
  type: 'finish',
  usage: usage(100),
  finishReason: { unified, raw: undefined },
})
const say = (text: string): LanguageModelV4StreamPart[] => [
  { type: 'text-start', id: 't' },
  { type: 'text-delta', id: 't', delta: text },
  { type: 'text-end', id: 't' },
]

/** A tool the provider runs itself, declared as providers declare theirs. */
const providerTool = (name: string, inputSchema: z.ZodType) =>
  ({
    type: 'provider',
    id: `test.${name}`,
    args: {},
    inputSchema,
    isProviderExecuted: true,
  }) as unknown as Tool

const tools = {
  remove: tool({
    inputSchema: z.object({ path: z.string() }),
    needsApproval: true,
    execute: async ({ path }) => `removed ${path}`,
  }),
  web_search: providerTool('web_search', z.object({ query: z.string() })),
  deploy: providerTool('deploy', z.object({ env: z.string() })),
}

/** What the provider streams on each call, in order: reasoning, a provider-run search, an approval. */
const SCRIPT: LanguageModelV4StreamPart[][] = [
  [
    start,
    { type: 'reasoning-start', id: 'r', providerMetadata: { anthropic: { signature: 'sig-1' } } },
    { type: 'reasoning-delta', id: 'r', delta: 'A small image.' },
    { type: 'reasoning-end', id: 'r' },
    ...say('A cat.'),
    finish(),
  ],
  [
    start,
    {
      type: 'tool-call',
      toolCallId: 'search-1',
      toolName: 'web_search',
      input: '{"query":"cats"}',
      providerExecuted: true,
    },
    {
      type: 'tool-result',
      toolCallId: 'search-1',
      toolName: 'web_search',
      result: [{ url: 'https://cats.test', title: 'Cats' }],
    },
    { type: 'source', sourceType: 'url', id: 'source-1', url: 'https://cats.test', title: 'Cats' },
    ...say('Cats are popular.'),
    finish(),
  ],
  [
    start,
    { type: 'tool-call', toolCallId: 'remove-1', toolName: 'remove', input: '{"path":"a.txt"}' },
    finish('tool-calls'),
  ],
  [start, ...say('Removed a.txt.'), finish()],
  [start, ...say('You are welcome.'), finish()],
]

/** A route handler as in a Next.js app: the whole history in, a UI message stream response out. */
function chatRoute(model: LanguageModel, errors: unknown[]) {
  return async (request: Request) => {
    const { id, messages } = (await request.json()) as { id: string; messages: UIMessage[] }
    const result = streamText({
      model,
      system: 'Be brief.',
      messages: await convertToModelMessages(messages, { tools }),
      tools,
      stopWhen: isStepCount(4),
      providerOptions: { strata: { threadId: id } },
      onError: ({ error }) => {
        errors.push(error)
      },
    })
    return createUIMessageStreamResponse({
      stream: toUIMessageStream({ stream: result.stream, tools, sendReasoning: true, sendSources: true }),
    })
  }
}

/** Runs the scripted chat through a route; the model is wrapped with the middleware when one is given. */
async function runChat(middleware?: LanguageModelV4Middleware) {
  let call = 0
  const mock = new MockLanguageModelV4({
    doStream: async () => ({ stream: convertArrayToReadableStream(SCRIPT[call++]!) }),
  })
  const errors: unknown[] = []
  const model = middleware === undefined ? mock : wrapLanguageModel({ model: mock, middleware })
  const chat = new TestChat(chatRoute(model, errors), { id: 'chat-1' })
  await chat.sendMessage({
    parts: [
      { type: 'file', mediaType: 'image/png', url: 'data:image/png;base64,iVBORw0KGgo=' },
      {
        type: 'file',
        mediaType: 'application/pdf',
        filename: 'notes.pdf',
        url: 'data:application/pdf;base64,JVBERi0=',
      },
      { type: 'text', text: 'What is in these?' },
    ],
  })
  await chat.sendMessage({ text: 'Search for cats' })
  await chat.sendMessage({ text: 'Remove a.txt' })
  const approval = chat.messages
    .at(-1)!
    .parts.find((part) => part.type === 'tool-remove' && part.state === 'approval-requested')
  if (approval?.type !== 'tool-remove' || approval.state !== 'approval-requested') {
    throw new Error('the model asked for no approval')
  }
  await chat.addToolApprovalResponse({ id: approval.approval.id, approved: true })
  // useChat continues with sendAutomaticallyWhen; sending the same messages again is what it does.
  await chat.sendMessage()
  await chat.sendMessage({ text: 'Thanks' })
  expect(errors).toEqual([])
  expect(chat.error).toBeUndefined()
  return { prompts: mock.doStreamCalls.map((options) => options.prompt), chat }
}

/** A stored log as role and part types, the way a reader checks it by eye. */
const outline = (items: readonly Item[]) =>
  items.map((item) =>
    item.type === 'message'
      ? `${item.role}: ${item.content
          .map((part) =>
            part.type === 'text' || part.type === 'reasoning'
              ? `${part.type} ${part.text}`
              : part.type === 'file'
                ? `file ${part.mediaType}`
                : `${part.type} ${part.toolCallId}`,
          )
          .join(', ')}`
      : item.type,
  )

describe('a useChat route that re-sends the whole history', () => {
  it('sends the provider the prompt it gets without Strata, and stores every message once', async () => {
    const bare = await runChat()
    const memory = createMemory()
    const withStrata = await runChat(strataMiddleware({ memory }))

    // No scope closed, so the context is the whole history: reasoning with its signature, files,
    // the provider-run search with its result in the assistant's turn, the approved call's result.
    expect(withStrata.prompts).toHaveLength(5)
    expect(withStrata.prompts).toEqual(bare.prompts)
    expect(JSON.stringify(withStrata.prompts[4])).toContain('"signature":"sig-1"')
    const searchTurn = (withStrata.prompts[4] as LanguageModelV4Prompt).find(
      (message): message is Extract<LanguageModelV4Message, { role: 'assistant' }> =>
        message.role === 'assistant' && JSON.stringify(message).includes('search-1'),
    )
    expect(searchTurn?.content.map((part) => part.type)).toEqual(['tool-call', 'tool-result', 'text'])

    const thread = await memory.thread('chat-1')
    expect(outline(await thread.items())).toEqual([
      'user: file image/png, file application/pdf, text What is in these?',
      'assistant: reasoning A small image., text A cat.',
      'user: text Search for cats',
      'assistant: tool-call search-1, tool-result search-1, text Cats are popular.',
      'user: text Remove a.txt',
      'assistant: tool-call remove-1',
      'tool: tool-result remove-1',
      'assistant: text Removed a.txt.',
      'user: text Thanks',
      'assistant: text You are welcome.',
    ])
    // The UI got what it gets without Strata.
    expect(withStrata.chat.messages.map((message) => message.parts.map((part) => part.type))).toEqual(
      bare.chat.messages.map((message) => message.parts.map((part) => part.type)),
    )
  })

  it('refuses an approval of a provider-executed tool with a typed error, storing nothing of it', async () => {
    const memory = createMemory()
    const thread = await memory.thread('chat-2')
    let call = 0
    const mock = new MockLanguageModelV4({
      doStream: async () => ({
        stream: convertArrayToReadableStream(
          call++ === 0
            ? [
                start,
                {
                  type: 'tool-call',
                  toolCallId: 'deploy-1',
                  toolName: 'deploy',
                  input: '{"env":"prod"}',
                  providerExecuted: true,
                },
                { type: 'tool-approval-request', approvalId: 'approval-1', toolCallId: 'deploy-1' },
                finish(),
              ]
            : [start, ...say('Deployed.'), finish()],
        ),
      }),
    })
    const errors: unknown[] = []
    const model = wrapLanguageModel({ model: mock, middleware: strataMiddleware({ memory }) })
    const chat = new TestChat(chatRoute(model, errors), { id: 'chat-2' })
    await chat.sendMessage({ text: 'Deploy' })
    const stored = await thread.items()
    expect(outline(stored)).toEqual(['user: text Deploy', 'assistant: tool-call deploy-1'])
    await chat.addToolApprovalResponse({ id: 'approval-1', approved: true })
    await chat.sendMessage()

    expect(errors).toHaveLength(1)
    expect(StrataError.isInstance(errors[0], 'STRATA_INVALID_MESSAGE')).toBe(true)
    expect((errors[0] as Error).message).toContain('turn approval off for provider-executed tools')
    expect(mock.doStreamCalls).toHaveLength(1)
    expect(await thread.items()).toEqual(stored)
  })
})
