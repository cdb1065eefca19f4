import type { AIMessage } from '@langchain/core/messages'
import type {
  JsonObject,
  MessageItem,
  MessagePart,
  StrataStore,
  Thread,
  ToolCallPart,
} from '@strata-memory/core'
import { messageFingerprint, readConversationTail } from '@strata-memory/core/adapter-kit'
import { fromLangChainMessage } from '../messages/from-langchain'
import type { RoledMessage } from './conversation'

/** A tool call as the thread stored it before a decision changed it. */
export interface OriginalToolCall {
  toolCallId: string
  toolName: string
  input: ToolCallPart['input']
}

/** What the adapter keeps on the first part of an answer whose tool calls were edited after the model call. */
export interface EditedCallsMeta {
  /** The stored answer's tool calls as the model made them (the answer itself moved to the archive). */
  originalCalls: OriginalToolCall[]
}

const callsOf = (item: MessageItem) =>
  item.content.filter((part): part is ToolCallPart => part.type === 'tool-call')

/** The thread's last conversation message when it is an answer whose tool calls have no result yet. */
function pendingAnswer(tail: readonly MessageItem[]): MessageItem | undefined {
  const last = tail.findLast((item) => item.role !== 'system')
  return last?.role === 'assistant' && callsOf(last).length > 0 ? last : undefined
}

/**
 * An answer the thread stored with tool calls that another middleware changed after the model call
 * (`humanInTheLoopMiddleware` applies an edit, and drops the other calls of a step with a rejected
 * one, on the answer in the graph's state): the stored answer moves to the archive and the changed one
 * takes its place, the original calls kept in its first part's `meta.langchain.editedCalls`. Then the
 * history the agent sends continues the thread. Only an answer whose calls have no result yet is
 * replaced, so nothing that was answered is rewritten.
 */
export async function supersedeEditedCalls(
  store: StrataStore,
  thread: Thread,
  conversation: readonly RoledMessage[],
): Promise<void> {
  // Cheap test first: the request must hold an answer with tool calls after its last user message.
  const lastUser = conversation.findLastIndex((message) => message.role === 'user')
  const answers = conversation.slice(lastUser + 1).filter((message) => message.role === 'assistant')
  if (!answers.some((message) => ((message.messages[0] as AIMessage).tool_calls?.length ?? 0) > 0)) return
  const tail = (await readConversationTail(store, thread.id, { window: 2 })).filter(
    (item): item is MessageItem => item.type === 'message',
  )
  const stored = pendingAnswer(tail)
  if (stored === undefined) return
  const ids = new Set(callsOf(stored).map((call) => call.toolCallId))
  const incoming = answers.find((message) =>
    ((message.messages[0] as AIMessage).tool_calls ?? []).some((call) => ids.has(String(call.id))),
  )
  if (incoming === undefined) return
  const edited = fromLangChainMessage(incoming.messages[0]!)
  if (messageFingerprint(edited) === messageFingerprint(stored)) return
  // The text must be the model's own: a different answer is a regenerated one, which the divergence
  // handling of the history rewinds as any other.
  if (textOf(edited.content) !== textOf(stored.content)) return
  const { lastSeq } = await store.head(thread.id)
  await thread.rewind({ afterSeq: stored.seq - 1, expectedLastSeq: lastSeq })
  const originalCalls: OriginalToolCall[] = callsOf(stored).map(({ toolCallId, toolName, input }) => ({
    toolCallId,
    toolName,
    input,
  }))
  const [first, ...rest] = edited.content as [MessagePart, ...MessagePart[]]
  const langchain = (first.meta?.langchain as JsonObject | undefined) ?? {}
  const editedCalls: EditedCallsMeta = { originalCalls }
  const meta: JsonObject = {
    ...first.meta,
    langchain: { ...langchain, editedCalls: editedCalls as unknown as JsonObject },
  }
  await thread.append(
    { role: 'assistant', content: [{ ...first, meta } as MessagePart, ...rest] },
    { format: 'core' },
  )
}

const textOf = (parts: readonly MessagePart[]) =>
  parts.map((part) => (part.type === 'text' ? part.text : '')).join('')
