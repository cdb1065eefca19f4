import type { LanguageModelV4Message } from '@ai-sdk/provider'
import type { JsonObject, MessageInput } from '@strata-memory/core'
import { TOOL_APPROVALS, UI_MESSAGE_ID } from '../messages/ai-sdk-meta'
import { fromProviderMessage } from '../messages/provider-prompt'
import type { StrataCallOptions, ToolApprovalRecord } from './call-options'

type NonSystemMessage = Exclude<LanguageModelV4Message, { role: 'system' }>

/** The message with the UI message id it belongs to in its `meta`, when there is one. */
export function withUIMessageId<M extends MessageInput>(message: M, id: string | undefined): M {
  if (id === undefined) return message
  return { ...message, meta: { ...message.meta, [UI_MESSAGE_ID]: id } }
}

/** A tool message with the page's answered approvals of its calls in its `meta`, when it has any. */
function withApprovals(
  input: MessageInput,
  message: NonSystemMessage,
  call: StrataCallOptions,
): MessageInput {
  if (call.approvals === undefined || message.role !== 'tool') return input
  const own: Record<string, ToolApprovalRecord> = {}
  for (const part of message.content) {
    const approval = part.type === 'tool-result' ? call.approvals[part.toolCallId] : undefined
    if (approval !== undefined) own[(part as { toolCallId: string }).toolCallId] = approval
  }
  if (Object.keys(own).length === 0) return input
  return { ...input, meta: { ...input.meta, [TOOL_APPROVALS]: own as unknown as JsonObject } }
}

/**
 * Maps the prompt's messages for `followHistory`, the UI ids of the call added: the user message the
 * call sends last gets `userMessageId`, the tool results `messageId` (they belong to the response).
 * Ids are metadata: matching stored messages ignores them, so only new messages keep them.
 */
export function toMessageWithIds(conversation: readonly NonSystemMessage[], call: StrataCallOptions) {
  if (call.messageId === undefined && call.userMessageId === undefined && call.approvals === undefined)
    return fromProviderMessage
  let lastUser: NonSystemMessage | undefined
  for (let index = conversation.length - 1; index >= 0; index--) {
    if (conversation[index]!.role === 'user') {
      lastUser = conversation[index]
      break
    }
  }
  return (message: NonSystemMessage): MessageInput => {
    const input = fromProviderMessage(message)
    if (message === lastUser) return withUIMessageId(input, call.userMessageId)
    if (message.role === 'tool') return withApprovals(withUIMessageId(input, call.messageId), message, call)
    return input
  }
}
