import {
  AbstractChat,
  type ChatInit,
  type ChatState,
  convertToModelMessages,
  createUIMessageStreamResponse,
  DefaultChatTransport,
  type LanguageModel,
  streamText,
  toUIMessageStream,
  type UIMessage,
} from 'ai'
import { sendLastMessage } from '../client/send-last-message'

/** The state `useChat` keeps, as plain fields. */
class PlainChatState<M extends UIMessage> implements ChatState<M> {
  status: ChatState<M>['status'] = 'ready'
  error: Error | undefined = undefined
  messages: M[]

  constructor(messages: M[] = []) {
    this.messages = messages
  }

  pushMessage = (message: M) => {
    this.messages = [...this.messages, message]
  }

  popMessage = () => {
    this.messages = this.messages.slice(0, -1)
  }

  replaceMessage = (index: number, message: M) => {
    this.messages = this.messages.map((current, at) => (at === index ? message : current))
  }

  snapshot = <T>(value: T): T => structuredClone(value)
}

/**
 * The chat `useChat` runs in the browser, without React: the AI SDK's own `AbstractChat` and
 * `DefaultChatTransport`, whose requests go to a route handler in the same process as a real
 * `Request` (JSON body) and come back as its `Response` (a UI message stream over SSE).
 */
export class TestChat<M extends UIMessage = UIMessage> extends AbstractChat<M> {
  constructor(
    route: (request: Request) => Promise<Response>,
    init: Omit<ChatInit<M>, 'transport' | 'messages'> & {
      /** The messages the page starts with (`useChat({ messages })`). */
      messages?: M[]
      /** The transport's `prepareSendMessagesRequest` (`sendLastMessage`). */
      prepareSendMessagesRequest?: ConstructorParameters<typeof DefaultChatTransport<M>>[0] extends infer O
        ? O extends { prepareSendMessagesRequest?: infer P }
          ? P
          : never
        : never
    } = {},
  ) {
    const { messages, prepareSendMessagesRequest, ...rest } = init
    super({
      ...rest,
      state: new PlainChatState<M>(messages),
      transport: new DefaultChatTransport<M>({
        api: 'http://localhost/api/chat',
        fetch: async (input, requestInit) => route(new Request(input as string, requestInit)),
        ...(prepareSendMessagesRequest === undefined ? {} : { prepareSendMessagesRequest }),
      }),
    })
  }
}

/**
 * A plain route handler as a Next.js app writes it: the chat's whole history in (its id names the
 * thread), `streamText` on `model`, a UI message stream out. Stream errors are collected in `errors`.
 */
export function plainChatRoute(model: LanguageModel, errors: unknown[]) {
  return async (request: Request) => {
    const { id, messages } = (await request.json()) as { id: string; messages: UIMessage[] }
    const result = streamText({
      model,
      messages: await convertToModelMessages(messages),
      providerOptions: { strata: { threadId: id } },
      onError: ({ error }) => {
        errors.push(error)
      },
    })
    return createUIMessageStreamResponse({ stream: toUIMessageStream({ stream: result.stream }) })
  }
}

/** What a person sees of a message: ids and parts, without the provider's bookkeeping. */
export const seenParts = (messages: readonly UIMessage[]) =>
  messages.map((message) => ({
    id: message.id,
    role: message.role,
    parts: message.parts.map((part) => {
      const {
        providerMetadata: _p,
        callProviderMetadata: _c,
        resultProviderMetadata: _r,
        ...rest
      } = part as Record<string, unknown>
      return Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined))
    }),
  }))

/** A page of the chat app: `useChat` with `sendLastMessage`, starting from the given messages. */
export function chatPage<M extends UIMessage>(
  route: (request: Request) => Promise<Response>,
  id: string,
  messages: M[] = [],
): TestChat<M> {
  return new TestChat<M>(route, {
    id,
    messages: structuredClone(messages),
    prepareSendMessagesRequest: sendLastMessage,
  })
}
