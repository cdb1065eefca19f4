import { StrataError } from '../errors'

const THREAD_ID = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}$/

/** True for 1-128 characters of `A-Z a-z 0-9 _ . -` not starting with `.`. */
export function isValidThreadId(threadId: unknown): threadId is string {
  return typeof threadId === 'string' && THREAD_ID.test(threadId)
}

/**
 * Throws `STRATA_INVALID_THREAD_ID` unless `threadId` is valid. Ids are never escaped or normalised:
 * the same id names the same files and keys in every store.
 */
export function assertThreadId(threadId: unknown): asserts threadId is string {
  if (isValidThreadId(threadId)) return
  const shown = typeof threadId === 'string' ? JSON.stringify(threadId.slice(0, 140)) : typeof threadId
  throw new StrataError({
    code: 'STRATA_INVALID_THREAD_ID',
    message: `Invalid thread id ${shown}: use 1-128 characters of A-Z a-z 0-9 _ . - not starting with '.', for example 'user-42.chat-7'. An id of your app's own form (a chat id such as 'user:42/chat:7') opens with openAppThread(memory, id), which maps it as the adapters do.`,
    details: { threadId },
  })
}
