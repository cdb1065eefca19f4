import type { BaseMessage } from '@langchain/core/messages'
import type { MessagePart, MessageRole } from '@strata-memory/core'
import { type CoreMessage, fromLangChainMessage, messageType } from '../messages/from-langchain'
import { isShownMessage } from './compact-state'

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

/**
 * Whether another middleware rewrote the message in the graph's state or the request: the summary
 * `summarizationMiddleware` puts in place of the messages it summarized (`lc_source: 'summarization'`),
 * a tool result or call `contextEditingMiddleware` cleared (`response_metadata.context_editing`), or
 * a message of the thread's context this middleware put in the state (`state: 'compact'`).
 */
export function isRewritten(message: BaseMessage): boolean {
  if (isShownMessage(message)) return true
  if ((message.additional_kwargs as { lc_source?: unknown } | undefined)?.lc_source === 'summarization')
    return true
  const editing = (message.response_metadata as { context_editing?: Record<string, unknown> } | undefined)
    ?.context_editing
  return editing !== undefined && (editing.cleared === true || Array.isArray(editing.cleared_tool_inputs))
}

/**
 * The request's system messages (sent as they are, never stored) and its conversation, roled. A
 * conversation another middleware rewrote outside this one (see {@link isRewritten}) is followed from
 * after its last rewritten message: the messages before it are the thread's, rewritten (`rewritten`
 * is then true), and only the kept tail and what is new are compared with the thread.
 */
export function splitRequestMessages(messages: readonly BaseMessage[]) {
  const system: BaseMessage[] = []
  const conversation: RoledMessage[] = []
  const lastRewritten = messages.findLastIndex(isRewritten)
  for (const [index, message] of messages.entries()) {
    if (index <= lastRewritten && messageType(message) !== 'system') continue
    const role = ROLES[messageType(message)]
    if (role === 'system') {
      system.push(message)
      continue
    }
    const last = conversation.at(-1)
    if (role === 'tool' && last?.role === 'tool') last.messages.push(message)
    else conversation.push({ role, messages: [message] })
  }
  return { system, conversation, rewritten: lastRewritten >= 0 }
}

/** Maps a roled message for `followHistory`: a run of tool messages becomes one tool message. */
export function toCoreMessage(roled: RoledMessage): CoreMessage {
  if (roled.messages.length === 1) return fromLangChainMessage(roled.messages[0]!)
  const content: MessagePart[] = roled.messages.flatMap((message) => fromLangChainMessage(message).content)
  return { role: 'tool', content }
}
