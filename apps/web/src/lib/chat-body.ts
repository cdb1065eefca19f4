import type { AppUIMessage } from './app-ui-message'

/**
 * What the page posts (`prepareSendMessagesRequest`): the chat's id (the thread id), its last message
 * only, what to do with it, and the last point of the thread the page has seen. The thread is the
 * chat's source of truth: the server never needs the rest of the page's copy.
 */
export interface ChatBody {
  id: string
  /** The page's last message: the new user message, or the one an answer is regenerated for. */
  message: AppUIMessage
  /** `submit-message`: answer `message`; `regenerate-message`: answer again in place of `messageId`. */
  trigger: 'submit-message' | 'regenerate-message'
  /** The answer to regenerate (regenerate-message). */
  messageId?: string
  /** The highest seq of the thread the page has seen: transitions after it are shown in the answer. */
  lastSeq?: number
}

const ROLES = new Set(['user', 'assistant', 'system'])
const TRIGGERS = new Set(['submit-message', 'regenerate-message'])

function readMessage(message: unknown, name: string): AppUIMessage | string {
  const { role, parts } = (message ?? {}) as { role?: unknown; parts?: unknown }
  if (typeof role !== 'string' || !ROLES.has(role) || !Array.isArray(parts)) {
    return `${name} is not a UI message: it needs "role" (user, assistant or system) and "parts" (an array).`
  }
  return message as AppUIMessage
}

/**
 * Reads the body the page sends, or says in words what is wrong with it. A client that sends the
 * whole chat (`messages`, as `useChat` does by default) is read as its last message: whatever the
 * copy holds, the thread decides what came before. The thread id itself is checked by Strata.
 */
export function readChatBody(body: unknown): ChatBody | { error: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { error: 'The request body must be a JSON object: { id, message, trigger }.' }
  }
  const {
    id,
    message,
    messages,
    trigger = 'submit-message',
    messageId,
    lastSeq,
  } = body as Record<string, unknown>
  if (typeof id !== 'string') return { error: 'The request body needs "id": the chat id, a string.' }
  if (typeof trigger !== 'string' || !TRIGGERS.has(trigger)) {
    return { error: '"trigger" must be "submit-message" or "regenerate-message".' }
  }
  let last: unknown = message
  let name = 'message'
  if (last === undefined) {
    if (!Array.isArray(messages) || messages.length === 0) {
      return { error: 'The request body needs "message": the chat\'s last UI message.' }
    }
    last = messages.at(-1)
    name = `messages[${messages.length - 1}]`
  }
  const read = readMessage(last, name)
  if (typeof read === 'string') return { error: read }
  if (trigger === 'submit-message' && read.role !== 'user') {
    return { error: `${name} must be the user's message to answer (its role is "${read.role}").` }
  }
  if (trigger === 'regenerate-message' && typeof messageId !== 'string') {
    return { error: 'A regenerate-message request needs "messageId": the answer to replace.' }
  }
  if (lastSeq !== undefined && (typeof lastSeq !== 'number' || !Number.isInteger(lastSeq) || lastSeq < 0)) {
    return { error: '"lastSeq" must be a whole number ≥ 0: the highest thread seq the page has seen.' }
  }
  return {
    id,
    message: read,
    trigger: trigger as ChatBody['trigger'],
    ...(typeof messageId === 'string' ? { messageId } : {}),
    ...(typeof lastSeq === 'number' ? { lastSeq } : {}),
  }
}
