import type { StrataUIMessage } from '@strata-memory/ai-sdk'

/** What `useChat` posts: the chat's id (the thread id) and its messages. */
export interface ChatBody {
  id: string
  messages: StrataUIMessage[]
}

const ROLES = new Set(['user', 'assistant', 'system'])

/**
 * Reads the body `useChat` sends, or says in words what is wrong with it. The thread id itself is
 * checked by Strata (its message reaches the page as a 400).
 */
export function readChatBody(body: unknown): ChatBody | { error: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { error: 'The request body must be a JSON object: { id, messages }, as useChat sends it.' }
  }
  const { id, messages } = body as { id?: unknown; messages?: unknown }
  if (typeof id !== 'string') return { error: 'The request body needs "id": the chat id, a string.' }
  if (!Array.isArray(messages) || messages.length === 0) {
    return { error: 'The request body needs "messages": a non-empty array of UI messages.' }
  }
  for (const [index, message] of messages.entries()) {
    const { role, parts } = (message ?? {}) as { role?: unknown; parts?: unknown }
    if (typeof role !== 'string' || !ROLES.has(role) || !Array.isArray(parts)) {
      return {
        error: `messages[${index}] is not a UI message: it needs "role" (user, assistant or system) and "parts" (an array).`,
      }
    }
  }
  return { id, messages: messages as StrataUIMessage[] }
}
