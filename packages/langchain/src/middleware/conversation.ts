import type { BaseMessage } from '@langchain/core/messages'
import type { MessagePart, MessageRole } from '@strata-memory/core'
import { type CoreMessage, fromLangChainMessage, messageType } from '../messages/from-langchain'

/**
 * One message of the conversation as core's matching reads it (LangChain's messages have no `role`):
 * a LangChain message, or the run of `ToolMessage`s that answer one step's calls, which core keeps as
 * one tool message (each result keeps its own message's fields). Mapped only when compared or stored.
 */
export interface RoledMessage {
  role: MessageRole
  messages: BaseMessage[]
}

const ROLES = { human: 'user', ai: 'assistant', system: 'system', tool: 'tool' } as const

/** The request's system messages (sent as they are, never stored) and its conversation, roled. */
export function splitRequestMessages(messages: readonly BaseMessage[]) {
  const system: BaseMessage[] = []
  const conversation: RoledMessage[] = []
  for (const message of messages) {
    const role = ROLES[messageType(message)]
    if (role === 'system') {
      system.push(message)
      continue
    }
    const last = conversation.at(-1)
    if (role === 'tool' && last?.role === 'tool') last.messages.push(message)
    else conversation.push({ role, messages: [message] })
  }
  return { system, conversation }
}

/** Maps a roled message for `followHistory`: a run of tool messages becomes one tool message. */
export function toCoreMessage(roled: RoledMessage): CoreMessage {
  if (roled.messages.length === 1) return fromLangChainMessage(roled.messages[0]!)
  const content: MessagePart[] = roled.messages.flatMap((message) => fromLangChainMessage(message).content)
  return { role: 'tool', content }
}
