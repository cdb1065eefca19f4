import { fromModelMessage, type Thread } from '@strata-memory/core'
import type { ModelMessage } from 'ai'
import { withUIMessageId } from '../middleware/message-ids'

/** Options of {@link storeFinalToolResults}. */
export interface StoreFinalToolResultsOptions {
  /** The request's thread (`openChatRequest`'s `thread`: it holds the request's hold). */
  thread: Thread
  /** The finished response: `await result.response` of `streamText` or `generateText`. */
  response: { messages: readonly ModelMessage[] }
  /** The id of the response's UI message (`openChatRequest`'s `messageId`), kept with the results. */
  messageId?: string
}

/**
 * Stores the tool results of an answer that stopped on a tool step: `stopWhen` was reached after the
 * tools ran, so no further model call sends their results, which is where the middleware stores a
 * step's results. Without this, a reload shows the calls without their output and the next context
 * leaves them out. Call it when the stream has been read to its end, before the hold is released.
 * Results already stored, and results of calls the thread does not hold, are left alone; returns how
 * many were stored.
 *
 * @example
 * const chunks = toUIMessageStream({ stream: result.stream, … }).getReader()
 * for (let read = await chunks.read(); !read.done; read = await chunks.read()) writer.write(read.value)
 * await storeFinalToolResults({ thread, response: await result.response, messageId })
 */
export async function storeFinalToolResults({
  thread,
  response,
  messageId,
}: StoreFinalToolResultsOptions): Promise<number> {
  const trailing: ModelMessage[] = []
  for (let index = response.messages.length - 1; index >= 0; index--) {
    const message = response.messages[index]!
    if (message.role !== 'tool') break
    trailing.unshift(message)
  }
  const results = trailing.flatMap((message) =>
    Array.isArray(message.content) ? message.content.filter((part) => part.type === 'tool-result') : [],
  )
  if (results.length === 0) return 0
  const answered = new Set<string>()
  const called = new Set<string>()
  // The calls of the final step were made in the request's own turn, and any result already stored
  // for them follows them: the last turn is enough (a long thread's items are never all read).
  const { items } = await thread.transcript({ archived: false, turns: 1, restore: false })
  for (const item of items) {
    if (item.type !== 'message') continue
    for (const part of item.content) {
      if (part.type === 'tool-result') answered.add(part.toolCallId)
      else if (part.type === 'tool-call') called.add(part.toolCallId)
    }
  }
  const fresh = results.filter((part) => called.has(part.toolCallId) && !answered.has(part.toolCallId))
  if (fresh.length === 0) return 0
  const message = fromModelMessage({ role: 'tool', content: fresh })
  await thread.append(withUIMessageId(message, messageId), { format: 'core' })
  return fresh.length
}
