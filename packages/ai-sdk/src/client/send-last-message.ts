import type { UIMessage } from 'ai'

/** The body a chat route reads with `openChatRequest`: the chat's id and its newest message only. */
export interface StrataChatRequestBody<M extends UIMessage = UIMessage> {
  /** The chat's id: the thread's. */
  id: string
  /** The message sent: the new user message; on a regenerate, the message before the replaced answer. */
  message?: M
  /** `submit-message` (send, or edit a message) or `regenerate-message`. */
  trigger: 'submit-message' | 'regenerate-message'
  /** The message regenerated or edited, as `useChat` names it. */
  messageId?: string
  /** The thread's last seq the page shows (`metadata.strata.seq`): what is new since is sent to it. */
  lastSeq?: number
}

/** The newest `metadata.strata.seq` the messages carry. */
function lastSeqOf(messages: readonly UIMessage[]): number | undefined {
  for (let index = messages.length - 1; index >= 0; index--) {
    const seq = (messages[index]!.metadata as { strata?: { seq?: unknown } } | undefined)?.strata?.seq
    if (typeof seq === 'number') return seq
  }
  return undefined
}

/**
 * `prepareSendMessagesRequest` of `DefaultChatTransport`: sends only the chat's newest message (the
 * server holds the rest in the thread), with the request's `trigger` and `messageId`, so the route
 * tells a regenerate or an edit from a new message, and the last seq the page shows. Browser-safe.
 *
 * @example
 * const { messages } = useChat({
 *   id, messages: initialMessages,
 *   transport: new DefaultChatTransport({ api: '/api/chat', prepareSendMessagesRequest: sendLastMessage }),
 * })
 */
export function sendLastMessage<M extends UIMessage>(options: {
  id: string
  messages: M[]
  trigger: 'submit-message' | 'regenerate-message'
  messageId: string | undefined
  body?: object
}): { body: StrataChatRequestBody<M> & Record<string, unknown> } {
  const { id, messages, trigger, messageId, body } = options
  const lastSeq = lastSeqOf(messages)
  const message = messages.at(-1)
  return {
    body: {
      ...(body as Record<string, unknown> | undefined),
      id,
      trigger,
      ...(message === undefined ? {} : { message }),
      ...(messageId === undefined ? {} : { messageId }),
      ...(lastSeq === undefined ? {} : { lastSeq }),
    },
  }
}
