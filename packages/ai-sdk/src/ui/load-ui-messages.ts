import {
  assertThreadId,
  type FilePart,
  type Item,
  invalidOptions,
  type Memory,
  type MessageItem,
  type RequestFailure,
} from '@strata-memory/core'
import type { StrataFailedRequest, StrataUIMessage } from './memory-ui-parts'

type UIPart = StrataUIMessage['parts'][number]
type ToolPart = Extract<UIPart, { type: 'dynamic-tool' }>

/** A stored file's `url`: its URL or data URL as stored, bare base64 as a data URL. */
function fileUrl(part: FilePart): string {
  return /^[a-z][a-z0-9+.-]*:/i.test(part.data) ? part.data : `data:${part.mediaType};base64,${part.data}`
}

/** The failure mark as message metadata. */
function failedMetadata(mark: RequestFailure): StrataFailedRequest {
  return { reason: mark.reason, ts: mark.ts, ...(mark.code === undefined ? {} : { code: mark.code }) }
}

/**
 * Builds the chat's UI messages from the thread's stored log: each user message is one, and the
 * assistant messages and tool results up to the next user message are one assistant message (a
 * `step-start` part before each step), as `useChat` holds a response of several steps. Tool calls
 * are `dynamic-tool` parts with their results. Scope openings, summaries, facts and transitions are
 * memory, not chat: they are left out. Message ids are the stored items' ids.
 */
function toUIMessages(items: readonly Item[], failures: ReadonlyMap<string, RequestFailure>) {
  const messages: StrataUIMessage[] = []
  const tools = new Map<string, ToolPart>()
  let answer: StrataUIMessage | undefined
  for (const item of items) {
    if (item.type !== 'message' || item.scope !== undefined) continue
    if (item.role === 'user') {
      answer = undefined
      const mark = failures.get(item.id)
      messages.push({
        id: item.id,
        role: 'user',
        parts: contentParts(item, tools),
        ...(mark === undefined ? {} : { metadata: { strata: { failed: failedMetadata(mark) } } }),
      })
      continue
    }
    if (item.role !== 'assistant' && item.role !== 'tool') continue
    if (answer === undefined) {
      answer = { id: item.id, role: 'assistant', parts: [] }
      messages.push(answer)
    }
    if (item.role === 'assistant') answer.parts.push({ type: 'step-start' })
    answer.parts.push(...contentParts(item, tools))
  }
  return messages
}

/** The UI parts of one stored message; a tool result completes its call's part instead. */
function contentParts(item: MessageItem, tools: Map<string, ToolPart>): UIPart[] {
  const parts: UIPart[] = []
  for (const part of item.content) {
    switch (part.type) {
      case 'text':
        parts.push({ type: 'text', text: part.text })
        break
      case 'reasoning':
        parts.push({ type: 'reasoning', text: part.text })
        break
      case 'file':
        parts.push({
          type: 'file',
          mediaType: part.mediaType,
          url: fileUrl(part),
          ...(part.filename === undefined ? {} : { filename: part.filename }),
        })
        break
      case 'tool-call': {
        const tool: ToolPart = {
          type: 'dynamic-tool',
          toolName: part.toolName,
          toolCallId: part.toolCallId,
          state: 'input-available',
          input: part.input,
          ...(part.providerExecuted === true ? { providerExecuted: true } : {}),
        }
        tools.set(part.toolCallId, tool)
        parts.push(tool)
        break
      }
      case 'tool-result': {
        const tool = tools.get(part.toolCallId)
        if (tool === undefined) break
        // The call's part becomes its answered form, in place.
        const call = {
          type: 'dynamic-tool' as const,
          toolName: tool.toolName,
          toolCallId: tool.toolCallId,
          input: tool.input,
          ...(tool.providerExecuted === true ? { providerExecuted: true } : {}),
        }
        const answered: ToolPart =
          part.isError === true
            ? {
                ...call,
                state: 'output-error',
                errorText: typeof part.output === 'string' ? part.output : JSON.stringify(part.output),
              }
            : { ...call, state: 'output-available', output: part.output }
        Object.assign(tool, answered)
        break
      }
    }
  }
  return parts
}

/**
 * The thread's chat as `useChat` messages, for a page that reloads a conversation (`useChat({
 * messages })`, the AI SDK's message-persistence guide). A user message whose model call failed after
 * it was stored (`thread.markFailed`, which the middleware calls on a provider failure) carries
 * `metadata.strata.failed` (`{ reason, code?, ts }`) until an answer is stored after it, so the page
 * can offer to send it again: a retry in any `history` mode stores it once. Reads the active log, so
 * messages a compaction archived are not in it.
 *
 * @example
 * const messages = await loadUIMessages(memory, chatId)
 * const failed = messages.at(-1)?.metadata?.strata?.failed // show "Retry"
 */
export async function loadUIMessages(memory: Memory, threadId: string): Promise<StrataUIMessage[]> {
  if (typeof memory?.thread !== 'function') {
    invalidOptions('loadUIMessages() needs the memory from createMemory() and a thread id.')
  }
  assertThreadId(threadId)
  const thread = await memory.thread(threadId)
  const [items, failures] = await Promise.all([thread.items(), thread.failures()])
  return toUIMessages(items, new Map(failures.map((mark) => [mark.itemId, mark])))
}
