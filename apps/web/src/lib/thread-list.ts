import type { Memory } from '@strata-memory/core'

/** A thread as the thread list shows it. */
export interface ThreadSummary {
  id: string
  /** The first user message, shortened; the id when the thread has none. */
  title: string
  /** Epoch ms of the thread's last active item. */
  updatedAt: number
}

const clip = (text: string, max = 60) => (text.length > max ? `${text.slice(0, max - 1)}…` : text)

/**
 * The app's threads (`memory.listThreads()`), the most recently updated first, at most `limit` of
 * them, each titled by its first user message.
 */
export async function listChats(memory: Memory, limit = 40): Promise<ThreadSummary[]> {
  const ids = await memory.listThreads()
  const summaries = await Promise.all(
    ids.map(async (id): Promise<ThreadSummary> => {
      const items = await (await memory.thread(id)).items()
      const first = items.find((item) => item.type === 'message' && item.role === 'user' && !item.scope)
      const text =
        first?.type === 'message'
          ? first.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join(' ')
          : ''
      return { id, title: clip(text.trim() || id), updatedAt: items.at(-1)?.ts ?? 0 }
    }),
  )
  return summaries.sort((a, b) => b.updatedAt - a.updatedAt).slice(0, limit)
}
