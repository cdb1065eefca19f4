import type { BaseMessage } from '@langchain/core/messages'
import type { MessageRole } from '@strata-memory/core'
import { fromLangChainMessage, messageType } from '../messages/from-langchain'

/**
 * A LangChain message with the role core's matching reads on every message it compares (LangChain's
 * messages have no `role`); the message itself is mapped only when compared or stored.
 */
export interface RoledMessage {
  role: MessageRole
  message: BaseMessage
}

const ROLES = { human: 'user', ai: 'assistant', system: 'system', tool: 'tool' } as const

/** The request's system messages (sent as they are, never stored) and its conversation, roled. */
export function splitRequestMessages(messages: readonly BaseMessage[]) {
  const system: BaseMessage[] = []
  const conversation: RoledMessage[] = []
  for (const message of messages) {
    const role = ROLES[messageType(message)]
    if (role === 'system') system.push(message)
    else conversation.push({ role, message })
  }
  return { system, conversation }
}

/** Maps a roled message for `followHistory`. */
export const toCoreMessage = (roled: RoledMessage) => fromLangChainMessage(roled.message)
