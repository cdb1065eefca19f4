import type { SharedV4ProviderOptions } from '@ai-sdk/provider'
import { assertThreadId, type HistoryMode, invalidOptions } from '@strata-memory/core'
import { assertChatId } from '../threads/chat-thread'

/**
 * What a call may set under `providerOptions.strata`.
 *
 * @example
 * await generateText({ model, messages, providerOptions: { strata: { threadId: 'user-42.chat-7' } } })
 */
export interface StrataCallOptions {
  /** The thread of this call (the app's chat id, mapped as the middleware's); overrides the middleware's `threadId`. */
  threadId?: string
  /**
   * The resource (a user, a team, an account) the call's thread belongs to: the thread is opened as
   * `memory.thread(threadId, { resource })`; overrides the middleware's `resource`.
   */
  resourceId?: string
  /** The level whose context is sent; overrides the middleware's `level`. */
  level?: string
  /** What the call's messages hold; overrides the middleware's `history`. */
  history?: HistoryMode
  /**
   * The UI message id of the response (the id of the stream's `start` chunk): stored with the
   * answer's items (every step of it) and the tool results the call sends, so `loadUIMessages` gives the
   * reloaded message the id the stream gave it.
   */
  messageId?: string
  /** The UI message id of the user message the call sends last: stored with it when it is new. */
  userMessageId?: string
  /**
   * The tool approvals the page answered, by tool call id (`openChatRequest` reads them from the
   * message): stored with the calls' results, so `loadUIMessages` shows each call approved or denied.
   */
  approvals?: Record<string, ToolApprovalRecord>
  /**
   * Marks Strata's own model calls (the summarizer's): the middleware passes them through untouched,
   * stores nothing and reads no usage.
   */
  internal?: boolean
}

/** A tool approval the page answered: the approval's id, the decision, and its reason when given. */
export interface ToolApprovalRecord {
  id: string
  approved: boolean
  reason?: string
}

const isApprovals = (value: unknown) =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  Object.values(value).every((entry) => {
    const { id, approved, reason } = (entry ?? {}) as Record<string, unknown>
    return (
      typeof id === 'string' &&
      typeof approved === 'boolean' &&
      (reason === undefined || typeof reason === 'string')
    )
  })

const KEYS: Record<keyof StrataCallOptions, (value: unknown) => boolean> = {
  threadId: (value) => typeof value === 'string',
  resourceId: (value) => typeof value === 'string',
  level: (value) => typeof value === 'string' && value.length > 0,
  history: (value) => value === 'auto' || value === 'full' || value === 'new',
  internal: (value) => typeof value === 'boolean',
  messageId: (value) => typeof value === 'string' && value.length > 0,
  userMessageId: (value) => typeof value === 'string' && value.length > 0,
  approvals: isApprovals,
}

const EXPECTED: Record<keyof StrataCallOptions, string> = {
  threadId: 'a thread id string',
  resourceId: 'a resource id string',
  level: 'a level name',
  history: "'auto', 'full' or 'new'",
  internal: 'a boolean',
  messageId: 'a UI message id (a non-empty string)',
  userMessageId: 'a UI message id (a non-empty string)',
  approvals: 'an object of { id, approved, reason? } by tool call id',
}

/**
 * Reads and checks `providerOptions.strata`. Anything malformed (not an object, an unknown key, a value
 * of the wrong type, an invalid thread id) is `STRATA_INVALID_OPTIONS` before anything is stored.
 */
export function readCallOptions(providerOptions: SharedV4ProviderOptions | undefined): StrataCallOptions {
  const raw: unknown = providerOptions?.strata
  if (raw === undefined) return {}
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    invalidOptions(
      `providerOptions.strata must be an object like { threadId: 'user-42.chat-7' } (got ${JSON.stringify(raw)}).`,
      { strata: raw },
    )
  }
  const result: StrataCallOptions = {}
  for (const [key, value] of Object.entries(raw)) {
    if (value === undefined) continue
    if (!Object.hasOwn(KEYS, key)) {
      invalidOptions(
        `providerOptions.strata has an unknown key '${key}': use ${Object.keys(KEYS).join(', ')}.`,
        {
          key,
        },
      )
    }
    const name = key as keyof StrataCallOptions
    if (!KEYS[name](value)) {
      invalidOptions(
        `providerOptions.strata.${name} must be ${EXPECTED[name]} (got ${JSON.stringify(value)}).`,
        {
          key,
          value,
        },
      )
    }
    ;(result as Record<string, unknown>)[name] = value
  }
  // Any chat id; one outside the store's rule is mapped when the call opens its thread.
  if (result.threadId !== undefined) assertChatId(result.threadId)
  // Resource ids follow the thread-id rule.
  if (result.resourceId !== undefined) assertThreadId(result.resourceId)
  return result
}
