import {
  appThreadIdOf,
  isHashedThreadId,
  type Memory,
  openAppThread,
  type Thread,
  toStoreThreadId,
} from '@strata-memory/core'
import { assertMappableThreadId } from '@strata-memory/core/adapter-kit'

/**
 * Checks a chat id the app gives (any non-empty string: `user:42/chat:7`, a 300-character id), else
 * `STRATA_INVALID_THREAD_ID`. An id valid as a store thread id is used as it is; any other is mapped
 * by core's `toStoreThreadId`.
 */
export function assertChatId(chatId: unknown): asserts chatId is string {
  assertMappableThreadId(chatId)
}

/**
 * Opens the thread of the app's chat id for writing (core's `openAppThread`: a mapped thread keeps the
 * app's id in its state), bound to `resource` when given.
 */
export function openChatThread<L extends string>(
  memory: Memory<L>,
  chatId: string,
  resource?: string,
): Promise<Thread<L>> {
  return openAppThread(memory, chatId, resource === undefined ? undefined : { resource })
}

/** Opens the thread of the app's chat id for reading: nothing is written. */
export async function readChatThread<L extends string>(
  memory: Memory<L>,
  chatId: string,
): Promise<Thread<L>> {
  return memory.thread(await toStoreThreadId(chatId))
}

/**
 * Whether a store thread id is the thread of the app's chat id, as far as the ids tell without hashing:
 * true or false, or undefined for a hashed store id (compare with `toStoreThreadId(chatId)`).
 */
export function isThreadOfChat(storeThreadId: string, chatId: string): boolean | undefined {
  const appId = appThreadIdOf(storeThreadId)
  if (appId !== undefined) return appId === chatId
  return undefined
}

/**
 * A filter of memory events by thread for the app's chat id, usable at once: events of a store id the
 * ids tell apart are taken or dropped as they come; an event of a hashed id that arrives before the
 * chat id's own store id is known waits for it, so none is lost nor reordered. `run` gets the
 * events' work in order.
 */
export function chatEventFilter(chatId: string) {
  let storeId: string | undefined
  let queued: { storeThreadId: string; run: () => void }[] | undefined = []
  void toStoreThreadId(chatId).then((id) => {
    storeId = id
    const waiting = queued ?? []
    queued = undefined
    for (const event of waiting) if (event.storeThreadId === id) event.run()
  })
  return {
    /** Runs `run` when the event's thread is the chat's (now or once its store id is known). */
    forChat(storeThreadId: string, run: () => void): void {
      if (storeId !== undefined) {
        if (storeThreadId === storeId) run()
        return
      }
      const known = isThreadOfChat(storeThreadId, chatId)
      if (known === true) run()
      else if (known === undefined && isHashedThreadId(storeThreadId)) queued?.push({ storeThreadId, run })
    },
    /** Drops what still waits. */
    stop(): void {
      queued = undefined
    },
  }
}
