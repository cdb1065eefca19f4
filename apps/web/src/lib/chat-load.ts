import { loadUIMessages } from '@strata-memory/ai-sdk'
import type { Memory } from '@strata-memory/core'
import { agentTools } from './agent-tools'
import type { AppTools, AppUIMessage } from './app-ui-message'
import { isRunning, runStored } from './chat-runs'
import type { SharedRuns } from './shared-runs'

/** A chat as the page opens it: read from the thread, the one source of truth. */
export interface LoadedChat {
  threadId: string
  messages: AppUIMessage[]
  /** The thread's last seq when it was read: the page has seen everything up to it. */
  lastSeq: number
  /** A response is streaming now: the page resumes it (`useChat({ resume: true })`). */
  running: boolean
  /** The thread holds turns before the first message: the page offers to show them. */
  hasEarlier: boolean
}

/** Turns a page shows at first, and loads at a time when asked for earlier ones. */
export const TURNS_PER_PAGE = 30

/**
 * At most `limit` turns of the thread's chat ending before the message `before` (the newest without
 * it), and whether there are earlier ones: one turn more is read to know.
 */
export async function loadTurns(
  memory: Memory,
  threadId: string,
  { limit = TURNS_PER_PAGE, before }: { limit?: number; before?: string } = {},
): Promise<{ messages: AppUIMessage[]; hasEarlier: boolean }> {
  const messages = await loadUIMessages<AppTools>(memory, threadId, {
    // The app's tools: a call awaiting approval loads with its Approve / Deny.
    tools: agentTools(),
    limit: limit + 1,
    ...(before === undefined ? {} : { before }),
  })
  const starts = messages.flatMap((message, index) => (message.role === 'user' ? [index] : []))
  if (starts.length <= limit) return { messages, hasEarlier: false }
  return { messages: messages.slice(starts[starts.length - limit]), hasEarlier: true }
}

/** The messages before the answer a running response is writing (the page replays that answer whole). */
function beforeAnswerInProgress(messages: AppUIMessage[]): AppUIMessage[] {
  const lastUser = messages.findLastIndex((message) => message.role === 'user')
  return lastUser === -1 ? messages : messages.slice(0, lastUser + 1)
}

/**
 * The chat of a thread for the page: its newest `limit` turns (`loadUIMessages`: the ids the stream
 * gave them, turns a compaction archived included, as they were shown), the point it was read at,
 * and whether a response is streaming (in this process, or with shared `runs` in any). A running
 * response's partial answer is left out: the page replays it from
 * its first chunk, so it is shown once and ends as the server finished it.
 */
export async function loadChat(
  memory: Memory,
  threadId: string,
  { limit = TURNS_PER_PAGE, runs }: { limit?: number; runs?: SharedRuns } = {},
): Promise<LoadedChat> {
  await runStored(threadId)
  // Running here, or on another process (shared runs): the page resumes it either way.
  const running = isRunning(threadId) || ((await runs?.running(threadId)) ?? false)
  const { messages, hasEarlier } = await loadTurns(memory, threadId, { limit })
  const { lastSeq } = await memory.store.head(threadId)
  return {
    threadId,
    messages: running ? beforeAnswerInProgress(messages) : messages,
    lastSeq,
    running,
    hasEarlier,
  }
}
