/**
 * The request body as `openChatRequest` reads it. The page sends its last message only
 * (`sendLastMessage`); a client that sends its whole copy (`messages`, as `useChat` does by default, or
 * a stale tab) is read as its last message: whatever the copy holds, the thread decides what came
 * before, and a copy behind the thread is refused by `openChatRequest` rather than rewinding it.
 */
export function lastMessageBody(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body
  const { messages, ...rest } = body as Record<string, unknown>
  if (rest.message !== undefined || !Array.isArray(messages)) return body
  return messages.length === 0 ? rest : { ...rest, message: messages.at(-1) }
}
