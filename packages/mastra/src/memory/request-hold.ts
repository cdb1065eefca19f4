import { ErrorCategory, ErrorDomain, MastraError } from '@mastra/core/error'
import { StrataError, type Thread, type ThreadHold } from '@strata-memory/core'

/** The `id` of the `MastraError` that refuses a request whose thread another request holds. */
export const THREAD_BUSY_ERROR_ID = 'STRATA_THREAD_BUSY'

/**
 * A request's hold on its thread (`thread.hold()`), or undefined when the store has no lease (a store
 * of contract v1: requests go on without one, as before). Another request's hold is refused as a
 * `MastraError` with id {@link THREAD_BUSY_ERROR_ID} whose `cause` is the `StrataError`
 * (`STRATA_THREAD_BUSY`); nothing is stored.
 */
export async function holdThread(thread: Thread, ttlMs: number | undefined): Promise<ThreadHold | undefined> {
  try {
    return await thread.hold(ttlMs === undefined ? {} : { ttlMs })
  } catch (error) {
    if (StrataError.isInstance(error, 'STRATA_STORE_CAPABILITY')) return undefined
    if (!StrataError.isInstance(error, 'STRATA_THREAD_BUSY')) throw error
    throw new MastraError(
      {
        id: THREAD_BUSY_ERROR_ID,
        domain: ErrorDomain.MASTRA_MEMORY,
        category: ErrorCategory.USER,
        text: error.message,
        details: { threadId: thread.id },
      },
      error,
    )
  }
}
