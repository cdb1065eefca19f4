import type { LanguageModelV4Prompt, LanguageModelV4StreamPart } from '@ai-sdk/provider'
import {
  type StrataUIMessage,
  strataErrorResponse,
  strataMiddleware,
  strataTools,
  writeMemoryParts,
} from '@strata-memory/ai-sdk'
import { createMemory, type ThreadHold } from '@strata-memory/core'
import {
  AbstractChat,
  type ChatState,
  convertToModelMessages,
  createUIMessageStream,
  createUIMessageStreamResponse,
  DefaultChatTransport,
  isStepCount,
  streamText,
  type ToolSet,
  tool,
  toUIMessageStream,
  wrapLanguageModel,
} from 'ai'
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test'
import { z } from 'zod'

/**
 * A chat route handler as in a Next.js app (`app/api/chat/route.ts`), driven by a scripted model so it
 * runs offline, and the chat useChat runs in the browser (the AI SDK's own `AbstractChat` and
 * `DefaultChatTransport`, without React) talking to it with real `Request`s and SSE `Response`s. The
 * client re-sends the whole history on every request; Strata stores what is new and sends the model
 * the thread's context instead; `regenerate()` at the end rewinds the thread to the last question.
 * `node src/chat.ts` prints what the model received each turn.
 */

const memory = createMemory({ content: { offloadAboveBytes: 400 } })

// --- A scripted model: answers from the last user message; tool calls where a real model would. ---
const lastUserText = (prompt: LanguageModelV4Prompt) => {
  for (let index = prompt.length - 1; index >= 0; index--) {
    const message = prompt[index]!
    if (message.role === 'tool') return undefined // a tool step: answer the results
    if (message.role === 'user')
      return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('')
  }
  return undefined
}

/**
 * After a tool step: the pricing docs left the context with their task, so the model finds them with
 * memory_query, reads the matching lines with memory_retrieve, and answers from them.
 */
function afterTool(
  prompt: LanguageModelV4Prompt,
  call: (toolName: string, input: unknown) => LanguageModelV4StreamPart,
  say: (words: string) => LanguageModelV4StreamPart[],
): LanguageModelV4StreamPart[] {
  const last = prompt.at(-1)
  const result = last?.role === 'tool' ? last.content[0] : undefined
  if (result?.type !== 'tool-result' || result.output.type !== 'json') return say('Done with that step.')
  const output = result.output.value as {
    results?: { id: string; where: string; type: string }[]
    content?: string
  }
  if (result.toolName === 'memory_query') {
    // The fetched page (earlier query results the channel stored are content too, never deleted).
    const hit = output.results?.find(
      (candidate) => candidate.where === 'content' && candidate.type === 'web-page',
    )
    return [call('memory_retrieve', { id: hit?.id, transform: 'filtered', pattern: 'Pro:' })]
  }
  if (result.toolName === 'memory_retrieve') return say(`From memory: ${output.content}`)
  return say('Done with that step.')
}

let callNumber = 0
function reply(prompt: LanguageModelV4Prompt): LanguageModelV4StreamPart[] {
  const text = lastUserText(prompt)
  callNumber++
  const call = (toolName: string, input: unknown): LanguageModelV4StreamPart => ({
    type: 'tool-call',
    toolCallId: `call-${callNumber}`,
    toolName,
    input: JSON.stringify(input),
  })
  const say = (words: string): LanguageModelV4StreamPart[] => [
    { type: 'text-start', id: 't' },
    { type: 'text-delta', id: 't', delta: words },
    { type: 'text-end', id: 't' },
  ]
  let parts: LanguageModelV4StreamPart[]
  if (text?.startsWith('Fetch')) parts = [call('fetch_docs', { url: 'https://example.test/pricing' })]
  else if (text?.startsWith('Done')) parts = [call('finish_task', {})]
  else if (text?.startsWith('What')) parts = [call('memory_query', { text: 'Pro' })]
  else if (text?.startsWith('[')) parts = say('The task is closed.')
  else if (text === undefined) parts = afterTool(prompt, call, say)
  else parts = say(`You said: ${text}`)
  const inputTokens = JSON.stringify(prompt).length >> 2
  return [
    { type: 'stream-start', warnings: [] },
    ...parts,
    {
      type: 'finish',
      finishReason: { unified: parts[0]!.type === 'tool-call' ? 'tool-calls' : 'stop', raw: undefined },
      usage: {
        inputTokens: {
          total: inputTokens,
          noCache: inputTokens,
          cacheRead: undefined,
          cacheWrite: undefined,
        },
        outputTokens: { total: 8, text: 8, reasoning: undefined },
      },
    },
  ]
}

