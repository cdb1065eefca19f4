import { StrataError } from '@strata-memory/core'
import { threadBusyError } from '@strata-memory/core/store-kit'
import { isErrorReply } from './redis-connection'

/* The typed errors of the Redis store. */

/** `STRATA_STORE_FAILED` for a command sent after `close()`. */
export function closedError(): StrataError {
  return new StrataError({
    code: 'STRATA_STORE_FAILED',
    message: 'This Redis store is closed: create a new one with redisStore(…).',
  })
}

/** `STRATA_SEQ_CONFLICT`: the thread is not at the writer's `expectedSeq`. */
export function conflictError(threadId: string, expectedSeq: number, actualSeq: number): StrataError {
  return new StrataError({
    code: 'STRATA_SEQ_CONFLICT',
    message: `Thread '${threadId}' is at seq ${actualSeq}, not the expected ${expectedSeq}: another writer changed it. Re-read the thread (head/read) and retry with expectedSeq ${actualSeq}.`,
    details: { threadId, expectedSeq, actualSeq },
  })
}

/**
 * `STRATA_THREAD_BUSY`: another owner's lease holds the thread for `remainingMs` more (PTTL's reply;
 * the expiry is left out when Redis gave none).
 */
export function busyError(threadId: string, remainingMs: number): StrataError {
  return threadBusyError(threadId, remainingMs > 0 ? Date.now() + remainingMs : undefined)
}

/** `STRATA_DUPLICATE_ITEM_ID`: another append stored an item with this id. */
export function duplicateError(threadId: string, id: string): StrataError {
  return new StrataError({
    code: 'STRATA_DUPLICATE_ITEM_ID',
    message: `Item id '${id}' is already stored in thread '${threadId}' by another append: item ids must be unique per thread (re-sending the very same append is fine and returns the stored items). Nothing was written.`,
    details: { threadId, id },
  })
}

/** `STRATA_CORRUPT_LOG`: a key under the prefix holds a value this store did not write. */
export function corruptError(prefix: string, key: string, what: string, threadId?: string): StrataError {
  return new StrataError({
    code: 'STRATA_CORRUPT_LOG',
    message: `Redis key '${key}' holds ${what}, which this store did not write: another program uses keys under the prefix '${prefix}'. Nothing was changed. Move that value away, or give Strata a prefix of its own (redisStore({ prefix })).`,
    details: { key, threadId },
  })
}

/** A failed command as a Strata error: a value of the wrong type is corruption, anything else a failure. */
export function storeError(
  error: unknown,
  prefix: string,
  key: string,
  command: string,
  threadId?: string,
): StrataError {
  if (StrataError.isInstance(error)) return error
  const message = error instanceof Error ? error.message : String(error)
  if (isErrorReply(error) && message.startsWith('WRONGTYPE')) {
    return corruptError(prefix, key, 'a value of another type', threadId)
  }
  return new StrataError({
    code: 'STRATA_STORE_FAILED',
    message: `Redis ${command} on '${key}' failed: ${message}. Check that Redis is reachable and the client connected (client.connect()), then retry.`,
    cause: error,
    details: { key, command, threadId },
  })
}
