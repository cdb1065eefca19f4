/**
 * What an error of each code carries in `details`, for programs. The named fields are those Strata's
 * own throw sites set; a field is optional where some sites leave it out. Details stay open (other
 * keys may be present), and an error from an older copy of the package may lack a field, so read them
 * as hints, not as a schema.
 */
type Open<T> = T & { readonly [key: string]: unknown }

/** The details type of each {@link StrataErrorCode}; `StrataError.isInstance(error, code)` narrows to it. */
export interface StrataErrorDetails {
  /** An unknown level or a bad ladder. */
  STRATA_INVALID_LEVEL: Open<{ level?: unknown; levels?: readonly string[]; mode?: string }>
  /** A thread id outside `[A-Za-z0-9_.-]{1,128}` or starting with `.`. */
  STRATA_INVALID_THREAD_ID: Open<{ threadId: unknown }>
  /** A message that cannot be stored as given. */
  STRATA_INVALID_MESSAGE: Open<{ threadId?: string; reason?: string; index?: number }>
  /** A value that is not JSON-safe, at `path`. */
  STRATA_NOT_SERIALIZABLE: Open<{ path: string }>
  /** A refused option, argument or configuration: the offending values under their option names. */
  STRATA_INVALID_OPTIONS: Open<Record<never, never>>
  /** `enter` to a level that is not narrower than the current one. */
  STRATA_INVALID_SCOPE: Open<{ level?: unknown; current?: string }>
  /** `exit` with no scope open. */
  STRATA_NO_OPEN_SCOPE: Open<{ threadId?: string }>
  /** `exit` naming another level than the open scope's. */
  STRATA_SCOPE_MISMATCH: Open<{ level?: unknown; open?: string }>
  /** `setMode` with a mode the memory does not define. */
  STRATA_UNKNOWN_MODE: Open<{ mode?: unknown }>
  /** A tool result whose call is not in the thread. */
  STRATA_UNKNOWN_TOOL_CALL: Open<{ toolCallId?: string; index?: number }>
  /** An item id stored twice. */
  STRATA_DUPLICATE_ITEM_ID: Open<{ id: string; threadId?: string; index?: number }>
  /**
   * Another writer changed what the call expected, and nothing was written: a thread's log
   * (`threadId`, `expectedSeq`, `actualSeq` where it is now), a thread's resource binding (`threadId`,
   * `expectedResource`, `actualResource`; null: unbound) or a resource's working memory (`resourceId`,
   * `expectedVersion`, `actualVersion`).
   */
  STRATA_SEQ_CONFLICT: Open<{
    threadId?: string
    expectedSeq?: number
    actualSeq?: number
    afterSeq?: number
    expectedResource?: string | null
    actualResource?: string | null
    resourceId?: string
    expectedVersion?: number
    actualVersion?: number
  }>
  /** Stored data this store did not write: the file and line, or the Redis key. */
  STRATA_CORRUPT_LOG: Open<{
    threadId?: string
    key?: string
    file?: string
    line?: number
    problem?: string
  }>
  /** The summarizer failed, timed out or answered in a form that cannot be read. */
  STRATA_SUMMARIZER_FAILED: Open<{ reason?: string; summarizer?: string; response?: string }>
  /** The store failed for a reason outside Strata's control. */
  STRATA_STORE_FAILED: Open<{
    threadId?: string
    key?: string
    command?: string
    path?: string
    action?: string
    errorCode?: string
  }>
  /** No stored content with this memory id. */
  STRATA_MEMORY_NOT_FOUND: Open<{ id?: unknown }>
  /** A write to content this thread may only read. */
  STRATA_CONTENT_READ_ONLY: Open<{ threadId?: string; owner?: string }>
  /** A rewind that would lose or split what it must keep. */
  STRATA_REWIND_UNSAFE: Open<{ threadId?: string; afterSeq?: number; reason?: string }>
  /**
   * Under `compaction.budget`: what a context cannot leave out (the system prompt and the current
   * request) is over the input budget. The token counts are the memory's counter's.
   */
  STRATA_BUDGET_EXCEEDED: Open<{
    threadId?: string
    inputBudget: number
    systemTokens: number
    requestTokens: number
  }>
  /**
   * Another request holds the thread (`thread.hold()`, or a write while another owner's lease has not
   * lapsed): nothing was written. `expiresAt` (epoch ms), when known, is when the holder's lease lapses
   * unless it is renewed.
   */
  STRATA_THREAD_BUSY: Open<{ threadId: string; expiresAt?: number }>
  /**
   * The store holds less of the thread than this process saw it hold (`knownSeq`, the newest seq it
   * read or wrote; `storeSeq`, the store's newest now): the store lost data (a Redis restarted without
   * persistence, files removed) or the thread was deleted meanwhile. Nothing was written.
   */
  STRATA_THREAD_LOST: Open<{ threadId: string; knownSeq?: number; storeSeq?: number }>
  /** The store lacks a capability the call needs (`capability`, e.g. `leases`). */
  STRATA_STORE_CAPABILITY: Open<{ store?: string; capability: string; specificationVersion?: string }>
}