const scriptedModel = new MockLanguageModelV4({
  doStream: async ({ prompt }) => ({ stream: convertArrayToReadableStream(reply(prompt)) }),
})

/** POST /api/chat: the body useChat sends (`{ id, messages, … }`), a UI message stream back. */
async function POST(request: Request): Promise<Response> {
  const { id, messages } = (await request.json()) as { id: string; messages: StrataUIMessage[] }
  const thread = await memory.thread(id)
  // One request at a time per chat: taken before the response starts, so a second request on the
  // chat (another tab, a double submit) is a 409 with nothing stored, not an error inside a stream.
  let hold: ThreadHold
  try {
    hold = await thread.hold()
  } catch (error) {
    return strataErrorResponse(error) // 409 { error: { code: 'STRATA_THREAD_BUSY', message } }
  }
  // --- The three lines: wrap the model (per request, inside its hold), pass the thread, add the tools. ---
  const model = wrapLanguageModel({
    model: scriptedModel,
    middleware: strataMiddleware({ memory, history: 'full', hold }),
  })
  const tools = {
    ...strataTools(memory, { threadId: id }),
    fetch_docs: tool({
      inputSchema: z.object({ url: z.string() }),
      execute: async ({ url }) =>
        `${url}\n${['Free: 0 EUR, 1 project', 'Pro: 12 EUR, 10 projects', 'Team: 40 EUR, unlimited'].join('\n')}\n${'Terms apply. '.repeat(40)}`,
    }),
    finish_task: tool({
      inputSchema: z.object({}),
      execute: async () => {
        await thread.exit({ outcome: 'complete', summary: 'Built the pricing page from the fetched docs.' })
        return 'Task closed'
      },
    }),
  }
  const latest = messages.at(-1)?.parts.find((part) => part.type === 'text')?.text ?? ''
  const stream = createUIMessageStream<StrataUIMessage>({
    execute: async ({ writer }) => {
      const stop = writeMemoryParts({ writer, memory, threadId: id })
      try {
        // The app opens a scope before the model call, so the whole request belongs to it. (Opened
        // from a tool instead, the opening call's result would land at the broader level after it.)
        if (latest.startsWith('Build') && thread.level === 'global') {
          await thread.enter('project', { title: latest, instructions: 'Use the docs the user points to.' })
        }
        const result = streamText({
          model,
          system: 'You build websites.',
          messages: await convertToModelMessages(messages),
          tools,
          stopWhen: isStepCount(4),
          providerOptions: { strata: { threadId: id } },
        })
        writer.merge(toUIMessageStream<ToolSet, StrataUIMessage>({ stream: result.stream }))
        // Read to the end even if the browser goes away, so the answer is stored.
        await result.consumeStream()
      } finally {
        stop()
        // The answer is stored before the model's stream ends: the request's last write is done.
        await hold.release()
      }
    },
  })
  return createUIMessageStreamResponse({ stream })
}

