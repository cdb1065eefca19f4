import type { MessageList } from '@mastra/core/agent/message-list'
import type { JsonObject, MessageInput } from '@strata-memory/core'
import type { RunState } from './run-state'

/**
 * A run's message as stored with the id Mastra gave it (`meta.mastra.id`, as `saveMessages` keeps
 * it): Mastra saves a run's messages again itself at times (when a tool suspends or awaits approval,
 * and when another process resumes the run), and `saveMessages` finds them stored by that id.
 */
export function withMastraId(message: MessageInput, id: string | undefined): MessageInput {
  if (id === undefined) return message
  const mastra = (message.meta?.mastra ?? {}) as JsonObject
  return { ...message, meta: { ...message.meta, mastra: { ...mastra, id } } }
}

/** The ids of the run's user messages (its request), in order. */
export const inputIds = (messageList: MessageList | undefined): string[] =>
  messageList?.get.input
    .db()
    .filter((message) => message.role === 'user')
    .map((message) => message.id) ?? []

/**
 * The id of the answer Mastra keeps for the step just ended (its newest assistant message), the first
 * time the run stores a step of it: Mastra gathers a run's steps into one message, which is stored as
 * one item per step.
 */
export function responseId(run: RunState, messageList: MessageList | undefined): string | undefined {
  const id = messageList?.get.response.db().findLast((message) => message.role === 'assistant')?.id
  if (id === undefined || run.answerIds?.has(id)) return undefined
  run.answerIds ??= new Set()
  run.answerIds.add(id)
  return id
}
