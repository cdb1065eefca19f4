import type { ThreadOptions } from '../content'
import { APP_THREAD_ID_STATE_KEY, appThreadIdOf, toStoreThreadId } from '../items/app-thread-id'
import type { StrataStore } from '../stores/store'
import type { Memory } from './create-memory'
import type { Thread } from './thread'

/** Per memory, the mapped threads whose app id is known to be recorded. */
const recorded = new WeakMap<object, Set<string>>()

/**
 * Opens the thread of an app's thread id, whatever string it is (see `toStoreThreadId`): an id valid
 * as it is opens that thread; any other id opens its mapped thread, whose state keeps the app's id
 * (under `appThreadId`) so that `strata threads` shows it and a hashed id can be read back.
 * `options` are `memory.thread()`'s: a `resource` binds the thread, `content` shares its content.
 *
 * @example
 * const thread = await openAppThread(memory, 'user:42/chat:7', { resource: 'user-42' })
 * thread.id // '_.user_3A42_2Fchat_3A7'
 */
export async function openAppThread<L extends string>(
  memory: Memory<L>,
  appThreadId: string,
  options?: ThreadOptions,
): Promise<Thread<L>> {
  const storeThreadId = await toStoreThreadId(appThreadId)
  const thread = await memory.thread(storeThreadId, options)
  if (storeThreadId === appThreadId) return thread
  const known = recorded.get(memory) ?? new Set<string>()
  recorded.set(memory, known)
  if (!known.has(storeThreadId)) {
    const state = (await memory.store.getState(storeThreadId)) ?? {}
    if (state[APP_THREAD_ID_STATE_KEY] !== appThreadId)
      await memory.store.setState(storeThreadId, { ...state, [APP_THREAD_ID_STATE_KEY]: appThreadId })
    known.add(storeThreadId)
  }
  return thread
}

/**
 * The app's thread id of a store thread: read back from a mapped id, from the thread's state for a
 * hashed one, the id itself otherwise.
 */
export async function readAppThreadId(store: StrataStore, storeThreadId: string): Promise<string> {
  const fromId = appThreadIdOf(storeThreadId)
  if (fromId !== undefined) return fromId
  const kept = (await store.getState(storeThreadId))?.[APP_THREAD_ID_STATE_KEY]
  return typeof kept === 'string' ? kept : storeThreadId
}