// --- The client side: what useChat does in the browser, without React. ---
class PlainChatState implements ChatState<StrataUIMessage> {
  status: ChatState<StrataUIMessage>['status'] = 'ready'
  error: Error | undefined = undefined
  messages: StrataUIMessage[] = []
  pushMessage = (message: StrataUIMessage) => {
    this.messages = [...this.messages, message]
  }
  popMessage = () => {
    this.messages = this.messages.slice(0, -1)
  }
  replaceMessage = (index: number, message: StrataUIMessage) => {
    this.messages = this.messages.map((current, at) => (at === index ? message : current))
  }
  snapshot = <T>(value: T): T => structuredClone(value)
}

class Chat extends AbstractChat<StrataUIMessage> {
  constructor(id: string) {
    super({
      id,
      state: new PlainChatState(),
      // useChat's default transport: POST /api/chat, here answered by the route above in-process.
      transport: new DefaultChatTransport<StrataUIMessage>({
        api: 'http://localhost/api/chat',
        fetch: async (input, init) => POST(new Request(input as string, init)),
      }),
    })
  }
}

const chat = new Chat('example.chat-1')
const userTurns = [
  'Hello',
  'Build a pricing page',
  'Fetch the pricing docs',
  'Done, close the task',
  'What does the Pro plan cost?',
]
for (const text of userTurns) {
  await chat.sendMessage({ text })
  if (chat.error !== undefined) throw chat.error
  const answer = chat.lastMessage!
  const shown = answer.parts
    .map((part) =>
      part.type === 'text'
        ? part.text
        : part.type === 'data-memory-transition'
          ? `[${part.data.text}]`
          : part.type.startsWith('tool-')
            ? `(${part.type.slice(5)})`
            : '',
    )
    .filter(Boolean)
    .join(' ')
  const stats = answer.metadata?.strata
  console.log(`\n> ${text}\n< ${shown}`)
  console.log(
    `  level ${stats?.level}; context ${stats?.contextTokens} of ${stats?.totalTokens} tokens (${Math.round((stats?.savedRatio ?? 0) * 100)}% saved)`,
  )
}

// useChat's regenerate(): the client drops the last answer and re-sends the history without it. The
// middleware rewinds the thread to that question (the old answer and its tool steps move to the
// archive, nothing is deleted) and the model answers again.
const rewound: number[] = []
memory.on('rewind', (event) => rewound.push(event.archived.length))
await chat.regenerate()
if (chat.error !== undefined) throw chat.error
const again = chat.lastMessage!.parts.flatMap((part) => (part.type === 'text' ? [part.text] : []))
console.log(`\n(regenerate)\n< ${again.join(' ')}`)
console.log(`  the old answer: ${rewound.join(', ')} items moved to the archive`)

const lastPrompt = scriptedModel.doStreamCalls.at(-1)!.prompt
console.log('\nWhat the model received on the last call:')
for (const message of lastPrompt) {
  const content =
    typeof message.content === 'string'
      ? message.content
      : message.content
          .map((part) =>
            part.type === 'text' ? part.text : `${part.type}${'toolName' in part ? ` ${part.toolName}` : ''}`,
          )
          .join(' | ')
  console.log(`  ${message.role}: ${content.replace(/\n/g, ' ').slice(0, 110)}`)
}
const status = await (await memory.thread(chat.id)).status()
console.log(
  `\nStored: ${status.items.active} items (${JSON.stringify(status.items.byType)}), ${status.items.archived} archived; model calls: ${scriptedModel.doStreamCalls.length}.`,
)

// Two tabs send at once: the first request holds the chat, the second is answered 409 before it
// stores anything.
const body = (text: string) =>
  JSON.stringify({
    id: 'example.chat-2',
    messages: [{ id: text, role: 'user', parts: [{ type: 'text', text }] }],
  })
const [first, second] = await Promise.all(
  ['Hello from tab 1', 'Hello from tab 2'].map((text) =>
    POST(new Request('http://localhost/api/chat', { method: 'POST', body: body(text) })),
  ),
)
await first!.text()
const refused = (await second!.json()) as { error: { code: string } }
console.log(`\nTwo requests at once: ${first!.status}, and ${second!.status} ${refused.error.code}.`)
await memory.close()
