import { invalidOptions, type Memory, toStoreThreadId } from '@strata-memory/core'

/** Options of {@link deleteAgentThread}. */
export interface DeleteAgentThreadOptions {
  /** The memory the agent's `strataMiddleware` writes. */
  memory: Memory
  /** The agent's checkpointer (`MemorySaver`, a Postgres or Redis saver): anything with `deleteThread`. */
  checkpointer?: { deleteThread(threadId: string): Promise<void> }
  /** The app's thread id, as the agent was invoked with (`configurable.thread_id`). */
  threadId: string
}

/**
 * Deletes a conversation everywhere a LangChain app keeps it: its checkpoints (`checkpointer.deleteThread`)
 * and its Strata thread (log, archive, content; the app's id mapped as `strataMiddleware` maps it).
 *
 * @example
 * await deleteAgentThread({ memory, checkpointer, threadId: 'user:42/chat:7' })
 */
export async function deleteAgentThread({
  memory,
  checkpointer,
  threadId,
}: DeleteAgentThreadOptions): Promise<void> {
  if (typeof memory?.deleteThread !== 'function')
    invalidOptions('deleteAgentThread() needs { memory }: pass the memory from createMemory().')
  if (checkpointer !== undefined && typeof checkpointer.deleteThread !== 'function')
    invalidOptions('deleteAgentThread(): checkpointer must have deleteThread() (every LangGraph saver does).')
  const storeThreadId = await toStoreThreadId(threadId)
  await checkpointer?.deleteThread(threadId)
  await memory.deleteThread(storeThreadId)
}
